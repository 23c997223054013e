/**
 * The inspection routes' rule against other web sites: a browser names the page that sent a
 * request in `Origin` (and, in current browsers, says `Sec-Fetch-Site`). A request that changes
 * state (any method but GET and HEAD) sent by a page of another origin is refused, so a site open
 * in the same browser cannot reset the server, restore a saved state or switch faults. Requests that
 * name no origin (curl, the SDK's clients, tests) are served as before. A page that reaches the
 * server under its own name through DNS rebinding passes this check (its `Origin` and `Host`
 * agree): the host rule (http/allowed-hosts.ts) refuses it before any route runs.
 */
import type { IncomingHttpHeaders } from "node:http";

/** Methods that only read: served whoever sent them (the server sends no CORS headers, so another origin cannot read the answer). */
const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * Why a request is refused as coming from another origin, or undefined when it is served.
 * `host` is the request's `Host` header: the page's own origin is `http://<host>`.
 */
export function crossOriginRefusal(method: string, headers: IncomingHttpHeaders): string | undefined {
  if (READ_METHODS.has(method)) return undefined;
  const site = headers["sec-fetch-site"];
  const origin = headers.origin;
  const own = headers.host === undefined ? undefined : `http://${headers.host}`;
  if (origin !== undefined && origin !== own) {
    return `A page of another origin (${origin}) may not ${method} inspection routes. Open the console from ${own ?? "the server's own address"}, or send the request without a browser (curl, the SDK).`;
  }
  if (site === "cross-site" || site === "same-site") {
    return `A page of another site (Sec-Fetch-Site: ${site}) may not ${method} inspection routes. Open the console from the server's own address, or send the request without a browser.`;
  }
  return undefined;
}
