/**
 * What both providers do: check, diff, create and delete of any kind, on plain values. The
 * dynamic providers (src/resources/provider-impl.ts, loaded by name in the provider process) and
 * the native plugin (src/native/provider.ts) are adapters over these. Nothing here is captured into
 * a serialized `__provider`, so this code puts no client, key or config value in state. (Pulumi
 * itself records stack config, `analytics:apiKey` included, as the default provider's inputs,
 * encrypted when set with `--secret`; ANALYTICS_API_KEY stays out.)
 */
import { AnalyticsClient, type AnswerDifferenceEvent, type RetryEvent } from "../client/client";
import { undiciTransport } from "../client/transport";
import { declaredInputs, kindSpec, secretFieldNames } from "../kinds";
import { redact } from "../redact";
import { checkInputs, diffInputs, ownerIds, requestBody, type CheckOutcome, type DiffOutcome, type ResourceKind } from "./inputs";
import { differenceNotices, leftBehindNotice, notifyOnStderr, replaceNotice, retryNotice, type Notify } from "./notices";
import { PartialCreateError, partialCreate, recordableOutputs, unrecordableOutput } from "./partial-create";
import { forPulumiUsers } from "./pulumi-advice";
import { requestTimeoutFromEnv, resolveSettings, type ProviderSettings } from "./settings";
import { STATUS_OBSERVED_AT } from "./status-observed-at";

/** check: validate with the contract, apply defaults. Sends nothing. */
export function check(kind: ResourceKind, news: Record<string, unknown>): CheckOutcome {
  return checkInputs(kind, news);
}

/**
 * diff: every declared change is a replace. Sends nothing. The changed fields are named in the
 * output too (through `notify`, stderr by default), because the engine shows a changed secret as
 * an unchanged `[secret]`.
 */
export function diff(
  kind: ResourceKind,
  id: string,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  notify: Notify = notifyOnStderr,
): DiffOutcome {
  const result = diffInputs(kind, olds, news);
  if (result.changes) void notify("info", replaceNotice(kind, id, olds, result.replaces));
  return result;
}

/** Clients of this provider process by settings, so every create reuses one keep-alive connection pool. */
const clients = new Map<string, AnalyticsClient>();

/** The process's client for these settings (created on first use; the engine ends the process when done). */
export function clientFor(settings: ProviderSettings, env: NodeJS.ProcessEnv = process.env): AnalyticsClient {
  const resolved = resolveSettings(settings, env);
  const requestTimeoutMs = requestTimeoutFromEnv(env);
  const cacheKey = JSON.stringify([resolved.baseUrl, resolved.apiKey, requestTimeoutMs ?? null]);
  let client = clients.get(cacheKey);
  if (client === undefined) {
    client = new AnalyticsClient({ ...resolved, transport: undiciTransport(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) });
    clients.set(cacheKey, client);
  }
  return client;
}

/** A created object: its id and outputs (the API's answer, the declared inputs, `statusObservedAt`). */
export interface CreateOutcome {
  /** The API's id of the object. */
  id: string;
  /** The outputs; the declared secrets among them, kept secret by the engine. */
  outs: Record<string, unknown>;
}

/**
 * create: one POST through the process's shared client; this create's retries are told to
 * `notify` (stderr by default), and its errors are worded for a Pulumi user. Once the service has
 * answered with an id, nothing fails the create but a {@link PartialCreateError}, which the state
 * records.
 */
export async function create(
  kind: ResourceKind,
  inputs: Record<string, unknown>,
  settings: ProviderSettings,
  notify: Notify = notifyOnStderr,
): Promise<CreateOutcome> {
  try {
    const client = clientFor(settings, process.env);
    // The declared inputs only: a field the kind does not have never reaches the outputs.
    const declared = declaredInputs(kindSpec(kind), inputs);
    const differences: AnswerDifferenceEvent[] = [];
    const onRetry = (event: RetryEvent) => void notify("info", retryNotice(event));
    const onDifference = (event: AnswerDifferenceEvent) => void differences.push(event);
    const created = await client.createObject(kindSpec(kind), requestBody(kind, declared), ownerIds(kind, declared), { onRetry, onDifference });
    return recordCreated(kind, created, declared, differences, notify);
  } catch (error) {
    throw forPulumiUsers(error);
  }
}

/**
 * The outcome of a create the service answered with an id: the answer, the declared inputs and
 * `statusObservedAt` (receipt time on this machine: the only clock both kinds of answer can be
 * dated by), each difference from the spec told. Whatever fails here is a partial create.
 */
export function recordCreated(
  kind: ResourceKind,
  created: Record<string, unknown>,
  declared: Record<string, unknown>,
  differences: readonly AnswerDifferenceEvent[],
  notify: Notify,
): CreateOutcome {
  const id = String(created.id);
  const outs = { ...created, ...declared, [STATUS_OBSERVED_AT]: new Date().toISOString() };
  try {
    const unrecordable = unrecordableOutput(outs);
    if (unrecordable !== undefined) throw partialCreate(kind, id, recordableOutputs(outs), [unrecordable]);
    // A field the program declared is recorded as declared, whatever the answer held.
    const told = differences.filter((difference) => !Object.hasOwn(declared, difference.field));
    for (const notice of differenceNotices(kind, id, declared, told)) void notify(notice.level, notice.message);
    return { id, outs };
  } catch (error) {
    if (error instanceof PartialCreateError) throw error;
    const secrets = secretFieldNames(kindSpec(kind)).map((name) => declared[name]);
    const why = redact(error instanceof Error ? error.message : String(error), secrets);
    throw partialCreate(kind, id, recordableOutputs(outs), [`the provider failed while recording it: ${why}`]);
  }
}

/** delete: the API cannot delete; succeed, and tell the user (through `notify`, stderr by default) what was left behind. */
export function remove(kind: ResourceKind, id: string, props: Record<string, unknown>, notify: Notify = notifyOnStderr): void {
  void notify("warning", leftBehindNotice(kind, id, props));
}
