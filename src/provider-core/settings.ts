/** The provider's settings (API key, base URL, request timeout): from stack config or the environment. */
import { ConfigurationError } from "../client/errors";
import { configKey, providerConfigSpec, type ProviderSettingName } from "../kinds";
import { inPulumiWords } from "./pulumi-advice";

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
  if (!apiKey) throw new ConfigurationError("No analytics API key is set.", inPulumiWords("api-key"));
  if (!baseUrl) throw new ConfigurationError("No analytics base URL is set.", inPulumiWords("base-url"));
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
