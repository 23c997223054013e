/**
 * The OpenAPI document: valid OpenAPI 3.1 by an independent validator, served at
 * GET /openapi.json without a key, printed by the CLI, and every response it documents is one
 * the server really gives (the harness checks each public answer of every server test against it).
 */
import * as http from "node:http";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import packageJson from "../../../package.json";
import { ORGANIZATIONS_PATH, SSO_JWT_PATH, dataSourcesPath } from "../../contract";
import { runCli } from "../cli";
import { FAULT_HEADER } from "./faults";
import { ERROR_ANSWERS, OPENAPI_PATH, buildOpenApiDocument } from "./openapi";
import { expectConformsToOpenApi } from "../../../test/support/openapi-conformance";
import { call, closeServersAfterEach, createOrg, start } from "../../../test/support/reference-server-harness";

closeServersAfterEach();

type Json = Record<string, any>;

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(buildOpenApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(buildOpenApiDocument().openapi).toBe("3.1.0");
  });

  it("carries the package's version", () => {
    expect((buildOpenApiDocument() as Json).info.version).toBe(packageJson.version);
  });

  it("takes request shapes from the contract: strict bodies, bounds, enums, credentials write-only", () => {
    const schemas = (buildOpenApiDocument() as Json).components.schemas;
    expect(schemas.CreateOrganizationRequest).toMatchObject({ required: ["name"], additionalProperties: false });
    expect(schemas.CreateOrganizationRequest.properties.name).toMatchObject({ type: "string", minLength: 1 });
    const ds = schemas.CreateDataSourceRequest;
    expect(ds.required).toEqual(["type", "dialect", "displayName"]);
    expect(ds.properties.port).toEqual({ type: "integer", minimum: 0, maximum: 65535 });
    expect(ds.properties.dialect.enum).toEqual(["POSTGRES"]);
    expect(ds.properties.sslEnabled.default).toBe(true);
    expect(ds.properties.password).toMatchObject({ type: "string", writeOnly: true });
    expect(schemas.DataSource.properties.password).toBeUndefined();
  });

  it("documents every error answer with its status and title, per operation", () => {
    const paths = (buildOpenApiDocument() as Json).paths;
    const statuses = (op: Json): string[] => Object.keys(op.responses);
    expect(statuses(paths[ORGANIZATIONS_PATH].post)).toEqual(["201", "400", "401", "403", "413", "415", "429", "431", "500", "502", "503", "504"]);
    expect(statuses(paths[`${ORGANIZATIONS_PATH}/{orgId}/data-sources`].post)).toContain("404");
    // Other methods answer 405, the standard answer to a method a path item does not list; the
    // single sign-on path, whose method the specification does not show, lists none.
    expect(Object.keys(paths[ORGANIZATIONS_PATH]).filter((key) => key !== "description")).toEqual(["post"]);
    expect(paths[SSO_JWT_PATH]).toEqual({ summary: expect.any(String), description: expect.stringContaining("501 NotImplemented") });
    const responses = (buildOpenApiDocument() as Json).components.responses;
    for (const [name, answer] of Object.entries(ERROR_ANSWERS)) {
      expect(responses[name].content["application/json"].schema.properties.error.properties.title).toEqual({ type: "string", const: answer.title });
    }
  });

  it("documents the optional fault header on every answer a fault can shape, and only there", () => {
    const document = buildOpenApiDocument() as Json;
    const post = document.paths[`${ORGANIZATIONS_PATH}/{orgId}/data-sources`].post;
    const carrying = Object.entries(post.responses as Json)
      .filter(([, entry]) => {
        const response = entry.$ref ? document.components.responses[(entry.$ref as string).split("/").pop()!] : entry;
        return response.headers?.[FAULT_HEADER] !== undefined && response.headers[FAULT_HEADER].required !== true;
      })
      .map(([status]) => status);
    expect(carrying).toEqual(["201", "400", "401", "404", "413", "415", "429", "500", "502", "503", "504"]);
    expect(document.components.responses.MethodNotAllowed.headers[FAULT_HEADER]).toBeUndefined();
    expect(document.components.responses.NotImplemented.headers[FAULT_HEADER]).toBeUndefined();
  });

  it("is served at GET /openapi.json without a key, outside the request log, and printed by the CLI", async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const served = (await res.json()) as Json;
    expect(served).toEqual(buildOpenApiDocument());
    const post = await call(server, "POST", OPENAPI_PATH, { body: {} });
    expect({ status: post.status, allow: post.headers.get("allow") }).toEqual({ status: 405, allow: "GET" });
    expect(server.inspect.requestCount()).toBe(0);

    const printed: string[] = [];
    const result = await runCli(["openapi"], { stdout: (t) => printed.push(t), stderr: (t) => printed.push(t) });
    expect(result).toEqual({ kind: "exit", code: 0 });
    expect(JSON.parse(printed.join(""))).toEqual(served);
  });

  it("flags an answer that departs from it", () => {
    const headers = new Headers();
    const wrongTitle = { error: { title: "NotFound", detail: "x" } };
    expect(() => expectConformsToOpenApi("POST", ORGANIZATIONS_PATH, 400, headers, wrongTitle)).toThrow(/body matches/);
    expect(() => expectConformsToOpenApi("POST", ORGANIZATIONS_PATH, 404, headers, wrongTitle)).toThrow(/documents status 404/);
    const missingField = { data: { id: "org_1", name: "A", slug: "a", customAiContext: null } };
    expect(() => expectConformsToOpenApi("POST", ORGANIZATIONS_PATH, 201, headers, missingField)).toThrow(/body matches/);
    const noRetryAfter = { error: { title: "RateLimited", detail: "x" } };
    expect(() => expectConformsToOpenApi("POST", ORGANIZATIONS_PATH, 429, headers, noRetryAfter)).toThrow(/Retry-After/);
    const notImplemented = { error: { title: "NotImplemented", detail: "x" } };
    const faulted = new Headers({ [FAULT_HEADER]: "latencyMs" });
    expect(() => expectConformsToOpenApi("POST", SSO_JWT_PATH, 501, faulted, notImplemented)).toThrow(/documents X-Reference-Fault/);
    expect(() => expectConformsToOpenApi("GET", SSO_JWT_PATH, 405, headers, notImplemented)).toThrow(/answers 501/);
    const notAllowed = { error: { title: "MethodNotAllowed", detail: "x" } };
    expect(() => expectConformsToOpenApi("GET", ORGANIZATIONS_PATH, 404, new Headers({ allow: "POST" }), notAllowed)).toThrow(/answers 405/);
    expect(() => expectConformsToOpenApi("GET", ORGANIZATIONS_PATH, 405, new Headers({ allow: "GET, POST" }), notAllowed)).toThrow(/Allow lists/);
    expect(() => expectConformsToOpenApi("GET", ORGANIZATIONS_PATH, 405, new Headers({ allow: "POST" }), notImplemented)).toThrow(/body matches/);
  });
});

