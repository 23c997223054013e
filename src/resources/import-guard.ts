import type * as pulumi from "@pulumi/pulumi";
import { ImportUnsupportedError } from "../client/errors";

/** What to do instead of importing, by resource type. */
const INSTEAD: Record<"Organization" | "DataSource", string> = {
  Organization:
    "To add data sources to an existing organization without managing it, pass its id as a plain string: `new DataSource(..., { orgId: \"org_...\" })`.",
  DataSource: "Declare the data source anew; the existing one keeps working in the service.",
};

/** Throws {@link ImportUnsupportedError} when a resource is declared with the `import` option. */
export function rejectImport(type: "Organization" | "DataSource", name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  if (opts?.import === undefined) return;
  throw new ImportUnsupportedError(
    `${type} "${name}" cannot be imported: the analytics API has no read endpoint, so an existing object cannot be read or adopted ` +
      "into a stack. Remove the `import` option; the stack then creates a new object and leaves the existing one in the service " +
      `untouched. ${INSTEAD[type]}`,
  );
}
