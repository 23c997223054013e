import type * as pulumi from "@pulumi/pulumi";

/** The output every resource adds to the API's answer (named by `STATUS_OBSERVED_AT` of src/provider-core/status-observed-at.ts). */
export interface StatusObservedAtOutput {
  /**
   * When this provider received the create response the status outputs come from (ISO 8601,
   * the provider machine's clock); undefined for objects created by an earlier version.
   */
  readonly statusObservedAt: pulumi.Output<string | undefined>;
}
