/**
 * The client speaks of its options and of HTTP; a Pulumi user sets stack config and runs
 * `pulumi up`. This module words each advice code (src/errors.ts) for them, in one place.
 */
import { AnalyticsError, type Advice, type AdviceCode } from "../errors";

/** What the providers advise, per code, to a Pulumi user. */
export const PULUMI_ADVICE: Readonly<Record<AdviceCode, string>> = {
  "api-key": "Set it with `pulumi config set --secret analytics:apiKey <key>` or the ANALYTICS_API_KEY environment variable.",
  "base-url": "Set it with `pulumi config set analytics:baseUrl <url>` or the ANALYTICS_BASE_URL environment variable.",
  "ambiguous-create":
    "Check the service for it before running `pulumi up` again: the next `pulumi up` creates it anew, so if it already exists you will have two.",
};

/** The advice of `code` as the providers word it. */
export function inPulumiWords(code: AdviceCode): Advice {
  return { code, words: PULUMI_ADVICE[code] };
}

/** The same error (class, code and summary kept) with its advice worded for a Pulumi user; anything else as it is. */
export function forPulumiUsers(error: unknown): unknown {
  return error instanceof AnalyticsError ? error.adviseIn(PULUMI_ADVICE) : error;
}
