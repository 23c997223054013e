import type * as pulumi from "@pulumi/pulumi";

/** Output holding the time the provider received the create response: every status output is as of then. */
export const STATUS_OBSERVED_AT = "statusObservedAt";

/** The output every resource adds to the API's answer. */
export interface StatusObservedAtOutput {
  /**
   * When this provider received the create response the status outputs come from (ISO 8601,
   * the provider machine's clock); undefined for objects created by an earlier version.
   */
  readonly statusObservedAt: pulumi.Output<string | undefined>;
}
