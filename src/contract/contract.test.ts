import { describe, expect, it } from "vitest";
import {
  DATA_SOURCE_REQUEST_FIELDS,
  DATA_SOURCE_RESPONSE_FIELDS,
  SECRET_DATA_SOURCE_FIELDS,
  createDataSourceRequest,
  createOrganizationRequest,
  dataSource,
  formatFieldErrors,
  validate,
} from ".";

describe("field lists", () => {
  it("the zod-free response field list is the schema's, in order", () => {
    expect([...DATA_SOURCE_RESPONSE_FIELDS]).toEqual(Object.keys(dataSource.shape));
  });

  it("every secret is a request field and never a response field", () => {
    for (const field of SECRET_DATA_SOURCE_FIELDS) {
      expect(DATA_SOURCE_REQUEST_FIELDS).toContain(field);
      expect(DATA_SOURCE_RESPONSE_FIELDS as readonly string[]).not.toContain(field);
    }
  });
});

describe("createDataSourceRequest", () => {
  const base = { type: "direct", dialect: "POSTGRES", displayName: "d" };

  it("applies the spec's defaults", () => {
    expect(validate(createDataSourceRequest, base)).toEqual({ ok: true, value: { ...base, sslEnabled: true, sshEnabled: false } });
  });

  it.each([
    [{ port: 0 }, true],
    [{ port: 65535 }, true],
    [{ port: -1 }, false],
    [{ port: 65536 }, false],
    [{ port: 1.5 }, false],
    [{ port: "80" }, false],
    [{ sshPort: 65535 }, true],
    [{ sshPort: 65536 }, false],
    [{ databaseName: null }, true],
    [{ databaseName: "x" }, true],
    [{ databaseName: 1 }, false],
    [{ displayName: "" }, false],
  ])("%j valid=%s", (patch, ok) => {
    expect(validate(createDataSourceRequest, { ...base, ...patch }).ok).toBe(ok);
  });

  it("names every offending field in one detail", () => {
    const result = validate(createDataSourceRequest, { type: "x", dialect: "MYSQL", displayName: "", port: 70000, extra: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatFieldErrors(result.errors)).toBe(
      'type: must be "direct" (the only allowed value), got "x"; dialect: must be "POSTGRES" (the only allowed value), got "MYSQL"; ' +
        "displayName: must be at least 1 character long; port: must be an integer from 0 to 65535, got 70000; extra: is not a field of this request",
    );
  });

  it.each([null, [], "text", 3])("rejects a body that is not an object: %j", (body) => {
    expect(validate(createDataSourceRequest, body)).toEqual({ ok: false, errors: [{ field: "(body)", reason: expect.stringMatching(/must be a JSON object/) }] });
  });

  it("rejects __proto__ and constructor as unknown fields", () => {
    const result = validate(createDataSourceRequest, JSON.parse('{"type":"direct","dialect":"POSTGRES","displayName":"d","__proto__":{"polluted":1},"constructor":{}}'));
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: "__proto__", reason: "is not a field of this request" },
        { field: "constructor", reason: "is not a field of this request" },
      ],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("createOrganizationRequest", () => {
  it.each([
    [{ name: "Acme" }, true],
    [{ name: "" }, false],
    [{ name: "x".repeat(255) }, true],
    [{ name: "x".repeat(256) }, false],
    [{}, false],
  ])("%j valid=%s", (body, ok) => {
    expect(validate(createOrganizationRequest, body).ok).toBe(ok);
  });
});
