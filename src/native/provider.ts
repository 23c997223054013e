/**
 * The native provider's handlers on plain values (no gRPC types): an adapter over the provider
 * core (src/provider-core), as the dynamic providers are, reached by type token instead of by a
 * serialized closure, with the provider's settings from its Configure request and its notices
 * sent to the engine's log under each resource.
 */
import { ConfigurationError, ImportUnsupportedError } from "../client/errors";
import { apiKeyProblem, baseUrlProblem } from "../client/setting-rules";
import {
  PULUMI_MODULE,
  configKey,
  declaredInputs,
  kindOfTypeToken,
  nativeTypeToken,
  outputNames,
  providerConfigSpec,
  secretFieldNames,
  type KindSpec,
  type ProviderSettingName,
  type ProviderSettingSpec,
  type ResourceKind,
} from "../kinds";
import { importUnsupportedMessage } from "../provider-core/import-refusal";
import type { CheckFailure, CheckOutcome, DiffOutcome } from "../provider-core/inputs";
import { describeResource, notifyOnStderr, type NoticeLevel, type Notify } from "../provider-core/notices";
import { PartialCreateError } from "../provider-core/partial-create";
import { PULUMI_ADVICE } from "../provider-core/pulumi-advice";
import type { ProviderSettings } from "../provider-core/settings";
import { STATUS_OBSERVED_AT } from "../provider-core/status-observed-at";
import { schemaText, schemaVersion } from "./package-schema";
import { UNKNOWN, asSecret, unwrapProperties, wrapSecrets, type PropertyMap } from "./property-values";

/** The package name of the native provider: its types and config keys (see `nativeTypeToken`, `configKey`). */
export const PACKAGE = PULUMI_MODULE;

/** The provider's own inputs, as an explicit provider declares them and `analytics:<key>` config sets them. */
const SETTING_NAMES = Object.keys(providerConfigSpec) as ProviderSettingName[];

/** What the engine's log shows when the engine cancels the operation. */
export const CANCELLED_NOTICE = "The analytics provider was cancelled: creates already sent finish and are recorded; no new create is sent.";

/** A Configure request's content. */
export interface ConfigureInput {
  /** The provider resource's name (`default…` for a default provider), when the engine sends it. */
  name?: string | undefined;
  /** The provider's inputs (explicit provider args, or stack config for a default provider). */
  args?: PropertyMap | undefined;
  /** The same inputs as `analytics:config:<key>` strings. */
  variables?: Readonly<Record<string, string>> | undefined;
}

/** The provider core's operations, loaded on first use: they load zod and the HTTP client, which start-up does not need. */
function core(): Promise<typeof import("../provider-core/operations")> {
  return import("../provider-core/operations");
}

/** The `name` of a URN (its last `::` segment). */
export function urnName(urn: string): string {
  return urn.split("::").pop() ?? urn;
}

/** The type token of a URN (its third `::` segment, after any parent types). */
export function urnType(urn: string): string {
  return (urn.split("::")[2] ?? "").split("$").pop() ?? "";
}

/** The kind behind a URN of this package's native types, or an error naming the type. */
export function kindOfUrn(urn: string): { kind: ResourceKind; spec: KindSpec } {
  const type = urnType(urn);
  const spec = kindOfTypeToken(type);
  if (spec === undefined || nativeTypeToken(spec) !== type) throw new Error(`The analytics provider has no resource type ${JSON.stringify(type)}.`);
  return { kind: spec.kind as ResourceKind, spec };
}

/** Whether a provider resource's name is the engine's default provider (`default`, `default_0_1_0`). */
export function isDefaultProvider(name: string | undefined): boolean {
  return name === undefined || name === "" || /^default(_|$)/.test(name);
}

/** A setting's value when it is a non-empty, known string. */
function settingValue(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" && value !== UNKNOWN ? value : undefined;
}

/**
 * The stack config the engine hands a provider process in PULUMI_CONFIG (plain text, secrets too:
 * never logged, and never quoted when it is not the JSON object the engine writes).
 */
function stackConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const text = env.PULUMI_CONFIG;
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  throw new ConfigurationError(
    "The stack config in the PULUMI_CONFIG environment variable is not a JSON object, so the analytics provider cannot read analytics:apiKey and analytics:baseUrl from it. " +
      "PULUMI_CONFIG is the engine's to set: run the program with `pulumi`, and do not set PULUMI_CONFIG yourself.",
  );
}

/**
 * The settings of a Configure request: its args, then its `analytics:config:<key>` variables,
 * then (for the default provider only) the PULUMI_CONFIG stack config; ANALYTICS_API_KEY and
 * ANALYTICS_BASE_URL apply at create, as for the dynamic providers.
 */
