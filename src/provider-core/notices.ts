/**
 * The words both providers print about an object (a replace and why, a retried create, an object left behind) and
 * where the dynamic provider prints them. Free of zod and HTTP: the native provider sends the same
 * words to the engine's log instead.
 */
import type { AnswerDifferenceEvent, RetryEvent } from "../client/client";
import { expectedWords, jsonTypeWords } from "../contract/answer-reading";
import { kindSpec, type ResourceKind } from "../kinds";

/** How severe a notice is. */
export type NoticeLevel = "info" | "warning";

/** Where a provider's notices go. */
export type Notify = (level: NoticeLevel, message: string) => void | Promise<void>;

/**
 * Prints a line under the stack's diagnostics. Provider processes have no engine connection
 * for `pulumi.log`, but the engine shows whatever dynamic providers write to stderr.
 */
export const notifyOnStderr: Notify = (level, message) => {
  process.stderr.write(`${level}: ${message}\n`);
};

/** `DataSource "Warehouse" (id ds_1)`: type, name and id, never a secret. */
export function describeResource(kind: ResourceKind, id: string, props: Record<string, unknown>): string {
  const spec = kindSpec(kind);
  return `${spec.typeName} ${JSON.stringify(props[spec.labelField])} (id ${id})`;
}

/** Why an object is replaced: named, since the engine shows a changed secret as an unchanged `[secret]`. */
export function replaceNotice(kind: ResourceKind, id: string, olds: Record<string, unknown>, replaces: readonly string[]): string {
  return `${describeResource(kind, id, olds)} will be replaced because ${replaces.join(", ")} changed: the analytics API cannot update objects.`;
}

/** A create about to be retried: the object, the wait and why the attempt failed. */
export function retryNotice(event: RetryEvent): string {
  return `Retrying the create of ${event.object} in ${Math.ceil(event.delayMs / 1000)} s (attempt ${event.attempt} failed: ${event.reason}).`;
}

/** Said once per provider process (one per update), on its first delete: a provider cannot tell which delete is the last. */
export const ORPHANS_HINT = "`npx analytics-orphans` lists every object this stack has left in the service.";
let orphansHinted = false;

/** What a delete left in the service; the first of a process also points to `analytics-orphans`. */
export function leftBehindNotice(kind: ResourceKind, id: string, props: Record<string, unknown>): string {
  const hint = orphansHinted ? "" : ` ${ORPHANS_HINT}`;
  orphansHinted = true;
  return (
    `${describeResource(kind, id, props)} was left in the analytics service: its API has no delete endpoint. ` +
    `It is no longer managed by this stack; remove it in the service if you no longer need it.${hint}`
  );
}

/** How to tell the project about an answer that differed, closing each warning about one. */
export const REPORT_HINT = "If the service answers this way, report it to the provider's maintainers with this warning's text (docs/spec-gaps.md).";

/** The kinds and fields whose lossless differences this process has told already: once per command each, not once per object. */
const toldLossless = new Set<string>();

/**
 * What to say about the fields of a create's answer that were not what the spec says. A value that
 * could not be kept (recorded as null) is a warning under its object, every time. The differences
 * that lost nothing are one line for the create, naming each field not yet named in this command
 * for its kind: each field is said once per command, not once per object.
 */
export function differenceNotices(
  kind: ResourceKind,
  id: string,
  props: Record<string, unknown>,
  differences: readonly AnswerDifferenceEvent[],
): Array<{ level: NoticeLevel; message: string }> {
  const spec = kindSpec(kind);
  const notices: Array<{ level: NoticeLevel; message: string }> = [];
  const absent: string[] = [];
  const others: string[] = [];
  for (const { field, received, recorded, lossless } of differences) {
    const expected = field === "id" ? "a string" : expectedWords(spec.outputs[field]!);
    if (!lossless) {
      const message = `${describeResource(kind, id, props)}: the API answered ${field} as ${received}, where the spec has ${expected}; the state records null. ${REPORT_HINT}`;
      notices.push({ level: "warning", message });
      continue;
    }
    const key = `${kind}.${field}`;
    if (toldLossless.has(key)) continue;
    toldLossless.add(key);
    if (received === "absent") absent.push(field);
    else others.push(`${field} as ${received} (the spec has ${expected}; recorded as ${recorded === null ? "null" : jsonTypeWords(recorded)})`);
  }
  const parts = [...(absent.length > 0 ? [`without ${absent.join(", ")} (recorded as null)`] : []), ...others];
  if (parts.length > 0) {
    const article = /^[aeiou]/.test(spec.noun) ? "an" : "a";
    notices.push({
      level: "info",
      message: `The API answered ${article} ${spec.noun} ${parts.join("; ")}. Nothing was lost; each field is said once per command.`,
    });
  }
  return notices;
}
