/**
 * What the dynamic providers do, loaded by name inside the provider process (see provider.ts):
 * nothing here is captured into the serialized `__provider`, so this code puts no client, key or
 * config value in state. (Pulumi itself records stack config, `analytics:apiKey` included, as the
 * default provider's inputs, encrypted when set with `--secret`; ANALYTICS_API_KEY stays out.)
 */
import { AnalyticsClient } from "../client/client";
import { ConfigurationError } from "../client/errors";
import { undiciTransport } from "../client/transport";
import { STATUS_OBSERVED_AT } from "./status";
import { PULUMI_API_KEY_HINT, PULUMI_BASE_URL_HINT, inPulumiTerms } from "./pulumi-words";
import { configKey, declaredInputs, kindSpec, providerConfigSpec, type ProviderSettingName } from "../kinds";
import { ORPHANS_HINT, leftBehindNotice, notifyOnStderr, replaceNotice, type Notify } from "./notices";
import { checkInputs, diffInputs, ownerIds, requestBody, type CheckOutcome, type DiffOutcome, type ResourceKind } from "./inputs";

/** Provider settings from stack config, captured by `configure` in the provider process only. */
export interface ProviderSettings {
  /** `analytics:apiKey`; Pulumi keeps stack config in the state, so this one is stored there, encrypted. */
  apiKey?: string;
  /** `analytics:baseUrl`. */
  baseUrl?: string;
}

/** Reads `analytics:apiKey` and `analytics:baseUrl` from the engine's provider config. */
export function settingsFromConfig(config: { get(key: string): string | undefined }): ProviderSettings {
  const settings: ProviderSettings = {};
  for (const name of Object.keys(providerConfigSpec) as ProviderSettingName[]) {
    const value = config.get(configKey(name));
    if (value) settings[name] = value;
  }
  return settings;
}

/** Stack config first, then ANALYTICS_API_KEY / ANALYTICS_BASE_URL; a clear error naming both ways when missing. */
export function resolveSettings(settings: ProviderSettings, env: NodeJS.ProcessEnv = process.env): { apiKey: string; baseUrl: string } {
  const apiKey = settings.apiKey ?? env[providerConfigSpec.apiKey.env];
  const baseUrl = settings.baseUrl ?? env[providerConfigSpec.baseUrl.env];
  if (!apiKey) throw new ConfigurationError(`No analytics API key is set. ${PULUMI_API_KEY_HINT}`);
  if (!baseUrl) throw new ConfigurationError(`No analytics base URL is set. ${PULUMI_BASE_URL_HINT}`);
  return { apiKey, baseUrl };
}

/** Environment variable bounding each API request of the provider, in ms (default: the transport's 60 s). */
export const REQUEST_TIMEOUT_ENV = "ANALYTICS_REQUEST_TIMEOUT_MS";

/** Reads {@link REQUEST_TIMEOUT_ENV}: undefined when unset, a positive integer of ms, or a ConfigurationError. */
export function requestTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env[REQUEST_TIMEOUT_ENV]?.trim();
  if (text === undefined || text === "") return undefined;
  const ms = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new ConfigurationError(`${REQUEST_TIMEOUT_ENV} must be a positive whole number of milliseconds, got ${JSON.stringify(text)}.`);
  }
  return ms;
}

/** check: validate with the contract, apply defaults. Sends nothing. */
export function check(kind: ResourceKind, news: Record<string, unknown>): CheckOutcome {
  return checkInputs(kind, news);
}

/**
 * diff: every declared change is a replace. Sends nothing. The changed fields are named in the
 * output too (through `notify`, stderr by default), because the engine shows a changed secret as
 * an unchanged `[secret]`.
 */
export function diff(kind: ResourceKind, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, notify: Notify = notifyOnStderr): DiffOutcome {
  const result = diffInputs(kind, olds, news);
  if (result.changes) void notify("info", replaceNotice(kind, id, olds, result.replaces));
  return result;
}

/** Clients of this provider process by settings, so every create reuses one keep-alive connection pool. */
const clients = new Map<string, AnalyticsClient>();

/** The process's client for these settings (created on first use; the engine ends the process when done); retries are told to `notify`. */
export function clientFor(settings: ProviderSettings, env: NodeJS.ProcessEnv = process.env, notify: Notify = notifyOnStderr): AnalyticsClient {
  const resolved = resolveSettings(settings, env);
  const requestTimeoutMs = requestTimeoutFromEnv(env);
  const cacheKey = JSON.stringify([resolved.baseUrl, resolved.apiKey, requestTimeoutMs ?? null]);
  let client = clients.get(cacheKey);
  if (client === undefined) {
    client = new AnalyticsClient({
      ...resolved,
      transport: undiciTransport(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
      onRetry: (event) => {
        void notify("info", `Retrying the create of ${event.object} in ${Math.ceil(event.delayMs / 1000)} s (attempt ${event.attempt} failed: ${event.reason}).`);
      },
    });
    clients.set(cacheKey, client);
  }
  return client;
}

/** create: one POST; outputs are the API's object plus the declared inputs (secrets included, kept secret by the engine). */
export async function create(
  kind: ResourceKind,
  inputs: Record<string, unknown>,
  settings: ProviderSettings,
  notify: Notify = notifyOnStderr,
): Promise<{ id: string; outs: Record<string, unknown> }> {
  try {
    return await createObject(kind, inputs, settings, notify);
  } catch (error) {
    throw inPulumiTerms(error);
  }
}

async function createObject(kind: ResourceKind, inputs: Record<string, unknown>, settings: ProviderSettings, notify: Notify): Promise<{ id: string; outs: Record<string, unknown> }> {
  const client = clientFor(settings, process.env, notify);
  // The declared inputs only: a field the kind does not have never reaches the outputs.
  const declared = declaredInputs(kindSpec(kind), inputs);
  const created = await client.createObject(kindSpec(kind), requestBody(kind, declared), ownerIds(kind, declared));
  // Receipt time on this machine: the only clock both kinds of response can be dated by.
  return { id: String(created.id), outs: { ...created, ...declared, [STATUS_OBSERVED_AT]: new Date().toISOString() } };
}

export { ORPHANS_HINT };

/** delete: the API cannot delete; succeed, and tell the user (through `notify`, stderr by default) what was left behind. */
export function remove(kind: ResourceKind, id: string, props: Record<string, unknown>, notify: Notify = notifyOnStderr): void {
  void notify("warning", leftBehindNotice(kind, id, props));
}

/** Settings holder shared by one provider object's methods in the provider process. */
export interface ProviderState {
  /** Filled by `configure`. */
  settings: ProviderSettings;
}

/** Entry point of the serialized providers: routes a provider method to this module. */
export async function dispatch(kind: ResourceKind, method: string, state: ProviderState, args: unknown[]): Promise<unknown> {
  switch (method) {
    case "configure":
      state.settings = settingsFromConfig((args[0] as { config: { get(key: string): string | undefined } }).config);
      return undefined;
    case "check":
      return check(kind, args[1] as Record<string, unknown>);
    case "diff":
      return diff(kind, args[0] as string, args[1] as Record<string, unknown>, args[2] as Record<string, unknown>);
    case "create":
      return create(kind, args[0] as Record<string, unknown>, state.settings);
    case "delete":
      return remove(kind, args[0] as string, args[1] as Record<string, unknown>);
    default:
      throw new Error(`The analytics provider has no method ${method}.`);
  }
}
