/**
 * Checks a reference-server answer against the server's own OpenAPI document: the status is one
 * the operation documents, the body matches that response's schema, the headers it always
 * carries are there, and an injected-fault header is one it documents. Ajv (the JSON Schema validator the OpenAPI validator itself builds on)
 * checks the bodies, since OpenAPI 3.1 schemas are JSON Schema 2020-12.
 */
import Ajv2020 from "ajv/dist/2020";
import { expect } from "vitest";
import { FAULT_HEADER } from "../../src/reference-server/control/faults";
import { buildOpenApiDocument } from "../../src/reference-server/control/openapi";

type Json = Record<string, any>;

const document = buildOpenApiDocument() as Json;
const ajv = new Ajv2020({ allErrors: true });
ajv.addFormat("password", true);
const compiled = new Map<Json, ReturnType<typeof ajv.compile>>();

/** The document's path template matching `pathname`, and its parameters. */
function pathItem(pathname: string): Json | undefined {
  for (const [template, item] of Object.entries(document.paths as Json)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (pattern.test(pathname)) return item;
  }
  return undefined;
}

function resolve(node: Json): Json {
  if (typeof node.$ref !== "string") return node;
  return (node.$ref as string)
    .slice(2)
    .split("/")
    .reduce((at: Json, key) => at[key], document);
}

/** The compiled validator of a response's JSON body (component schemas hold no further references). */
function bodyValidator(response: Json): ReturnType<typeof ajv.compile> {
  const schema = resolve(response.content["application/json"].schema as Json);
  let validate = compiled.get(schema);
  if (validate === undefined) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** True when `pathname` is an address the document speaks for (not inspection, not the document itself). */
export function isDocumented(pathname: string): boolean {
  return !pathname.startsWith("/_reference") && pathname !== "/openapi.json";
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * The answer to a method a path item lists no operation for: 405 with the listed methods in
 * `Allow`, or, on a path the document lists with no operation at all, 501.
 */
function undocumentedMethodAnswer(item: Json, method: string, pathname: string, status: number, headers: Headers): Json {
  const listed = METHODS.filter((name) => item[name] !== undefined);
  if (listed.length === 0) {
    expect(status, `${method} ${pathname}: a path with no operation answers 501`).toBe(501);
    return document.components.responses.NotImplemented as Json;
  }
  expect(status, `${method} ${pathname} is not documented: it answers 405`).toBe(405);
  expect(headers.get("allow"), `${method} ${pathname}: Allow lists the documented methods`).toBe(listed.map((name) => name.toUpperCase()).join(", "));
  return document.components.responses.MethodNotAllowed as Json;
}

/** The documented response of `method pathname` with `status`. */
function documentedResponse(item: Json, method: string, pathname: string, status: number, headers: Headers): Json {
  const operation = item[method.toLowerCase()] as Json | undefined;
  if (operation === undefined) return undocumentedMethodAnswer(item, method, pathname, status, headers);
  const entry = operation.responses[String(status)] as Json | undefined;
  expect(entry, `${method} ${pathname} documents status ${status}`).toBeDefined();
  return resolve(entry!);
}

/** Asserts that the answer to `method pathname` conforms to the OpenAPI document. */
export function expectConformsToOpenApi(method: string, pathname: string, status: number, headers: Headers, body: unknown): void {
  const item = pathItem(pathname.split("?", 1)[0]!);
  if (item === undefined) {
    // Unknown paths are outside the document; they answer 404 with the error envelope.
    expect({ status, title: (body as Json).error?.title }).toEqual({ status: 404, title: "NotFound" });
    return;
  }
  const response = documentedResponse(item, method, pathname, status, headers);
  const validate = bodyValidator(response);
  expect(validate(body) ? [] : validate.errors, `${method} ${pathname} ${status} body matches the document`).toEqual([]);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    if (header.required === true) expect(headers.get(name), `${status} carries ${name}`).not.toBeNull();
  }
  if (headers.get(FAULT_HEADER) !== null) {
    expect(Object.keys((response.headers ?? {}) as Json), `${method} ${pathname} ${status} documents ${FAULT_HEADER}`).toContain(FAULT_HEADER);
  }
}
