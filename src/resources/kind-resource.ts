/**
 * What every resource class shares: the registration of one object of a kind with its dynamic
 * provider, read from the kind's spec. The classes themselves only name their kind and types.
 */
import * as pulumi from "@pulumi/pulumi";
import { PULUMI_MODULE, kindSpec, outputNames, secretFieldNames, type InputValues, type KindSpec, type OutputValues, type ResourceKind } from "../kinds";
import { rejectImport } from "./import-guard";
import { providerFor } from "./serialized-provider";
import { STATUS_OBSERVED_AT } from "../provider-core/status-observed-at";
import type { StatusObservedAtOutput } from "./status-observed-at-output";

/** Arguments of a kind's resource: each input of its spec as a `pulumi.Input`, with the spec's doc comment. */
export type ResourceArgs<S extends KindSpec> = { [K in keyof InputValues<S["inputs"]>]: pulumi.Input<InputValues<S["inputs"]>[K]> };

/**
 * Outputs of a kind's resource, each with its spec's doc comment: the API's answer (its id is the
 * resource's own), the declared inputs the answer does not repeat, and `statusObservedAt`.
 */
export type ResourceOutputs<S extends KindSpec> = {
  readonly [K in keyof Omit<OutputValues<S["outputs"]>, "id">]: pulumi.Output<OutputValues<S["outputs"]>[K]>;
} & {
  readonly [K in keyof Omit<InputValues<S["inputs"]>, keyof OutputValues<S["outputs"]>>]-?: pulumi.Output<InputValues<S["inputs"]>[K]>;
} & StatusObservedAtOutput;

/**
 * The properties registered for an object: every output declared (unknown until created, the id
 * being the resource's own), then the arguments, credentials wrapped as secrets even when passed
 * as plain strings so the engine encrypts the same-named outputs and masks them in every diff.
 */
export function registeredProperties(spec: KindSpec, args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const field of outputNames(spec)) if (field !== "id") props[field] = undefined;
  props[STATUS_OBSERVED_AT] = undefined;
  for (const [key, value] of Object.entries(args)) props[key] = value;
  for (const field of secretFieldNames(spec)) if (args[field] !== undefined) props[field] = pulumi.secret(args[field]);
  return props;
}

/** The options registered: the caller's, with the kind's credentials added to `additionalSecretOutputs`. */
export function registeredOptions(spec: KindSpec, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions | undefined {
  const secrets = secretFieldNames(spec);
  if (secrets.length === 0) return opts;
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] };
}

/** Whether `obj` was registered under `token`: works across copies of this package, unlike `instanceof`. */
export function hasTypeToken(obj: unknown, token: string): boolean {
  return (obj as { __pulumiType?: unknown } | null | undefined)?.__pulumiType === token;
}

/** Base of the resource classes: one object of `kind`, registered with that kind's dynamic provider. */
export abstract class KindResource extends pulumi.dynamic.Resource {
  protected constructor(kind: ResourceKind, name: string, args: Readonly<Record<string, unknown>>, opts?: pulumi.CustomResourceOptions) {
    const spec = kindSpec(kind);
    rejectImport(spec, name, opts);
    super(providerFor(kind), name, registeredProperties(spec, args), registeredOptions(spec, opts), PULUMI_MODULE, spec.typeName);
  }
}
