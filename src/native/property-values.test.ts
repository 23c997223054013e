import { describe, expect, it } from "vitest";
import { UNKNOWN as CHECK_UNKNOWN } from "../provider-core/inputs";
import { SECRET_SIG, SIG_KEY, UNKNOWN, asSecret, isSecret, unwrapProperties, wrapSecrets } from "./property-values";

const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

describe("property values", () => {
  it("uses the unknown marker checkInputs understands, and the SDK's secret signature", async () => {
    expect(UNKNOWN).toBe(CHECK_UNKNOWN);
    const rpc = (await import("@pulumi/pulumi/runtime/rpc")) as unknown as Record<string, string>;
    expect([rpc.unknownValue, rpc.specialSigKey, rpc.specialSecretSig]).toEqual([UNKNOWN, SIG_KEY, SECRET_SIG]);
  });

  it.each([
    ["plain values", { name: "Acme", port: 5432, ssl: true, db: null }, { name: "Acme", port: 5432, ssl: true, db: null }, []],
    ["a top-level secret", { password: secret("pw") }, { password: "pw" }, ["password"]],
    ["a secret unknown", { password: secret(UNKNOWN) }, { password: UNKNOWN }, ["password"]],
    ["an unknown", { orgId: UNKNOWN }, { orgId: UNKNOWN }, []],
    ["a secret inside a secret", { key: secret(secret("k")) }, { key: "k" }, ["key"]],
    [
      "secrets nested in objects and lists",
      { tags: [secret("a"), "b"], opts: { token: secret("t") } },
      { tags: ["a", "b"], opts: { token: "t" } },
      ["tags", "opts"],
    ],
  ])("unwraps %s, remembering the secret top-level keys", (_name, wire, plain, keys) => {
    const { values, secretKeys } = unwrapProperties(wire);
    expect(values).toEqual(plain);
    expect([...secretKeys].sort()).toEqual([...keys].sort());
  });

  it.each([
    ["a present field", { password: "pw", host: "h" }, ["password"], { password: secret("pw"), host: "h" }],
    ["an absent field (left out)", { host: "h" }, ["password"], { host: "h" }],
    ["an unknown field", { password: UNKNOWN }, ["password"], { password: secret(UNKNOWN) }],
    ["an already secret field (not twice)", { password: secret("pw") }, ["password"], { password: secret("pw") }],
    ["a null field", { sshPassword: null }, ["sshPassword"], { sshPassword: secret(null) }],
  ])("wraps %s", (_name, values, names, wire) => {
    expect(wrapSecrets(values, names)).toEqual(wire);
  });

  it("tells a secret from a plain object", () => {
    expect(isSecret(secret(1))).toBe(true);
    expect(isSecret({ value: 1 })).toBe(false);
    expect(isSecret(null)).toBe(false);
    expect(asSecret(asSecret("x"))).toEqual(secret("x"));
  });
});
