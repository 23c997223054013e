/** Pure request building and response interpretation, shared by the client and its tests. */
import { readAnswer, type AnswerDifference } from "../contract/answer-reading";
import type { KindSpec } from "../kinds";
import { AmbiguousCreateError, AnalyticsError, ApiError, ConfigurationError, ConnectionError, UnauthorizedError, UntrackedCreateError } from "./errors";
import { inClientWords } from "./advice";
import { parseRetryAfter } from "./retry";
import { baseUrlProblem } from "./setting-rules";
import type { HttpRequest, HttpResponse, TransportFailure } from "./transport";

/** Checks and normalizes a base URL: http(s), no credentials, query or fragment, no trailing slash; an error never quotes it. */
export function normalizeBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) throw new ConfigurationError(`The analytics base URL ${problem}.`, inClientWords("base-url"));
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The headers of every authenticated JSON POST with this key; built once per client. */
export function postHeaders(apiKey: string, userAgent: string): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json",
    "user-agent": userAgent,
  };
}

/** Builds a JSON POST to `url` with `headers` (from {@link postHeaders}; copied, so a transport may change its own). */
export function buildPost(url: string, headers: Readonly<Record<string, string>>, body: unknown): HttpRequest {
  return { method: "POST", url, headers: { ...headers }, body: JSON.stringify(body) };
}

/** What a request was for, so errors can name the object. */
export interface OperationContext {
  /** Human description, e.g. `organization "acme"`. */
  object: string;
  /** Whether the request creates something (never retried when its outcome is unknown). */
  creates: boolean;
  /** Base URL, for connection errors. */
  baseUrl: string;
}

function summarizeBody(response: HttpResponse): string {
  const type = response.headers["content-type"] ?? "no content type";
  const text = response.body
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160);
  return `the response was not the API's JSON error envelope (${type})${text ? `: ${JSON.stringify(text)}` : ", and empty"}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why an object's create may have happened, before the advice. */
function ambiguousOutcome(context: OperationContext): string {
  return (
    `The ${context.object} may or may not have been created. The API has no way to look objects up and no idempotency key, ` +
    "so the request was not retried, to avoid a duplicate."
  );
}

/**
 * A redirect is never followed: the key and the body (credentials included) would go to another
 * address. The service answered without creating anything; only the target's origin is named.
 */
function redirectError(response: HttpResponse, context: OperationContext): ApiError {
  let target = "another address";
  try {
    target = new URL(response.headers.location ?? "", context.baseUrl).origin;
  } catch {
    // No usable Location: the words above.
  }
  return new ApiError(
    response.status,
    "Redirect",
    `the analytics API at ${context.baseUrl} redirected the request to ${target}, and redirects are not followed, so the API key is sent nowhere else`,
    `The ${context.object} was not created. Set the base URL to the address the service answers at.`,
    inClientWords("base-url"),
  );
}

/**
 * The title and detail of an error answer, read tolerantly: the envelope's strings where they are
 * strings, `HTTP <status>` for a missing title, and a summary of the body for a missing detail.
 */
export function errorWords(response: HttpResponse): { title: string; detail: string } {
  const json = parseJson(response.body);
  const error = json !== null && typeof json === "object" ? (json as { error?: unknown }).error : undefined;
  const fields = error !== null && typeof error === "object" ? (error as { title?: unknown; detail?: unknown }) : {};
  const title = typeof fields.title === "string" && fields.title.trim() !== "" ? fields.title : `HTTP ${response.status}`;
  const detail = typeof fields.detail === "string" && fields.detail.trim() !== "" ? fields.detail : summarizeBody(response);
  return { title, detail };
}

/** Maps a non-2xx response to the error the user sees. */
export function errorFromResponse(response: HttpResponse, context: OperationContext): AnalyticsError {
  const { title, detail } = errorWords(response);
  if (response.status >= 300 && response.status < 400) return redirectError(response, context);
  if (response.status === 401) return new UnauthorizedError(response.status, title, detail, "The API key was not accepted.", inClientWords("api-key"));
  // A 500 may come after the object was stored (the service failed while finishing the request),
  // exactly like a 502 or 504 from a proxy that gave up waiting: the outcome is unknown.
  if (context.creates && (response.status === 500 || response.status === 502 || response.status === 504)) {
    return new AmbiguousCreateError(`${title}: ${detail} (HTTP ${response.status}). ${ambiguousOutcome(context)}`, inClientWords("ambiguous-create"));
  }
  if (response.status === 429 || response.status === 503) {
    const waitMs = parseRetryAfter(response.headers["retry-after"], Date.now());
    const asked = waitMs === undefined ? "" : ` (the server asked to wait ${Math.ceil(waitMs / 1000)} s)`;
    return new ApiError(response.status, title, detail, `Nothing was created; the retries were used up${asked}. Try again later.`);
  }
  return new ApiError(response.status, title, detail);
}

/** Maps a transport failure (after any retries) to the error the user sees. */
export function errorFromTransport(failure: TransportFailure, context: OperationContext, attempts: number): AnalyticsError {
  if (!failure.sent) {
    return new ConnectionError(
      `Could not reach the analytics API at ${context.baseUrl} (${failure.failureCode}: ${failure.message}) after ${attempts} attempt${attempts === 1 ? "" : "s"}; ` +
        `the ${context.object} was not created. Check that the service is running and the base URL is right.`,
      inClientWords("base-url"),
    );
  }
  if (context.creates) {
    return new AmbiguousCreateError(
      `The request failed after it was sent (${failure.failureCode}: ${failure.message}). ${ambiguousOutcome(context)}`,
      inClientWords("ambiguous-create"),
    );
  }
  return new ConnectionError(`The request for the ${context.object} failed (${failure.failureCode}: ${failure.message}).`);
}

/** A 2xx answer read tolerantly: the id and the values to record, and how the answer differed from the spec. */
export interface SuccessReading {
  /** The object's id. */
  id: string;
  /** The spec's outputs as read, then the answer's other fields as they came. */
  values: Record<string, unknown>;
  /** Each field that was not what the spec says. */
  differences: AnswerDifference[];
}

/**
 * Reads a create's 2xx body `{ data }` tolerantly ({@link readAnswer}). Without a usable id the
 * object probably exists and cannot be tracked: an {@link UntrackedCreateError} naming it.
 */
export function parseSuccess(response: HttpResponse, spec: KindSpec, context: OperationContext): SuccessReading {
  const json = response.body.trim() === "" ? undefined : parseJson(response.body);
  const why =
    response.body.trim() === ""
      ? "the body is empty"
      : json === undefined
        ? "the body is not JSON"
        : json === null || typeof json !== "object" || Array.isArray(json)
          ? "the body is not a JSON object"
          : undefined;
  const reading = why === undefined ? readAnswer(spec, (json as { data?: unknown }).data) : { id: undefined, why };
  if (reading.id === undefined) {
    throw new UntrackedCreateError(
      `The API answered ${response.status} for the ${context.object}, so it was probably created, but the answer carries no usable id (${reading.why}). ` +
        "Nothing can track an object without its id: the create was not sent again, and no record of it is kept.",
      inClientWords("ambiguous-create"),
    );
  }
  return reading;
}
