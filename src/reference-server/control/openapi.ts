/**
 * The OpenAPI 3.1 document of the public API, generated from the contract's zod schemas, so
 * the document changes whenever a request or response shape does.
 */
import type { ServerResponse } from "node:http";
import type { z } from "zod";
import { requestSchema, responseSchema } from "../../contract/schemas";
import { SSO_JWT_PATH, type ErrorTitle } from "../../contract/wire";
import { createOperationId, dataSourceSpec, organizationSpec, secretFieldNames } from "../../kinds";
import { zod } from "../../lazy-zod";
// The package version compiled in with the package schema, as the plugin reports it: a bundle has no package.json to read.
import { schemaVersion } from "../../native/package-schema";
import { JSON_CONTENT_TYPE, unmatchedRoute } from "../http/envelope";
import { FAULT_HEADER } from "./faults";

/** Where the server serves the document: public, no key needed. */
export const OPENAPI_PATH = "/openapi.json";

/** An error answer the server gives: status, `error.title`, when, and the headers it carries. */
export interface ErrorAnswer {
  /** HTTP status. */
  status: number;
  /** `error.title` of the body. */
  title: ErrorTitle;
  /** When the server gives it. */
  when: string;
  /** Headers it always carries. */
  headers: readonly HeaderName[];
  /** Headers it carries in some cases only. */
  optional?: readonly HeaderName[];
}

type HeaderName = "Retry-After" | "WWW-Authenticate" | "Allow" | "Connection" | typeof FAULT_HEADER;

/** Every error answer of the public API, by the name its component has in the document. */
export const ERROR_ANSWERS = {
  ValidationError: {
    status: 400,
    title: "ValidationError",
    when: "The body breaks the contract (every offending field is named), is not JSON, not an object, or too deep.",
    headers: [],
    optional: [FAULT_HEADER],
  },
  Unauthorized: { status: 401, title: "Unauthorized", when: "Missing, malformed or unknown API key.", headers: ["WWW-Authenticate"], optional: [FAULT_HEADER] },
  HostRefused: {
    status: 403,
    title: "Forbidden",
    when: "The Host header names none of the server's names (localhost, *.localhost, an IP address, the --host name, the names of --allowed-host or ANALYTICS_ALLOWED_HOSTS): the guard against DNS rebinding. Checked before anything else.",
    headers: ["Connection"],
  },
  NotFound: {
    status: 404,
    title: "NotFound",
    when: "The organization does not exist or belongs to another user (identical answers).",
    headers: [],
    optional: [FAULT_HEADER],
  },
  MethodNotAllowed: { status: 405, title: "MethodNotAllowed", when: "The path exists but not with this method.", headers: ["Allow"] },
  PayloadTooLarge: {
    status: 413,
    title: "PayloadTooLarge",
    when: "The body is over the size limit (1 MiB by default).",
    headers: [],
    optional: ["Connection", FAULT_HEADER],
  },
  HeadersTooLarge: { status: 431, title: "PayloadTooLarge", when: "The request headers are too large.", headers: [], optional: ["Connection"] },
  UnsupportedMediaType: {
    status: 415,
    title: "UnsupportedMediaType",
    when: "The body is not declared as application/json (UTF-8).",
    headers: [],
    optional: [FAULT_HEADER],
  },
  RateLimited: { status: 429, title: "RateLimited", when: "Injected fault only.", headers: ["Retry-After"], optional: [FAULT_HEADER] },
  InternalError: {
    status: 500,
    title: "InternalError",
    when: "Unexpected failure, or an injected fault. The detail discloses nothing.",
    headers: [],
    optional: [FAULT_HEADER],
  },
  NotImplemented: {
    status: 501,
    title: "NotImplemented",
    when: "The single sign-on endpoint, whose method and payload the specification does not show.",
    headers: [],
  },
  BadGateway: { status: 502, title: "ServiceUnavailable", when: "Injected fault only.", headers: [], optional: [FAULT_HEADER] },
  ServiceUnavailable: { status: 503, title: "ServiceUnavailable", when: "Injected fault only.", headers: ["Retry-After"], optional: [FAULT_HEADER] },
  GatewayTimeout: { status: 504, title: "ServiceUnavailable", when: "Injected fault only.", headers: [], optional: [FAULT_HEADER] },
} as const satisfies Record<string, ErrorAnswer>;

type ErrorAnswerName = keyof typeof ERROR_ANSWERS;

/** Error answers every create can give. */
const CREATE_ERRORS: readonly ErrorAnswerName[] = [
  "ValidationError",
  "Unauthorized",
  "HostRefused",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "HeadersTooLarge",
  "RateLimited",
  "InternalError",
  "BadGateway",
  "ServiceUnavailable",
  "GatewayTimeout",
];

const HEADERS: Record<HeaderName, { description: string; schema: object }> = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string", pattern: "^[0-9]+$" } },
  "WWW-Authenticate": { description: 'Always `Bearer realm="api"`.', schema: { type: "string" } },
  Allow: { description: "The methods the path accepts.", schema: { type: "string" } },
  Connection: { description: "`close`: the server closes the connection after answering.", schema: { type: "string" } },
  [FAULT_HEADER]: {
    description:
      "Present only when an injected fault shaped the answer (the reference server's fault injection): the rules that fired, " +
      "in order, each as its path in the fault settings (`latencyMs`, `failNext`, `routes.createDataSource.failNext`, …), joined by `, `.",
    schema: { type: "string" },
  },
};

