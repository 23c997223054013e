import { describe, expect, it } from "vitest";
import { BASE62_ALPHABET, REJECTION_THRESHOLD, base62FromBytes, newId, randomBase62 } from "./random";

describe("base62FromBytes", () => {
  it("keeps bytes below 248 as alphabet[byte % 62] and rejects 248..255", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const out = base62FromBytes(all);
    expect(REJECTION_THRESHOLD).toBe(248);
    expect(out).toHaveLength(248);
    // Every character appears exactly 4 times: the mapping is uniform.
    for (const char of BASE62_ALPHABET) expect(out.split(char).length - 1).toBe(4);
    expect(base62FromBytes(Uint8Array.from([248, 249, 250, 251, 252, 253, 254, 255]))).toBe("");
    expect(base62FromBytes(Uint8Array.from([0, 61, 62, 247]))).toBe("0z0" + BASE62_ALPHABET[247 % 62]);
  });
});

describe("randomBase62", () => {
  it.each([0, 1, 32, 1000])("returns exactly %i base62 characters", (length) => {
    const out = randomBase62(length);
    expect(out).toHaveLength(length);
    expect(out).toMatch(/^[0-9A-Za-z]*$/);
  });

  it("rejects negative and fractional lengths", () => {
    expect(() => randomBase62(-1)).toThrow(RangeError);
    expect(() => randomBase62(1.5)).toThrow(RangeError);
  });

  it("draws from the whole alphabet", () => {
    const seen = new Set(randomBase62(20_000));
    expect(seen.size).toBe(62);
  });

  it("ids carry their prefix and do not repeat", () => {
    const ids = new Set(Array.from({ length: 5000 }, () => newId("org")));
    expect(ids.size).toBe(5000);
    for (const id of ids) expect(id).toMatch(/^org_[0-9A-Za-z]{20}$/);
    // Pooled bytes still cover the whole alphabet, past many refills of the pool.
    expect(new Set([...ids].join("").replaceAll("org_", "")).size).toBe(62);
  });
});
