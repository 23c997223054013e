/**
 * What a base URL and an API key must look like before anything is sent, free of zod and HTTP so
 * the native plugin's CheckConfig can apply them at start-up. Each problem is worded without the
 * value: a base URL may carry a password, and a key is a credential.
 */

/** The longest API key accepted: far above the service's keys, far below what an HTTP header may carry. */
export const MAX_API_KEY_LENGTH = 4096;

/** Why `baseUrl` cannot be the service's address (no value quoted), or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "must be an http(s) URL such as `https://analytics.example.com`, and this is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `must use http or https, got a ${url.protocol.slice(0, 20)} URL`;
  if (url.username || url.password) return "must not carry a user name or password (the API key is the only credential, set on its own)";
  if (url.search || url.hash) return "must not carry a query or fragment";
  return undefined;
}

/** Why `apiKey` cannot be sent as a bearer token (no value quoted), or undefined when it can. */
export function apiKeyProblem(apiKey: string): string | undefined {
  if (apiKey.length > MAX_API_KEY_LENGTH)
    return `must be at most ${MAX_API_KEY_LENGTH} characters long (real keys are far shorter), and this one has ${apiKey.length}`;
  if (!/^[\x21-\x7e]+$/.test(apiKey)) return "must be printable ASCII with no spaces, and this one holds a control character, a space or a non-ASCII character";
  return undefined;
}
