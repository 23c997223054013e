import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { API_KEY_SECRET_LENGTH } from "../../contract";
import { assertKeyPrefix, authenticate, digestApiKey, generateApiKey, type ApiKeyRecord } from "./auth";

function ring(...keys: Array<[string, string]>): Map<string, ApiKeyRecord> {
  return new Map(keys.map(([key, userName]) => [digestApiKey(key), { digest: digestApiKey(key), userName, createdAt: "2024-01-01T00:00:00.000Z" }]));
}

describe("generateApiKey", () => {
  it("has the format <prefix>_key_<32 base62 characters>", () => {
    expect(API_KEY_SECRET_LENGTH).toBe(32);
    expect(generateApiKey("analytics")).toMatch(/^analytics_key_[0-9A-Za-z]{32}$/);
    expect(generateApiKey("acme-co")).toMatch(/^acme-co_key_[0-9A-Za-z]{32}$/);
  });

  it("never repeats", () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey("analytics")));
    expect(keys.size).toBe(2000);
  });

  it("refuses prefixes that would make keys ambiguous or unreadable", () => {
    for (const bad of ["", "has space", "-lead", "x".repeat(33), "ünï"]) expect(() => assertKeyPrefix(bad)).toThrow(RangeError);
    expect(() => generateApiKey("")).toThrow(RangeError);
  });
});

describe("digestApiKey", () => {
  it("is the lowercase hex SHA-256 of the key", () => {
    const key = generateApiKey("analytics");
    expect(digestApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
    expect(digestApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("authenticate", () => {
  const key = generateApiKey("analytics");
  const keys = ring([key, "alice"]);
  const secret = key.slice("analytics_key_".length);

  it("accepts a known key with the Bearer scheme (scheme case-insensitive)", () => {
    expect(authenticate(`Bearer ${key}`, "analytics", keys)).toEqual({ ok: true, userName: "alice" });
    expect(authenticate(`bearer ${key}`, "analytics", keys)).toEqual({ ok: true, userName: "alice" });
    expect(authenticate(`  Bearer   ${key}  `, "analytics", keys)).toEqual({ ok: true, userName: "alice" });
  });

  it.each([
    ["missing header", undefined, /Missing API key/],
    ["empty header", "", /Missing API key/],
    ["Basic scheme", `Basic ${Buffer.from(`alice:${key}`).toString("base64")}`, /Bearer scheme/],
    ["key without scheme", key, /Bearer scheme/],
    ["Bearer without key", "Bearer", /malformed/],
    ["Bearer and a space without key", "Bearer ", /malformed/],
    ["Bearer and a tab-separated second token", `Bearer ${key}\t${key}`, /malformed/],
    ["two tokens", `Bearer ${key} ${key}`, /malformed/],
    ["wrong prefix", `Bearer other_key_${secret}`, /malformed/],
    ["no _key_ infix", `Bearer analytics_${secret}`, /malformed/],
    ["31-character secret", `Bearer analytics_key_${secret.slice(1)}`, /malformed/],
    ["33-character secret", `Bearer analytics_key_${secret}A`, /malformed/],
    ["non-base62 character", `Bearer analytics_key_${secret.slice(1)}!`, /malformed/],
    ["unknown well-formed key", `Bearer ${generateApiKey("analytics")}`, /not valid/],
    ["known key with one character changed", `Bearer analytics_key_${secret.slice(0, -1)}${secret.endsWith("a") ? "b" : "a"}`, /not valid/],
  ])("rejects %s without echoing the key", (_, header, detail) => {
    const result = authenticate(header, "analytics", keys);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.detail).toMatch(detail);
    expect(result.detail).not.toContain(secret.slice(0, 8));
    if (header) for (const token of header.split(/\s+/)) if (token.length > 8) expect(result.detail).not.toContain(token);
  });

  it("never accepts anything but a stored key, and never repeats what it was sent", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.constantFrom("", "Bearer ", "bearer ", "Basic "), (token, scheme) => {
        const header = `${scheme}${token}`;
        const result = authenticate(header, "analytics", keys);
        if (result.ok) {
          expect(token.trim()).toBe(key);
        } else if (token.trim().length >= 6) {
          expect(result.detail).not.toContain(token.trim());
        }
      }),
    );
  });
});
