/** Output holding the time the provider received the create response: every status output is as of then. */
export const STATUS_OBSERVED_AT = "statusObservedAt";
