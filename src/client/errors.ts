import { AnalyticsError, type Advice, type AnalyticsErrorCode } from "../errors";

export { AnalyticsError, type Advice, type AdviceCode, type AnalyticsErrorCode } from "../errors";

/** Missing or invalid provider settings (API key, base URL). */
export class ConfigurationError extends AnalyticsError {
  override readonly code = "ANALYTICS_CONFIGURATION" as const;
}

/** The API answered with an error envelope (or an error status with a non-JSON body). */
export class ApiError extends AnalyticsError {
  override readonly code: AnalyticsErrorCode = "ANALYTICS_API_ERROR";
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** `error.title` of the envelope, or `HTTP <status>` when the body was not an envelope. */
    readonly title: string,
    /** `error.detail`, or a description of the unexpected body. */
    readonly detail: string,
    /** Extra guidance appended to the summary. */
    hint = "",
    /** What to do, closing the message. */
    advice?: Advice,
  ) {
    super(`${title}: ${detail} (HTTP ${status})${hint ? ` ${hint}` : ""}`, advice);
  }
}

/** The API rejected the key (401). */
export class UnauthorizedError extends ApiError {
  override readonly code = "ANALYTICS_UNAUTHORIZED" as const;
}

/** The request provably never reached the API (connection refused, DNS or TLS failure), after every retry. */
export class ConnectionError extends AnalyticsError {
  override readonly code = "ANALYTICS_CONNECTION" as const;
}

/**
 * A create was sent but its outcome is unknown (timeout or reset after sending, 500, 502, 504): the
 * object may exist. Never retried automatically, because the API has no idempotency key.
 */
export class AmbiguousCreateError extends AnalyticsError {
  override readonly code = "ANALYTICS_AMBIGUOUS_CREATE" as const;
}

/**
 * A 2xx answer to a create that carries no usable id (no body, not JSON, no `data.id`): the object
 * probably exists, and nothing can track it. Never retried, like an {@link AmbiguousCreateError}.
 */
export class UntrackedCreateError extends AnalyticsError {
  override readonly code = "ANALYTICS_UNTRACKED_CREATE" as const;
}

/**
 * An object created in the service whose outputs could not all be recorded: the providers report it
 * as Pulumi's "created, but failed to initialize", so the state keeps the object (see
 * src/provider-core/partial-create.ts). `outputs` are those the state records.
 */
export class PartialCreateError extends AnalyticsError {
  override readonly code = "ANALYTICS_PARTIAL_CREATE" as const;

  constructor(
    message: string,
    /** The id the service gave the object. */
    readonly id: string,
    /** The outputs the state records (the declared secrets among them). */
    readonly outputs: Record<string, unknown>,
    /** What failed, each a sentence without secrets: what the engine shows and keeps as the resource's `initErrors`. */
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/**
 * Kept for programs that name it; no longer raised: a 2xx answer with an id is read tolerantly
 * (src/contract/answer-reading.ts), and one without an id is an {@link UntrackedCreateError}.
 */
export class ResponseFormatError extends AnalyticsError {
  override readonly code = "ANALYTICS_RESPONSE_FORMAT" as const;
}

/**
 * A resource declared with the `import` option: the API has no read endpoint, so an existing
 * object cannot be adopted. Raised in the program, before anything reaches the engine.
 */
export class ImportUnsupportedError extends AnalyticsError {
  override readonly code = "ANALYTICS_IMPORT_UNSUPPORTED" as const;
  /** Pulumi's marker for a RunError (checked by name across SDK copies): the engine prints the message alone, without a stack trace. */
  readonly __pulumiRunError = true;
}

/** The program runs on a Node.js line older than the package supports (package.json's `engines`): see src/node-support.ts. */
export class UnsupportedRuntimeError extends AnalyticsError {
  override readonly code = "ANALYTICS_UNSUPPORTED_RUNTIME" as const;
}
