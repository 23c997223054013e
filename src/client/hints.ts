/** The client's advice closing its errors, free of zod and HTTP so callers can reword it without loading them. */

/** How to pass the API key, quoted in every error about it (callers may reword it for their users). */
export const API_KEY_HINT = "Pass the key as the client's `apiKey` option; it is sent as `Authorization: Bearer <key>`.";

/** How to pass the base URL, quoted in every error about it (callers may reword it). */
export const BASE_URL_HINT = "Pass it as the client's `baseUrl` option, e.g. `https://analytics.example.com`.";

/** What to do about a create that may have happened, closing every such error (callers may reword it). */
export const AMBIGUOUS_CREATE_HINT = "Check the service for it before sending the create again: a second create makes a second object.";
