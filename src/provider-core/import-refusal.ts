/** Why an object cannot be imported (the API has no read endpoint), in the words both providers give. */
import { allKindSpecs, ownerFieldNames, type KindSpec } from "../kinds";

/** What to do instead of importing: reference an owner by id, or declare the object anew. */
function instead(spec: KindSpec): string {
  for (const child of allKindSpecs()) {
    const field = ownerFieldNames(child).find((name) => child.inputs[name]!.owner === spec.noun);
    if (field === undefined) continue;
    return (
      `To add ${child.noun}s to an existing ${spec.noun} without managing it, pass its id as a plain string: ` +
      `\`new ${child.typeName}(..., { ${field}: "<${spec.noun} id>" })\`.`
    );
  }
  return `Declare the ${spec.noun} anew; the existing one keeps working in the service.`;
}

/** Why an object of `spec` named `name` cannot be imported, and what to do instead. */
export function importUnsupportedMessage(spec: KindSpec, name: string): string {
  return (
    `${spec.typeName} "${name}" cannot be imported: the analytics API has no read endpoint, so an existing object cannot be read or adopted ` +
    "into a stack. Remove the `import` option; the stack then creates a new object and leaves the existing one in the service " +
    `untouched. ${instead(spec)}`
  );
}