export function settingsOf(request: ConfigureInput, env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const args = unwrapProperties(request.args ?? {}).values;
  const config = isDefaultProvider(request.name) ? stackConfig(env) : {};
  const settings: ProviderSettings = {};
  for (const key of SETTING_NAMES) {
    const value =
      settingValue(args[key]) ??
      settingValue(request.variables?.[`${PACKAGE}:config:${key}`]) ??
      settingValue(config[key]) ??
      settingValue(config[configKey(key)]);
    if (value !== undefined) settings[key] = value;
  }
  return settings;
}

/** CheckConfig: `apiKey` and `baseUrl`, if set, must be strings the client can send, never quoted; the key comes back a secret. Sends nothing. */
export function checkConfig(news: PropertyMap): CheckOutcome {
  const { values } = unwrapProperties(news);
  const failures: CheckFailure[] = [];
  const words = {
    apiKey: ["The analytics API key", PULUMI_ADVICE["api-key"], apiKeyProblem],
    baseUrl: ["The analytics base URL", PULUMI_ADVICE["base-url"], baseUrlProblem],
  } as const;
  for (const key of SETTING_NAMES) {
    const value = values[key];
    if (value === undefined || value === null || value === UNKNOWN) continue;
    const [setting, hint, rule] = words[key];
    const problem = typeof value !== "string" || value === "" ? "must be a non-empty string" : rule(value);
    if (problem !== undefined) failures.push({ property: key, reason: `${setting} ${problem}. ${hint}` });
  }
  const inputs = { ...news };
  for (const key of SETTING_NAMES) {
    const secret = (providerConfigSpec[key] as ProviderSettingSpec).secret === true;
    if (secret && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = asSecret(inputs[key]);
  }
  return { inputs, failures };
}

/** The plugin's version: the package's, as the generated schema records it (a bundled plugin has no package.json beside it). */
export function pluginVersion(): string {
  return schemaVersion();
}

/**
 * What a create whose answer could not reach the engine says: the object exists in the service,
 * and neither the stack's state nor `analytics-orphans` (which reads that state's history) knows it.
 */
export function unrecordedCreateNotice(kind: ResourceKind, id: string, values: Record<string, unknown>): string {
  return (
    `${describeResource(kind, id, values)} was created in the analytics service, but the engine stopped waiting for the answer ` +
    "(its call was cancelled or its deadline passed), so the stack's state does not record it and `analytics-orphans` cannot list it. " +
    "Remove it in the service, or keep it and expect the next `pulumi up` to create another."
  );
}

/** The secret names of a kind plus whatever the engine sent as secret: kept secret on the way back. */
function secretNames(spec: KindSpec, secretKeys: Iterable<string>): Set<string> {
  return new Set([...secretFieldNames(spec), ...secretKeys]);
}

/** Where the provider's notices go: the engine's log, under the resource of `urn` when given. */
export type ProviderLog = (level: NoticeLevel, message: string, urn?: string) => void | Promise<void>;

/** One provider process's provider: its settings, set by Configure, and the resource methods. */
export class NativeProvider {
  /** Settings from the last Configure. */
  settings: ProviderSettings = {};
  private cancelled = false;

  /**
   * @param log where notices go; the gRPC server points it at the engine's log, since the engine
   *   hides what a native plugin writes to stderr.
   */
  constructor(public log: ProviderLog = notifyOnStderr) {}

  /** Runs `step` with a notify bound to `urn`, and waits until its notices are delivered, whether it succeeds or fails. */
  private async noticing<T>(urn: string, step: (notify: Notify) => T | Promise<T>): Promise<T> {
    const pending: Array<void | Promise<void>> = [];
    try {
      return await step((level, message) => void pending.push(this.log(level, message, urn)));
    } finally {
      await Promise.all(pending);
    }
  }

  /** CheckConfig: see {@link checkConfig}. */
  checkConfig(news: PropertyMap): CheckOutcome {
    return checkConfig(news);
  }

  /** Configure: keeps the settings in this process; a missing key fails at create, as for the dynamic providers. */
  configure(request: ConfigureInput, env: NodeJS.ProcessEnv = process.env): void {
    this.settings = settingsOf(request, env);
  }

  /** Check: every constraint of the spec, every failing field named; credentials come back secret. Sends nothing. */
  async check(urn: string, news: PropertyMap): Promise<CheckOutcome> {
    const { kind, spec } = kindOfUrn(urn);
    const { values, secretKeys } = unwrapProperties(news);
    const outcome = (await core()).check(kind, values);
    return { inputs: wrapSecrets(outcome.inputs, secretNames(spec, secretKeys)), failures: outcome.failures };
  }

  /** Diff: any change of a declared input is a replace, named on stderr (a changed secret shows as `[secret]`). */
  async diff(urn: string, id: string, olds: PropertyMap, news: PropertyMap): Promise<DiffOutcome> {
    const { kind } = kindOfUrn(urn);
    const shared = await core();
    return this.noticing(urn, (notify) => shared.diff(kind, id, unwrapProperties(olds).values, unwrapProperties(news).values, notify));
  }

  /**
   * Create: one POST, as the dynamic create does; outputs are the answer, the declared inputs and
   * `statusObservedAt`, the credentials secret. A preview sends nothing and leaves outputs unknown.
   * `signal` aborts when the answer can no longer reach the engine (its call cancelled, or its
   * deadline passed): before the POST, the create is not sent; after it, the created object's id
   * is told to the engine's log and to stderr ({@link unrecordedCreateNotice}), since no state
   * will record it.
   */
  async create(urn: string, news: PropertyMap, preview: boolean, signal?: AbortSignal): Promise<{ id: string; properties: PropertyMap }> {
    const { kind, spec } = kindOfUrn(urn);
    // The declared inputs only: a field the kind does not have (an `id`, say) never reaches the outputs.
    const { values, secretKeys } = unwrapProperties(declaredInputs(spec, news));
    const secrets = secretNames(spec, secretKeys);
    if (preview) {
      const pending = Object.fromEntries(
        [...outputNames(spec), STATUS_OBSERVED_AT].filter((name) => values[name] === undefined).map((name) => [name, UNKNOWN]),
      );
      return { id: "", properties: wrapSecrets({ ...pending, ...values }, secrets) };
    }
    if (this.cancelled) throw new Error(`The create of ${spec.typeName} "${urnName(urn)}" was not sent: the operation was cancelled.`);
    const shared = await core();
    if (signal?.aborted)
      throw new Error(
        `The create of ${spec.typeName} "${urnName(urn)}" was not sent: the engine stopped waiting for it (${String((signal.reason as Error).message)}).`,
      );
    // The process's one client is shared; this create's retries are told to this resource's log.
    const { id, outs } = await this.noticing(urn, (notify) => shared.create(kind, values, this.settings, notify)).catch((error: unknown) => {
      // The outputs the engine records for a partial create carry the credentials as secrets too.
      const failure =
        error instanceof PartialCreateError ? new PartialCreateError(error.message, error.id, wrapSecrets(error.outputs, secrets), error.reasons) : error;
      // An ambiguous create names an object that may exist: its words must reach the user although the call is over.
      if (signal?.aborted)
        return this.reportUnrecorded(urn, error instanceof Error ? error.message : String(error)).then(() => {
          throw failure;
        });
      throw failure;
    });
    // Told before the call settles when it is over already, so a plugin shutting down waits for the words.
    if (signal?.aborted) await this.reportUnrecorded(urn, unrecordedCreateNotice(kind, id, values));
    else signal?.addEventListener("abort", () => void this.reportUnrecorded(urn, unrecordedCreateNotice(kind, id, values)), { once: true });
    return { id, properties: wrapSecrets(outs, secrets) };
  }

  /**
   * Read: a refresh keeps the state as it is (the API has no read endpoint). An import (no state
   * and no inputs) fails with the words of the dynamic resources' `import` option.
   */
  read(urn: string, id: string, properties: PropertyMap, inputs: PropertyMap): { id: string; properties: PropertyMap; inputs: PropertyMap } {
    const { spec } = kindOfUrn(urn);
    if (Object.keys(properties).length === 0 && Object.keys(inputs).length === 0) {
      throw new ImportUnsupportedError(importUnsupportedMessage(spec, urnName(urn)));
    }
    return { id, properties, inputs };
  }

  /** Tells the engine's log (under the resource) and stderr about an object no state will record. */
  private async reportUnrecorded(urn: string, message: string): Promise<void> {
    const logged = this.log("warning", message, urn);
    if (this.log !== notifyOnStderr) void notifyOnStderr("warning", message);
    await logged;
  }

  /**
   * Update: asked only after a partial create, since every declared change replaces: the engine
   * keeps such an object with its init errors and sends an update on the next `pulumi up`. Nothing
   * is sent to the service; the recorded outputs come back as they are, which clears the errors.
   */
  update(urn: string, olds: PropertyMap): { properties: PropertyMap } {
    kindOfUrn(urn);
    return { properties: olds };
  }

  /** Delete: the object stays in the service; the same warning as the dynamic providers. */
  async delete(urn: string, id: string, properties: PropertyMap): Promise<void> {
    const { kind } = kindOfUrn(urn);
    const shared = await core();
    await this.noticing(urn, (notify) => shared.remove(kind, id, unwrapProperties(properties).values, notify));
  }

  /** Cancel: creates not yet sent are refused from now on, and the engine's log says so. */
  cancel(): void {
    this.cancelled = true;
    void this.log("info", CANCELLED_NOTICE);
  }

  /** GetSchema: the package schema. */
  async schema(): Promise<string> {
    return schemaText();
  }
}