/** JSON Schema 2020-12 of a zod schema, without `$schema` (the document's dialect applies). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = zod().toJSONSchema(schema, { io, unrepresentable: "throw" }) as Record<string, unknown>;
  return rest;
}

/** The create-data-source body, its credential fields marked write-only. */
function dataSourceRequestSchema(): Record<string, unknown> {
  const schema = jsonSchema(requestSchema(dataSourceSpec), "input");
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  for (const field of secretFieldNames(dataSourceSpec)) properties[field] = { ...properties[field], writeOnly: true, format: "password" };
  return schema;
}

function errorSchema(title: ErrorTitle): Record<string, unknown> {
  const z = zod();
  return jsonSchema(z.strictObject({ error: z.strictObject({ title: z.literal(title), detail: z.string() }) }), "output");
}

function successSchema(data: z.ZodType): Record<string, unknown> {
  return jsonSchema(zod().strictObject({ data }), "output");
}

const ref = (kind: "schemas" | "responses", name: string): { $ref: string } => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: object): object => ({ "application/json": { schema } });

function components(): object {
  const responses: Record<string, object> = {};
  for (const [name, answer] of Object.entries(ERROR_ANSWERS)) {
    const always = answer.headers.map((h) => [h, { ...HEADERS[h], required: true }]);
    const optional = ("optional" in answer ? answer.optional : []).map((h) => [h, HEADERS[h]]);
    const headers = Object.fromEntries([...always, ...optional]);
    responses[name] = { description: `${answer.title}: ${answer.when}`, headers, content: json(errorSchema(answer.title)) };
  }
  return {
    securitySchemes: {
      apiKey: { type: "http", scheme: "bearer", description: "An API key `analytics_key_<32 characters from [0-9A-Za-z]>`." },
    },
    schemas: {
      CreateOrganizationRequest: jsonSchema(requestSchema(organizationSpec), "input"),
      CreateDataSourceRequest: dataSourceRequestSchema(),
      Organization: jsonSchema(responseSchema(organizationSpec.outputs), "output"),
      DataSource: jsonSchema(responseSchema(dataSourceSpec.outputs), "output"),
      OrganizationResponse: successSchema(responseSchema(organizationSpec.outputs)),
      DataSourceResponse: successSchema(responseSchema(dataSourceSpec.outputs)),
    },
    responses,
  };
}

function errorRefs(names: readonly ErrorAnswerName[]): Record<string, object> {
  return Object.fromEntries(names.map((name) => [String(ERROR_ANSWERS[name].status), ref("responses", name)]));
}

function create(operationId: string, summary: string, body: string, created: string, extraErrors: ErrorAnswerName[]): object {
  return {
    operationId,
    summary,
    security: [{ apiKey: [] }],
    requestBody: { required: true, content: json(ref("schemas", body)) },
    responses: {
      "201": { description: "Created.", headers: { [FAULT_HEADER]: HEADERS[FAULT_HEADER] }, content: json(ref("schemas", created)) },
      ...errorRefs([...CREATE_ERRORS, ...extraErrors].sort((a, b) => ERROR_ANSWERS[a].status - ERROR_ANSWERS[b].status)),
    },
  };
}

/**
 * The path item of a create endpoint: its POST only. Every other method answers 405 with `Allow:
 * POST`, the standard answer to a method a path item does not list, so the document lists no
 * operation for them: an operation is something a client may call successfully.
 */
function createPath(post: object, parameters: object[] = []): object {
  const description = `Every other method answers ${ERROR_ANSWERS.MethodNotAllowed.status} MethodNotAllowed (components.responses.MethodNotAllowed) with \`Allow: POST\`.`;
  return parameters.length ? { description, parameters, post } : { description, post };
}

/** The single sign-on path: the specification shows no method, so the document shows no operation. */
const SSO_PATH_ITEM = {
  summary: "Single sign-on for embedding",
  description:
    "The specification names this path but shows no method, payload or response, so no operation is documented. " +
    `The reference server answers every method with ${ERROR_ANSWERS.NotImplemented.status} NotImplemented (components.responses.NotImplemented).`,
};

/** Builds the OpenAPI 3.1 document of the public API from the contract. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Analytics public API (reference server)",
      version: schemaVersion(),
      description:
        "The public API as the reference server implements it. Every answer is `{ data }` or `{ error: { title, detail } }` " +
        "with `Content-Type: application/json; charset=utf-8`; an unknown path answers 404 NotFound.",
    },
    paths: {
      [organizationSpec.endpoint.pattern]: createPath(
        create(createOperationId(organizationSpec), "Create an organization", "CreateOrganizationRequest", "OrganizationResponse", []),
      ),
      [dataSourceSpec.endpoint.pattern]: createPath(
        create(createOperationId(dataSourceSpec), "Create a data source in an organization", "CreateDataSourceRequest", "DataSourceResponse", ["NotFound"]),
        [{ name: "orgId", in: "path", required: true, schema: { type: "string" } }],
      ),
      [SSO_JWT_PATH]: SSO_PATH_ITEM,
    },
    components: components(),
  };
}

let cached: string | undefined;

/** The document as served: built once, on first use. */
export function openApiJson(): string {
  cached ??= `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
  return cached;
}

/** Answers `GET /openapi.json` with the document itself (no envelope: tools read it as it is); other methods get 405. */
export async function answerOpenApi(res: ServerResponse, method: string): Promise<void> {
  if (method !== "GET" && method !== "HEAD") {
    throw unmatchedRoute({ kind: "method-not-allowed", route: { id: "openapi", pattern: OPENAPI_PATH, methods: ["GET"] }, allow: ["GET"] }, "");
  }
  const text = openApiJson();
  res.writeHead(200, { "content-type": JSON_CONTENT_TYPE, "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  res.end(method === "HEAD" ? undefined : text);
}
