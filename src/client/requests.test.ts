import { describe, expect, it } from "vitest";
import { AmbiguousCreateError, ApiError, ConfigurationError, ConnectionError, UnauthorizedError, UntrackedCreateError } from "./errors";
import { buildPost, errorFromResponse, errorFromTransport, errorWords, normalizeBaseUrl, parseSuccess, postHeaders } from "./requests";
import { TransportFailure, classifyFailure, type HttpResponse } from "./transport";
import { organizationSpec } from "../kinds";

const context = { object: 'organization "Acme"', creates: true, baseUrl: "http://api.test" };
const json = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("normalizeBaseUrl", () => {
  it.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["https://analytics.example.com/", "https://analytics.example.com"],
    ["https://example.com/tenant//", "https://example.com/tenant"],
  ])("%s -> %s", (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it.each(["not a url", "ftp://example.com", "https://example.com/?a=1"])("rejects %j naming how to set it", (input) => {
    expect(() => normalizeBaseUrl(input)).toThrow(ConfigurationError);
    expect(() => normalizeBaseUrl(input)).toThrow(/Pass it as the client's `baseUrl` option/);
  });
});

describe("buildPost", () => {
  it("sends JSON with the bearer key", () => {
    expect(buildPost("http://api.test/api/public/organizations", postHeaders("k", "ua"), { name: "Acme" })).toEqual({
      method: "POST",
      url: "http://api.test/api/public/organizations",
      headers: { authorization: "Bearer k", "content-type": "application/json", accept: "application/json", "user-agent": "ua" },
      body: '{"name":"Acme"}',
    });
  });

  it("gives each request its own headers, so a transport changing them changes no other request", () => {
    const headers = postHeaders("k", "ua");
    const first = buildPost("http://api.test/a", headers, {});
    first.headers["x-trace"] = "1";
    expect(buildPost("http://api.test/a", headers, {}).headers).toEqual(postHeaders("k", "ua"));
  });
});

describe("errorFromResponse", () => {
  it.each([
    [
      json(400, { error: { title: "ValidationError", detail: "name: is required" } }),
      ApiError,
      "ANALYTICS_API_ERROR",
      /^ValidationError: name: is required \(HTTP 400\)$/,
    ],
    [
      json(401, { error: { title: "Unauthorized", detail: "invalid key" } }),
      UnauthorizedError,
      "ANALYTICS_UNAUTHORIZED",
      /Unauthorized: invalid key \(HTTP 401\).*Pass the key as the client's `apiKey` option/,
    ],
    [
      json(404, { error: { title: "NotFound", detail: "no such organization" } }),
      ApiError,
      "ANALYTICS_API_ERROR",
      /NotFound: no such organization \(HTTP 404\)/,
    ],
    [
      json(500, { error: { title: "InternalError", detail: "oops" } }),
      AmbiguousCreateError,
      "ANALYTICS_AMBIGUOUS_CREATE",
      /InternalError: oops \(HTTP 500\)\. The organization "Acme" may or may not have been created/,
    ],
    [json(502, { error: { title: "BadGateway", detail: "upstream" } }), AmbiguousCreateError, "ANALYTICS_AMBIGUOUS_CREATE", /may or may not have been created/],
    [json(504, {}), AmbiguousCreateError, "ANALYTICS_AMBIGUOUS_CREATE", /HTTP 504.*organization "Acme" may or may not/],
    [
      json(429, { error: { title: "RateLimited", detail: "slow down" } }, { "retry-after": "3" }),
      ApiError,
      "ANALYTICS_API_ERROR",
      /RateLimited.*HTTP 429.*Nothing was created.*3 s/,
    ],
    [
      { status: 502, headers: { "content-type": "text/html" }, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" },
      AmbiguousCreateError,
      "ANALYTICS_AMBIGUOUS_CREATE",
      /HTTP 502: the response was not the API's JSON error envelope \(text\/html\): "502 Bad Gateway"/,
    ],
    [{ status: 403, headers: {}, body: "" }, ApiError, "ANALYTICS_API_ERROR", /HTTP 403: .*no content type\), and empty/],
    [
      json(503, { error: { title: "ServiceUnavailable", detail: "later" } }, { "retry-after": "1.5" }),
      ApiError,
      "ANALYTICS_API_ERROR",
      /retries were used up \(the server asked to wait 2 s\)\. Try again later\.$/,
    ],
    [
      json(503, { error: { title: "ServiceUnavailable", detail: "later" } }, { "retry-after": "soon" }),
      ApiError,
      "ANALYTICS_API_ERROR",
      /retries were used up\. Try again later\.$/,
    ],
  ])("maps %j", (response, type, code, message) => {
    const error = errorFromResponse(response, context);
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.name).toBe("AnalyticsError");
    expect(error.message).toMatch(message);
  });

  it("keeps status, title and detail on API errors", () => {
    const error = errorFromResponse(json(404, { error: { title: "NotFound", detail: "x" } }), context) as ApiError;
    expect([error.status, error.title, error.detail]).toEqual([404, "NotFound", "x"]);
  });

  it("does not call a failed non-create ambiguous", () => {
    expect(errorFromResponse(json(502, {}), { ...context, creates: false })).not.toBeInstanceOf(AmbiguousCreateError);
  });
});

