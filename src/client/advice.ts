/**
 * The client's words for each advice code (src/errors.ts): its options and the create it sends.
 * Free of zod and HTTP; the providers word the same codes for Pulumi users in their own module.
 */
import type { Advice, AdviceCode } from "../errors";

/** What the client advises, per code, to a program calling it. */
export const CLIENT_ADVICE: Readonly<Record<AdviceCode, string>> = {
  "api-key": "Pass the key as the client's `apiKey` option; it is sent as `Authorization: Bearer <key>`.",
  "base-url": "Pass it as the client's `baseUrl` option, e.g. `https://analytics.example.com`.",
  "ambiguous-create": "Check the service for it before sending the create again: a second create makes a second object.",
};

/** The advice of `code` as the client words it. */
export function inClientWords(code: AdviceCode): Advice {
  return { code, words: CLIENT_ADVICE[code] };
}
