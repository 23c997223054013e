/** The resource kinds of the API, one spec file each, registered once below. */
import { dataSourceSpec } from "./data-source";
import { organizationSpec } from "./organization";
import { createOperationId, dynamicTypeToken, nativeTypeToken, secretFieldNames, type KindSpec } from "./spec";

export * from "./spec";
export * from "./organization";
export * from "./data-source";
export * from "./provider-config";

/** Every kind's spec, by the kind name the serialized providers use. */
export const KINDS = { organization: organizationSpec, dataSource: dataSourceSpec } as const satisfies Record<string, KindSpec>;

/** A kind, as the serialized providers in existing stacks name it: `organization` or `dataSource`. */
export type ResourceKind = keyof typeof KINDS;

/** The spec of `kind`. */
export function kindSpec(kind: ResourceKind): KindSpec {
  return KINDS[kind];
}

/** Every kind's spec, in registration order. */
export function allKindSpecs(): KindSpec[] {
  return Object.values(KINDS);
}

/** The spec whose resources the engine records under `token` (dynamic or native), or undefined for another type. */
export function kindOfTypeToken(token: string): KindSpec | undefined {
  return allKindSpecs().find((spec) => dynamicTypeToken(spec) === token || nativeTypeToken(spec) === token);
}

/** Every input name that is a credential in some kind: a message never quotes a value of one. */
export function allSecretFieldNames(): ReadonlySet<string> {
  return new Set(allKindSpecs().flatMap(secretFieldNames));
}

/** The create operation of a kind, e.g. `createDataSource`: the route and fault-setting names of the reference server. */
export type CreateOperationId = ReturnType<typeof createOperationId<(typeof KINDS)[ResourceKind]>>;

/** The kind whose create operation is `id`, or undefined. */
export function kindOfOperation(id: string): ResourceKind | undefined {
  return (Object.keys(KINDS) as ResourceKind[]).find((kind) => createOperationId(KINDS[kind]) === id);
}

/** Every kind's create operation, in registration order. */
export function createOperationIds(): CreateOperationId[] {
  return allKindSpecs().map(createOperationId) as CreateOperationId[];
}
