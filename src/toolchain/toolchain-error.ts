import { AnalyticsError } from "../errors";

/** Raised when no usable Pulumi CLI can be found or built; the message names what is missing. */
export class ToolchainError extends AnalyticsError {
  override readonly name = "ToolchainError";
  override readonly code = "ANALYTICS_TOOLCHAIN" as const;
}
