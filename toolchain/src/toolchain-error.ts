/**
 * Raised when no usable Pulumi CLI can be found or built; the message names what is missing.
 * The toolchain is development tooling, not part of the published package, so this is a plain
 * Error with a stable `code` rather than one of the package's AnalyticsErrors.
 */
export class ToolchainError extends Error {
  override readonly name = "ToolchainError";
  /** Stable identifier of the failure kind. */
  readonly code = "ANALYTICS_TOOLCHAIN" as const;
}
