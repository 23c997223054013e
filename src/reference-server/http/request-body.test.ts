import { describe, expect, it } from "vitest";
import { isWireError, type WireError } from "./envelope";
import { MAX_JSON_DEPTH, checkJsonContentType, exceedsNestingDepth, parseJsonBody } from "./request-body";

describe("checkJsonContentType", () => {
  it.each(["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", "application/json ; charset=utf8"])(
    "accepts %j",
    (header) => {
      expect(checkJsonContentType(header)).toBeUndefined();
    },
  );

  it.each([undefined, "", "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "application/json; charset=latin1"])(
    "answers 415 to %j",
    (header) => {
      const error = checkJsonContentType(header);
      expect(isWireError(error)).toBe(true);
      expect(error).toMatchObject({ status: 415, title: "UnsupportedMediaType" });
    },
  );
});

function parseError(text: string | Buffer): WireError {
  try {
    parseJsonBody(typeof text === "string" ? Buffer.from(text) : text);
  } catch (err) {
    if (isWireError(err)) return err;
    throw err;
  }
  throw new Error("expected a parse error");
}

describe("parseJsonBody", () => {
  it("parses JSON and keeps __proto__ an own property without touching Object.prototype", () => {
    const value = parseJsonBody(Buffer.from('{"__proto__": {"polluted": true}, "a": 1}')) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(value, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it.each([
    ["empty", "", /empty/],
    ["blank", "  \n", /empty/],
    ["malformed", "{bad", /not valid JSON/],
    ["truncated", '{"a": ', /not valid JSON/],
  ])("answers 400 to a %s body", (_, text, detail) => {
    const error = parseError(text);
    expect(error).toMatchObject({ status: 400, title: "ValidationError" });
    expect(error.detail).toMatch(detail);
  });

  it("never quotes the body in the detail", () => {
    const error = parseError('{"password": "hunter2-very-secret" oops}');
    expect(error.detail).not.toContain("hunter2");
    expect(error.detail).toMatch(/at character \d+/);
  });

  it("accepts a UTF-8 byte order mark before the JSON, and multi-byte text", () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parseJsonBody(Buffer.concat([bom, Buffer.from('{"name": "Zürich 東京"}')]))).toEqual({ name: "Zürich 東京" });
  });

  it("rejects a BOM followed by nothing", () => {
    expect(parseError(Buffer.from([0xef, 0xbb, 0xbf])).detail).toMatch(/empty/);
  });

  it("rejects invalid UTF-8", () => {
    expect(parseError(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])).detail).toMatch(/UTF-8/);
  });

  it("rejects nesting deeper than the limit, counting only structural brackets", () => {
    expect(exceedsNestingDepth("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(exceedsNestingDepth("[".repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsNestingDepth(JSON.stringify({ a: "[".repeat(1000) + '\\"' }), 2)).toBe(false);
    expect(parseError("[".repeat(1000) + "]".repeat(1000)).detail).toMatch(/deeper than/);
    expect(parseError(`{"a":${"[".repeat(100_000)}`).status).toBe(400);
  });
});
