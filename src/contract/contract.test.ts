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
        "displayName: must be at least 1 character long, got an empty string; port: must be an integer from 0 to 65535, got 70000; extra: is not a field of this request",
    );
  });

  it.each([null, [], "text", 3])("rejects a body that is not an object: %j", (body) => {
    expect(validate(createDataSourceRequest, body)).toEqual({
      ok: false,
      errors: [{ field: "(body)", reason: expect.stringMatching(/must be a JSON object/) }],
    });
  });

  it("rejects __proto__ and constructor as unknown fields", () => {
    const result = validate(
      createDataSourceRequest,
      JSON.parse('{"type":"direct","dialect":"POSTGRES","displayName":"d","__proto__":{"polluted":1},"constructor":{}}'),
    );
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
    // The specification states no length limit; the reference server's own one is not the contract's.
    [{ name: "x".repeat(300) }, true],
    [{}, false],
  ])("%j valid=%s", (body, ok) => {
    expect(validate(createOrganizationRequest, body).ok).toBe(ok);
  });
});

describe("every reason says what was given", () => {
  const base = { type: "direct", dialect: "POSTGRES", displayName: "d" };

  it.each([
    [{ displayName: "" }, "displayName", "must be at least 1 character long, got an empty string"],
    [{ displayName: 7 }, "displayName", "must be a string, got 7"],
    [{ displayName: null }, "displayName", "must be a string, got null"],
    [{ host: "" }, "host", undefined],
    [{ host: ["a"] }, "host", "must be a string, got an array"],
    [{ port: -1 }, "port", "must be an integer from 0 to 65535, got -1"],
    [{ port: "5432" }, "port", 'must be an integer from 0 to 65535, got "5432"'],
    [{ sslEnabled: "yes" }, "sslEnabled", 'must be a boolean (true or false), got "yes"'],
    [{ databaseName: 1 }, "databaseName", "must be a string or null, got 1"],
    [{ type: "" }, "type", 'must be "direct" (the only allowed value), got an empty string'],
    [{ dialect: "x".repeat(50) }, "dialect", 'must be "POSTGRES" (the only allowed value), got a 50-character string'],
  ])("%j: %s", (patch, field, reason) => {
    const result = validate(createDataSourceRequest, { ...base, ...patch });
    if (reason === undefined) return expect(result.ok).toBe(true);
    expect(result).toEqual({ ok: false, errors: [{ field, reason }] });
  });

  it.each([
    [{ name: "" }, "must be at least 1 character long, got an empty string"],
    [{ name: false }, "must be a string, got false"],
    [{}, "is required"],
  ])("organization %j: %s", (body, reason) => {
    expect(validate(createOrganizationRequest, body)).toEqual({ ok: false, errors: [{ field: "name", reason }] });
  });

  it.each(
    SECRET_DATA_SOURCE_FIELDS.flatMap((field) => [
      [field, 987654321, "must be a string, got a number"],
      [field, true, "must be a string, got a boolean"],
      [field, ["hunter2-secret"], "must be a string, got an array"],
      [field, { key: "hunter2-secret" }, "must be a string, got an object"],
    ]),
  )("secret %s=%j is described, never quoted", (field, value, reason) => {
    const result = validate(createDataSourceRequest, { ...base, [field]: value });
    expect(result).toEqual({ ok: false, errors: [{ field, reason }] });
    expect(JSON.stringify(result)).not.toMatch(/987654321|hunter2/);
  });
});
