/** Stable codes of every error this package raises. */
export type AnalyticsErrorCode =
  | "ANALYTICS_ERROR"
  | "ANALYTICS_CONFIGURATION"
  | "ANALYTICS_API_ERROR"
  | "ANALYTICS_UNAUTHORIZED"
  | "ANALYTICS_CONNECTION"
  | "ANALYTICS_AMBIGUOUS_CREATE"
  | "ANALYTICS_RESPONSE_FORMAT"
  | "ANALYTICS_STATE"
  | "ANALYTICS_IMPORT_UNSUPPORTED"
  | "ANALYTICS_UNSUPPORTED_RUNTIME"
  | "ANALYTICS_MIGRATION_REFUSED"
  | "ANALYTICS_MISSING_PEER";

/** Base of every error this package raises: a fixed `name` and a stable `code` to branch on. */
export class AnalyticsError extends Error {
  override readonly name: string = "AnalyticsError";
  /** Stable identifier of the failure kind. */
  readonly code: AnalyticsErrorCode = "ANALYTICS_ERROR";
}
