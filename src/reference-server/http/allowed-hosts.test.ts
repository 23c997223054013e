import { describe, expect, it } from "vitest";
import { ALLOWED_HOSTS_ENV, allowedHosts, allowedHostsFromEnv, assertAllowedHostName, isAllowedHost, refusedHostDetail } from "./allowed-hosts";

/** A server listening on `analytics.internal` that also allows `api` and `Reference-Server.` (given as an operator might). */
const names = allowedHosts("analytics.internal", ["api", "Reference-Server."], "allowedHosts");

const table: Array<[string | undefined, boolean, string]> = [
  [undefined, true, "no Host header (HTTP/1.0; no browser sends it)"],
  ["localhost", true, "localhost"],
  ["localhost:8080", true, "localhost with a port"],
  ["LocalHost:8080", true, "case"],
  ["localhost.", true, "one trailing dot"],
  ["localhost.:8080", true, "trailing dot and port"],
  ["localhost..", false, "two trailing dots"],
  ["console.localhost", true, "a *.localhost name"],
  ["a.b.LOCALHOST.:1", true, "a deeper *.localhost name, case, dot and port"],
  ["127.0.0.1", true, "IPv4"],
  ["127.0.0.1:43123", true, "IPv4 with a port"],
  ["10.1.2.3:8080", true, "another IPv4 address"],
  ["0.0.0.0:8080", true, "the any address"],
  ["127.0.0.1.", true, "IPv4 with a trailing dot"],
  ["[::1]", true, "bracketed IPv6"],
  ["[::1]:8080", true, "bracketed IPv6 with a port"],
  ["[fd00::AB]:1", true, "IPv6 with upper-case digits"],
  ["::1", false, "IPv6 without brackets"],
  ["[::1]x", false, "junk after the bracket"],
  ["[evil.example]:80", false, "a name in brackets"],
  ["[::1", false, "an unclosed bracket"],
  ["analytics.internal", true, "the --host name"],
  ["ANALYTICS.internal.:8080", true, "the --host name, case, dot and port"],
  ["api:8080", true, "an allowed name"],
  ["reference-server", true, "an allowed name given with upper case and a trailing dot"],
  ["evil.example", false, "another name"],
  ["evil.example:8080", false, "another name with a port"],
  ["localhost.evil.example", false, "lookalike: localhost as the first label"],
  ["127.0.0.1.evil.example", false, "lookalike: an IP address as the first labels"],
  ["evil-localhost", false, "lookalike: ends with localhost but no dot"],
  ["evillocalhost:80", false, "lookalike: ends with localhost"],
  ["api.evil.example", false, "lookalike: an allowed name as the first label"],
  ["evil.api", false, "lookalike: an allowed name as the last label"],
  ["localhost:80:80", false, "two ports"],
  ["localhost:abc", false, "a port that is not a number"],
  ["user@localhost", false, "userinfo"],
  ["", false, "an empty Host"],
];

describe("isAllowedHost", () => {
  it.each(table)("%j → %s (%s)", (host, allowed) => {
    expect(isAllowedHost(host, names)).toBe(allowed);
  });

  it("allows no name but localhost's and IP addresses when nothing is allowed and the interface is an address", () => {
    for (const listen of ["127.0.0.1", "0.0.0.0", "::", "::1"]) {
      const none = allowedHosts(listen, [], "allowedHosts");
      expect([...none]).toEqual([]);
      expect(isAllowedHost("analytics.internal", none)).toBe(false);
      expect(isAllowedHost("localhost:1", none)).toBe(true);
    }
  });
});

describe("allowed host names", () => {
  it.each(["analytics", "api.internal", "reference_server", "a-b.c-d.", "X1"])("accepts %j", (name) => {
    expect(() => assertAllowedHostName(name, "--allowed-host")).not.toThrow();
  });

  it.each([
    "",
    "http://analytics",
    "analytics:8080",
    "analytics/path",
    "*.example",
    ".example",
    "-a",
    "a-",
    "a..b",
    "a b",
    "a".repeat(64),
    `${"a.".repeat(127)}a`,
  ])("refuses %j with a RangeError naming the flag", (name) => {
    expect(() => assertAllowedHostName(name, "--allowed-host")).toThrow(RangeError);
    expect(() => assertAllowedHostName(name, "--allowed-host")).toThrow(/^--allowed-host must be a host name/);
    expect(() => allowedHosts("127.0.0.1", [name], "allowedHosts")).toThrow(/^allowedHosts must be/);
  });

  it(`reads ${ALLOWED_HOSTS_ENV} as a comma-separated list`, () => {
    expect(allowedHostsFromEnv(undefined)).toEqual([]);
    expect(allowedHostsFromEnv("")).toEqual([]);
    expect(allowedHostsFromEnv(" api , reference-server,,")).toEqual(["api", "reference-server"]);
  });
});

describe("refusedHostDetail", () => {
  it("names the host and every way to allow it", () => {
    const detail = refusedHostDetail("evil.example:8080");
    expect(detail).toContain('"evil.example:8080"');
    for (const way of ["--allowed-host <name>", "allowedHosts", ALLOWED_HOSTS_ENV]) expect(detail).toContain(way);
  });

  it("shortens a long host", () => {
    const detail = refusedHostDetail("a".repeat(500));
    expect(detail).toContain(`"${"a".repeat(100)}…"`);
    expect(detail).not.toContain("a".repeat(101));
  });
});
