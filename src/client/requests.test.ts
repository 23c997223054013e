import { describe, expect, it } from "vitest";
import { AmbiguousCreateError, ApiError, ConfigurationError, ConnectionError, ResponseFormatError, UnauthorizedError } from "./errors";
import { buildPost, errorFromResponse, errorFromTransport, normalizeBaseUrl, parseSuccess, postHeaders } from "./requests";
import { TransportFailure, classifyFailure, type HttpResponse } from "./transport";
import { organization } from "../contract";

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
    [json(400, { error: { title: "ValidationError", detail: "name: is required" } }), ApiError, "ANALYTICS_API_ERROR", /^ValidationError: name: is required \(HTTP 400\)$/],
    [json(401, { error: { title: "Unauthorized", detail: "invalid key" } }), UnauthorizedError, "ANALYTICS_UNAUTHORIZED", /Unauthorized: invalid key \(HTTP 401\).*Pass the key as the client's `apiKey` option/],
    [json(404, { error: { title: "NotFound", detail: "no such organization" } }), ApiError, "ANALYTICS_API_ERROR", /NotFound: no such organization \(HTTP 404\)/],
    [json(500, { error: { title: "InternalError", detail: "oops" } }), AmbiguousCreateError, "ANALYTICS_AMBIGUOUS_CREATE", /InternalError: oops \(HTTP 500\)\. The organization "Acme" may or may not have been created/],
    [json(502, { error: { title: "BadGateway", detail: "upstream" } }), AmbiguousCreateError, "ANALYTICS_AMBIGUOUS_CREATE", /may or may not have been created/],
    [json(504, {}), AmbiguousCreateError, "ANALYTICS_AMBIGUOUS_CREATE", /HTTP 504.*organization "Acme" may or may not/],
    [json(429, { error: { title: "RateLimited", detail: "slow down" } }, { "retry-after": "3" }), ApiError, "ANALYTICS_API_ERROR", /RateLimited.*HTTP 429.*Nothing was created.*3 s/],
    [
      { status: 502, headers: { "content-type": "text/html" }, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" },
      AmbiguousCreateError,
      "ANALYTICS_AMBIGUOUS_CREATE",
      /HTTP 502: the response was not the API's JSON error envelope \(text\/html\): "502 Bad Gateway"/,
    ],
    [{ status: 403, headers: {}, body: "" }, ApiError, "ANALYTICS_API_ERROR", /HTTP 403: .*no content type\), and empty/],
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
  it("returns data matching the contract", () => {
    const org = { id: "org_1", name: "Acme", slug: "acme", customAiContext: null, onboardingStatus: "STARTED" };
    expect(parseSuccess(json(201, { data: org }), organization, context)).toEqual(org);
  });

  it.each([
    [{ status: 201, headers: {}, body: "<html>ok</html>" }, /not JSON/],
    [json(201, { data: { id: "org_1" } }), /data: name: is required; slug: is required/],
    [json(201, { data: { id: "org_1", name: "A", slug: 7, customAiContext: null, onboardingStatus: "" } }), /data: slug: must be a string, got 7\)/],
    [json(201, { ok: true }), /data: \(body\): must be a JSON object, got undefined/],
  ])("rejects a body off the contract: %j", (response, message) => {
    expect(() => parseSuccess(response, organization, context)).toThrow(ResponseFormatError);
    expect(() => parseSuccess(response, organization, context)).toThrow(message);
  });
});