/** POSTs to `path` naming another host (fetch cannot set `Host`), checks the answer against the document and returns its status. */
function refusedHost(port: number, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { host: "evil.example", authorization: `Bearer ${key}`, "content-type": "application/json" };
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path, headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => {
        const answerHeaders = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)] as [string, string]));
        expectConformsToOpenApi("POST", path, res.statusCode!, answerHeaders, JSON.parse(text));
        resolve(res.statusCode!);
      });
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("every documented response is one the server gives", () => {
  it("answers each status an operation documents, each conforming to the document", async () => {
    const { server } = await start({ maxBodyBytes: 64 });
    const key = server.apiKeys.alice!;
    const org = await createOrg(server, key);
    const seen = new Set<string>();
    const note = async (method: string, path: string, opts: Parameters<typeof call>[3], faults?: Parameters<typeof server.faults.set>[0]): Promise<void> => {
      if (faults) server.faults.set(faults);
      const reply = await call(server, method, path, opts);
      const template = path === ORGANIZATIONS_PATH || path === SSO_JWT_PATH ? path : `${ORGANIZATIONS_PATH}/{orgId}/data-sources`;
      seen.add(`${method.toLowerCase()} ${template} ${reply.status}`);
    };
    const small = { type: "direct", dialect: "POSTGRES", displayName: "W" };
    for (const path of [ORGANIZATIONS_PATH, dataSourcesPath(org.id)]) {
      const body = path === ORGANIZATIONS_PATH ? { name: "Acme" } : small;
      await note("POST", path, { key, body });
      await note("POST", path, { key, body: { nope: 1 } });
      await note("POST", path, { body });
      await note("POST", path, { key, raw: JSON.stringify({ ...body, pad: "x".repeat(100) }) });
      await note("POST", path, { key, body, contentType: "text/plain" });
      await note("POST", path, { key, body, headers: { "x-big": "y".repeat(20_000) } });
      seen.add(`post ${path === ORGANIZATIONS_PATH ? path : `${ORGANIZATIONS_PATH}/{orgId}/data-sources`} ${await refusedHost(server.port, path, key)}`);
      await note("POST", path, { key, body }, { rateLimitNext: 1 });
      for (const errorStatus of [500, 502, 503, 504] as const) await note("POST", path, { key, body }, { failNext: 1, errorStatus });
      for (const method of ["GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]) await note(method, path, { key });
    }
    await note("POST", dataSourcesPath("org_missing"), { key, body: small });
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]) await note(method, SSO_JWT_PATH, {});

    const documented = new Set<string>();
    for (const [template, item] of Object.entries((buildOpenApiDocument() as Json).paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (typeof (op as Json).responses !== "object") continue; // description, parameters
        for (const status of Object.keys((op as Json).responses)) documented.add(`${method} ${template} ${status}`);
      }
    }
    expect([...documented].filter((d) => !seen.has(d))).toEqual([]);
  });
});
