/** The resource kinds of the API, one spec file each, registered once below. */
import { dataSourceSpec } from "./data-source";
import { organizationSpec } from "./organization";
import type { KindSpec } from "./spec";

export * from "./spec";
export * from "./organization";
export * from "./data-source";

/** Every kind's spec, by the kind name the serialized providers use. */
export const KINDS = { organization: organizationSpec, dataSource: dataSourceSpec } as const satisfies Record<string, KindSpec>;

/** A kind, as the serialized providers in existing stacks name it: `organization` or `dataSource`. */
export type ResourceKind = keyof typeof KINDS;

/** The spec of `kind`. */
export function kindSpec(kind: ResourceKind): KindSpec {
  return KINDS[kind];
}
