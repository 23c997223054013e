import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../client/errors";
import { requestTimeoutFromEnv, resolveSettings, settingsFromConfig } from "./settings";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("provider settings", () => {
  it("reads analytics:apiKey and analytics:baseUrl from provider config", () => {
    expect(settingsFromConfig(config({ "analytics:apiKey": "k", "analytics:baseUrl": "http://x" }))).toEqual({ apiKey: "k", baseUrl: "http://x" });
    expect(settingsFromConfig(config({}))).toEqual({});
  });

  it("prefers stack config, falls back to the environment", () => {
    const env = { ANALYTICS_API_KEY: "env-key", ANALYTICS_BASE_URL: "http://env" };
    expect(resolveSettings({ apiKey: "cfg-key" }, env)).toEqual({ apiKey: "cfg-key", baseUrl: "http://env" });
    expect(resolveSettings({}, env)).toEqual({ apiKey: "env-key", baseUrl: "http://env" });
  });

  it("names both ways to set a missing key or base URL, with the advice's code", () => {
    expect(() => resolveSettings({}, { ANALYTICS_BASE_URL: "http://x" })).toThrow(ConfigurationError);
    expect(() => resolveSettings({}, { ANALYTICS_BASE_URL: "http://x" })).toThrow(/pulumi config set --secret analytics:apiKey.*ANALYTICS_API_KEY/);
    expect(() => resolveSettings({}, { ANALYTICS_API_KEY: "k" })).toThrow(/analytics:baseUrl.*ANALYTICS_BASE_URL/);
    expect(() => resolveSettings({}, { ANALYTICS_API_KEY: "k" })).toThrow(
      expect.objectContaining({ advice: "base-url", summary: "No analytics base URL is set." }),
    );
  });
});

describe("request timeout from ANALYTICS_REQUEST_TIMEOUT_MS", () => {
  it("is unset by default and reads a positive whole number of ms", () => {
    expect(requestTimeoutFromEnv({})).toBeUndefined();
    expect(requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: " " })).toBeUndefined();
    expect(requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: "1500" })).toBe(1500);
  });

  it.each(["0", "-5", "1.5", "2s", "1e3"])("refuses %j with a configuration error naming the variable", (value) => {
    expect(() => requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: value })).toThrow(ConfigurationError);
    expect(() => requestTimeoutFromEnv({ ANALYTICS_REQUEST_TIMEOUT_MS: value })).toThrow(/ANALYTICS_REQUEST_TIMEOUT_MS must be a positive whole number/);
  });
});
