/**
 * The server's rule against DNS rebinding: a page of `http://evil.example` whose name is made to
 * resolve to this server's address is, for the browser, same-origin with everything the server
 * answers. What it cannot change is the `Host` header, which names evil.example. So the server
 * answers only requests whose `Host` is one of its own names: `localhost` and `*.localhost`, an IP
 * address literal, the interface name it was told to listen on, and the names it was told to
 * allow (`--allowed-host`, `allowedHosts`, `ANALYTICS_ALLOWED_HOSTS`). Vite's `server.allowedHosts`
 * and webpack-dev-server's `allowedHosts` follow the same rule.
 *
 * A request without `Host` (HTTP/1.0 allows it; a browser always sends one) is served: no page
 * can send it, so it cannot come from a rebinding.
 */
import { isIPv4, isIPv6 } from "node:net";

/** Environment variable with more allowed names, comma-separated, for services that cannot pass flags. */
export const ALLOWED_HOSTS_ENV = "ANALYTICS_ALLOWED_HOSTS";

/** One DNS label: letters, digits, `-` and `_` (container service names use it), not starting or ending with `-`. */
const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
/** A host name as `--allowed-host` takes it: labels joined by dots, one trailing dot allowed. */
const HOST_NAME_PATTERN = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`, "i");

/** The names a server answers to, beyond localhost and IP literals (lowercase, no trailing dot). */
export type AllowedHosts = ReadonlySet<string>;

/** `name` lowercased, one trailing dot removed. */
function canonical(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** Throws a RangeError naming `source` (the flag or option) unless `name` is a plain host name. */
export function assertAllowedHostName(name: string, source: string): void {
  if (name.length > 253 || !HOST_NAME_PATTERN.test(name)) {
    throw new RangeError(
      `${source} must be a host name such as analytics or api.internal (letters, digits, '-', '_' and dots; no scheme, port, path or wildcard), got ${JSON.stringify(name)}`,
    );
  }
}

/**
 * The allowed names of a server listening on `listenHost` (added when it is a name, not an IP
 * address) that was told to allow `allowedHosts` (each checked by {@link assertAllowedHostName}).
 */
export function allowedHosts(listenHost: string, extra: readonly string[], source: string): AllowedHosts {
  for (const name of extra) assertAllowedHostName(name, source);
  const names = new Set(extra.map(canonical));
  if (listenHost !== "" && !isIPv4(listenHost) && !isIPv6(listenHost)) names.add(canonical(listenHost));
  return names;
}

/** Names from {@link ALLOWED_HOSTS_ENV}'s value: comma-separated, blanks ignored. */
export function allowedHostsFromEnv(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** The host name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined when it is none of those. */
function hostName(header: string): { name: string; ip: boolean } | undefined {
  if (header.startsWith("[")) {
    const end = header.indexOf("]");
    const rest = header.slice(end + 1);
    const inside = header.slice(1, end);
    return end !== -1 && /^(?::\d*)?$/.test(rest) && isIPv6(inside) ? { name: inside, ip: true } : undefined;
  }
  const colon = header.indexOf(":");
  if (colon !== -1 && !/^\d*$/.test(header.slice(colon + 1))) return undefined;
  const name = canonical(colon === -1 ? header : header.slice(0, colon));
  return { name, ip: isIPv4(name) };
}

/** True when a request with this `Host` header (undefined when it sent none) may be served. */
export function isAllowedHost(header: string | undefined, allowed: AllowedHosts): boolean {
  if (header === undefined) return true;
  const host = hostName(header);
  if (host === undefined) return false;
  if (host.ip) return true;
  return host.name === "localhost" || host.name.endsWith(".localhost") || allowed.has(host.name);
}

/** What the refusal says: the refused name (at most 100 characters, printable only) and how to allow it. */
export function refusedHostDetail(header: string): string {
  const shown = JSON.stringify(header.length > 100 ? `${header.slice(0, 100)}…` : header);
  return (
    `This server does not answer to the host ${shown}: it serves localhost, *.localhost, IP addresses, ` +
    `the --host name and the names allowed with --allowed-host <name> (option allowedHosts, or ${ALLOWED_HOSTS_ENV}=<name>,<name>). ` +
    "Allow the name if it is this server's, for example a container service name; pages of other sites are refused so that DNS rebinding cannot reach the server."
  );
}