describe("errorFromTransport", () => {
  it("says nothing was created when the request never left", () => {
    const error = errorFromTransport(new TransportFailure(false, "ECONNREFUSED", "connect ECONNREFUSED"), context, 4);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/after 4 attempts; the organization "Acme" was not created/);
  });

  it("warns that the object may exist when the request may have arrived", () => {
    const error = errorFromTransport(new TransportFailure(true, "UND_ERR_SOCKET", "other side closed"), context, 1);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.message).toMatch(/UND_ERR_SOCKET.*may or may not have been created.*Check the service/);
  });
});

describe("classifyFailure", () => {
  it.each([
    [{ code: "ECONNREFUSED" }, false],
    [{ code: "ENOTFOUND" }, false],
    [{ code: "UND_ERR_CONNECT_TIMEOUT" }, false],
    [{ code: "ERR_TLS_HANDSHAKE_TIMEOUT" }, false],
    [new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }), false],
    [{ code: "ECONNRESET" }, true],
    [{ code: "UND_ERR_SOCKET" }, true],
    [{ code: "UND_ERR_HEADERS_TIMEOUT" }, true],
    [{ name: "TimeoutError" }, true],
    [new Error("mystery"), true],
  ])("%j sent=%s", (error, sent) => {
    expect(classifyFailure(error).sent).toBe(sent);
  });
});

describe("parseSuccess", () => {
  it("returns the answer's values, and no difference, for an answer as the spec has it", () => {
    const org = { id: "org_1", name: "Acme", slug: "acme", customAiContext: null, onboardingStatus: "STARTED" };
    expect(parseSuccess(json(201, { data: org }), organizationSpec, context)).toEqual({ id: "org_1", values: org, differences: [] });
  });

  it("reads an answer off the spec tolerantly: the id is what must be there", () => {
    const reading = parseSuccess(
      json(200, { data: { id: 42, name: "A", slug: 7, onboardingStatus: "NEW_VALUE", extra: { a: 1 } } }),
      organizationSpec,
      context,
    );
    expect(reading.values).toEqual({ id: "42", name: "A", slug: "7", customAiContext: null, onboardingStatus: "NEW_VALUE", extra: { a: 1 } });
    expect(reading.differences.map((d) => [d.field, d.received, d.lossless])).toEqual([
      ["id", "a number", true],
      ["slug", "a number", true],
      ["customAiContext", "absent", true],
    ]);
  });

  it.each([
    [{ status: 201, headers: {}, body: "" }, "the body is empty"],
    [{ status: 201, headers: {}, body: "<html>ok</html>" }, "the body is not JSON"],
    [json(201, ["org_1"]), "the body is not a JSON object"],
    [json(201, { ok: true }), "the body has no data"],
    [json(201, { data: "org_1" }), "data is a string, not an object"],
    [json(201, { data: { name: "Acme" } }), "data has no id"],
    [json(201, { data: { id: "" } }), "data.id is an empty string"],
    [json(201, { data: { id: { value: 1 } } }), "data.id is an object"],
    [json(201, { data: { id: 2 ** 60 } }), "data.id is a number that cannot be read exactly"],
  ])("says an answer without a usable id is an object that probably exists and cannot be tracked: %j", (response, why) => {
    const error = (() => {
      try {
        return parseSuccess(response, organizationSpec, context);
      } catch (caught) {
        return caught;
      }
    })() as UntrackedCreateError;
    expect(error).toBeInstanceOf(UntrackedCreateError);
    expect(error.code).toBe("ANALYTICS_UNTRACKED_CREATE");
    expect(error.message).toContain(
      `The API answered ${response.status} for the organization "Acme", so it was probably created, but the answer carries no usable id (${why}`,
    );
    expect(error.message).toMatch(/Check the service for it before sending the create again/);
    expect(error.message).not.toMatch(/contract|format/i);
  });
});

describe("errorWords", () => {
  it.each([
    [json(409, { error: { title: "Conflict", detail: "taken" } }), { title: "Conflict", detail: "taken" }],
    [json(409, { error: { title: "Conflict" } }), { title: "Conflict", detail: expect.stringMatching(/^the response was not the API's JSON error envelope/) }],
    [json(422, { error: { detail: "bad", title: 7 } }), { title: "HTTP 422", detail: "bad" }],
    [
      { status: 403, headers: { "content-type": "text/html" }, body: "<h1>Forbidden</h1>" },
      { title: "HTTP 403", detail: 'the response was not the API\'s JSON error envelope (text/html): "Forbidden"' },
    ],
  ])("reads what an error answer carries, filling in what is missing: %j", (response, words) => {
    expect(errorWords(response)).toEqual(words);
  });
});
