/**
 * The client speaks of its options and of HTTP; a Pulumi user sets stack config and runs
 * `pulumi up`. This module rewords the client's advice for them, in one place.
 */
import { AMBIGUOUS_CREATE_HINT, API_KEY_HINT, BASE_URL_HINT } from "../client/hints";

/** How to set the API key of a stack. */
export const PULUMI_API_KEY_HINT =
  "Set it with `pulumi config set --secret analytics:apiKey <key>` or the ANALYTICS_API_KEY environment variable.";

/** How to set the base URL of a stack. */
export const PULUMI_BASE_URL_HINT = "Set it with `pulumi config set analytics:baseUrl <url>` or the ANALYTICS_BASE_URL environment variable.";

/** What to do about a create that may have happened, in terms of the next `pulumi up`. */
export const PULUMI_AMBIGUOUS_CREATE_HINT =
  "Check the service for it before running `pulumi up` again: the next `pulumi up` creates it anew, so if it already exists you will have two.";

const REWORDINGS: ReadonlyArray<readonly [string, string]> = [
  [API_KEY_HINT, PULUMI_API_KEY_HINT],
  [BASE_URL_HINT, PULUMI_BASE_URL_HINT],
  [AMBIGUOUS_CREATE_HINT, PULUMI_AMBIGUOUS_CREATE_HINT],
];

/** The same error (class and code kept) with the client's advice reworded for a Pulumi user. */
export function inPulumiTerms(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  for (const [clientWords, pulumiWords] of REWORDINGS) error.message = error.message.split(clientWords).join(pulumiWords);
  return error;
}
