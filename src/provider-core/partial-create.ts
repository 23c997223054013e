/**
 * A create the service carried out whose outputs could not all be recorded: the engine's
 * "created, but initialization failed" (`ErrorResourceInitFailed`). The state keeps the object's
 * id and the outputs it has, the `pulumi up` fails naming it, and the next `pulumi up` sends an
 * update, which returns the recorded outputs and sends nothing, instead of a second create.
 * The dynamic providers reject with this error (its `id`, `properties` and `reasons` are what
 * Pulumi's dynamic-provider host packs); the native plugin sends the same in the gRPC status.
 */
export { PartialCreateError } from "../client/errors";
import { PartialCreateError } from "../client/errors";
import { PROVIDER_KEY } from "./engine-markers";
import { describeResource } from "./notices";
import type { ResourceKind } from "../kinds";

/**
 * The deepest nesting of a recorded output. Pulumi's property values travel as protobuf Structs:
 * Node.js's marshalling of one overflows its stack at a few thousand levels (from 2,000 to 4,500,
 * by release and stack), and the engine's protobuf reader stops at 10,000 of its own (about 3,300
 * of JSON's); 1,000 stays clear of both.
 */
export const MAX_RECORDED_DEPTH = 1000;

/** How deep `value` nests, counting up to `limit + 1` at most (iterative: a deep value cannot overflow the stack here). */
export function nestingDepth(value: unknown, limit = MAX_RECORDED_DEPTH): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Why an output cannot be recorded, naming it; undefined when every output can be. */
export function unrecordableOutput(outs: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(outs)) {
    if (nestingDepth(value) > MAX_RECORDED_DEPTH)
      return `the answer's field ${name} is nested more than ${MAX_RECORDED_DEPTH} levels deep, deeper than Pulumi's property values reliably carry, so it was left out`;
  }
  return undefined;
}

/** The outputs of `outs` that can be recorded. */
export function recordableOutputs(outs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outs).filter(([, value]) => nestingDepth(value) <= MAX_RECORDED_DEPTH));
}

/**
 * A {@link PartialCreateError} of `kind`'s object `id`, worded for a Pulumi user: `causes` say what
 * failed; `outputs` are those the state records. Its one reason is the whole message, since the
 * engine shows a partial create's reasons, and keeps them as the resource's `initErrors`.
 */
export function partialCreate(kind: ResourceKind, id: string, outputs: Record<string, unknown>, causes: string[]): PartialCreateError {
  const message =
    `${describeResource(kind, id, outputs)} was created in the analytics service, but not all of its outputs could be recorded (${causes.join("; ")}). ` +
    "The stack's state records the object with its id, so no second create is sent for it: run `pulumi up` again to finish.";
  return new PartialCreateError(message, id, outputs, [message]);
}

/** What a create that failed once its object existed leaves in the state, as the dynamic-provider host takes it. */
export interface DynamicInitFailure {
  message: string;
  id: string;
  /** The recorded outputs, with the serialized provider the next update needs. */
  properties: Record<string, unknown>;
  reasons: string[];
}

/** `error` with the fields Pulumi's dynamic-provider host reads for `ErrorResourceInitFailed`, or `error` itself when nothing was created. */
export function asDynamicInitFailure(error: unknown, inputs: Readonly<Record<string, unknown>>): unknown {
  if (!(error instanceof PartialCreateError)) return error;
  return Object.assign(error, { properties: { ...error.outputs, [PROVIDER_KEY]: inputs[PROVIDER_KEY] }, reasons: error.reasons });
}

/** The outputs an update returns: the recorded ones, as they are (every declared change is a replace, so an update only clears a partial create). */
export function recordedOutputs(olds: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _provider, ...outs } = olds;
  return outs;
}
