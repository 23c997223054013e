/**
 * The words both providers print about an object (a replace and why, a retried create, an object left behind) and
 * where the dynamic provider prints them. Free of zod and HTTP: the native provider sends the same
 * words to the engine's log instead.
 */
import type { RetryEvent } from "../client/client";
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
