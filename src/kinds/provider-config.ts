/** The provider's own settings: what every kind's requests need, set per stack or per explicit provider. */
import { PULUMI_MODULE } from "./spec";

/** One provider setting. */
export interface ProviderSettingSpec {
  /** JSON type of the value. */
  readonly type: "string";
  /** A credential: kept as a Pulumi secret, never shown. */
  readonly secret?: true;
  /** Environment variable read when the stack config does not set it. */
  readonly env: string;
}

/** The provider's settings, by name: `analytics:<name>` in stack config, `<name>` on an explicit provider. */
export const providerConfigSpec = {
  /** API key of the analytics service (a secret, needed only to create); falls back to `ANALYTICS_API_KEY`. */
  apiKey: { type: "string", secret: true, env: "ANALYTICS_API_KEY" },
  /** Base URL of the analytics service, `http(s)://host[:port][/prefix]`; falls back to `ANALYTICS_BASE_URL`. */
  baseUrl: { type: "string", env: "ANALYTICS_BASE_URL" },
} as const satisfies Readonly<Record<string, ProviderSettingSpec>>;

/** A provider setting's name. */
export type ProviderSettingName = keyof typeof providerConfigSpec;

/** The stack config key of a setting, e.g. `analytics:apiKey`. */
export function configKey(name: ProviderSettingName): string {
  return `${PULUMI_MODULE}:${name}`;
}
