/**
 * DNS rebinding against the reference server in a real browser: Debian's Chromium (driven by
 * playwright-core through tools/lib/chromium.js) resolves evil.test to 127.0.0.1, as a rebinding
 * attacker's DNS would once the page is loaded, and loads the attacker's page from
 * `http://evil.test:<server port>/attack`: for the browser it is same-origin with the server, so
 * neither CORS nor the Origin check stands in its way. The browser's own Local
 * Network Access check is turned off, as in a browser without it. The page's script resets the server,
 * restores and saves states, switches faults, reads the inspection and console state and
 * creates an organization with a leaked key. Every answer is the host refusal: the server's state
 * is unchanged and no organization's name reaches the page. The same page against a server that
 * allows evil.test (`allowedHosts`) succeeds, which shows the browser really delivers the attack.
 */
import { randomBytes } from "node:crypto";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH } from "../../src/contract";
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from "../../src/reference-server";
import { launchChromium } from "../../tools/lib/chromium.js";

// The page's global, which this Node.js program's types (no DOM library) do not declare.
declare const window: { attack: Promise<Attempt[]> };

/** The attacker's name, mapped to loopback for the browser alone. */
const EVIL_HOST = "evil.test";

/**
 * Chromium's flags: evil.test resolves to 127.0.0.1, and Local Network Access is off, so a page of
 * a public name may send requests to loopback, as browsers without that check do. With the check
 * on, Chromium 156 fails every request of the page (no answer at all) and the allowing server's
 * test below fails.
 */
const ATTACK_ARGS = [`--host-resolver-rules=MAP ${EVIL_HOST} 127.0.0.1`, "--disable-features=LocalNetworkAccessChecks"];

/** An organization name no refused answer may carry to the page. */
const ORG_NAME = `Rebinding-Target-${randomBytes(6).toString("hex")}`;

/** What the page's script saw of one request. */
interface Attempt {
  what: string;
  status: number;
  body: string;
}

/** The attacker's page: reads first, then writes, faults last (so the control server's writes all succeed). */
function attackPage(key: string): string {
  const script = `
    const json = (body) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const attempts = [
      ["GET", "/_reference/organizations", {}],
      ["GET", "/_reference/console/state", {}],
      ["GET", "/_reference/requests", {}],
      ["GET", "/_reference/faults", {}],
      ["POST", "${ORGANIZATIONS_PATH}", { headers: { "content-type": "application/json", authorization: "Bearer ${key}" }, body: JSON.stringify({ name: "Created by the attack" }) }],
      ["POST", "/_reference/saved-states", json({ name: "attack" })],
      ["POST", "/_reference/saved-states/baseline/restore", {}],
      ["POST", "/_reference/reset", {}],
      ["POST", "/_reference/faults", json({ errorRate: 1 })],
    ];
    window.attack = (async () => {
      const seen = [];
      for (const [method, path, init] of attempts) {
        try {
          const res = await fetch(path, { method, ...init });
          seen.push({ what: method + " " + path, status: res.status, body: await res.text() });
        } catch (error) {
          seen.push({ what: method + " " + path, status: 0, body: String(error) });
        }
      }
      return seen;
    })();`;
  return `<!doctype html><html><head><title>attack</title></head><body><script>${script}</script></body></html>`;
}

/** A server with inspection on, one user, an organization and a saved state. */
async function target(options: ReferenceServerOptions): Promise<{ server: ReferenceServer; key: string }> {
  const server = await startReferenceServer({ inspection: true, bootstrapUsers: ["alice"], ...options });
  const key = server.apiKeys.alice!;
  const res = await fetch(`${server.url}${ORGANIZATIONS_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: ORG_NAME }),
  });
  expect(res.status).toBe(201);
  await res.text();
  await server.savedStates.save("baseline");
  return { server, key };
}

/** What the attack must leave as it was. */
function stateOf(server: ReferenceServer): unknown {
  return {
    organizations: server.inspect.organizations().map((org) => org.name),
    savedStates: server.savedStates.list(),
    faults: server.faults.settings(),
    injected: server.faults.injected(),
    requests: server.inspect.requestCount(),
  };
}

let context: BrowserContext;
const servers: ReferenceServer[] = [];

beforeAll(async () => {
  context = await launchChromium({ args: ATTACK_ARGS });
}, 60_000);
afterAll(async () => {
  await context?.close();
  for (const server of servers) await server.close();
});

/** Loads the attacker's page as `http://evil.test:<port>/attack` (only that document is fulfilled here) and returns what its script saw. */
async function attack(server: ReferenceServer, key: string): Promise<Attempt[]> {
  const page = await context.newPage();
  try {
    const pageUrl = `http://${EVIL_HOST}:${server.port}/attack`;
    await page.route(pageUrl, (route) => route.fulfill({ status: 200, contentType: "text/html", body: attackPage(key) }));
    await page.goto(pageUrl);
    return await page.evaluate(() => window.attack);
  } finally {
    await page.close();
  }
}

describe("DNS rebinding in Chromium", () => {
  it("gets the host refusal for every request and changes nothing", async () => {
    const { server, key } = await target({});
    servers.push(server);
    const before = stateOf(server);
    const seen = await attack(server, key);
    expect(seen).toHaveLength(9);
    for (const attempt of seen) {
      expect(attempt.status, attempt.what).toBe(403);
      expect(JSON.parse(attempt.body), attempt.what).toEqual({
        error: { title: "Forbidden", detail: expect.stringContaining(`"${EVIL_HOST}:${server.port}"`) },
      });
      expect(attempt.body).not.toContain(ORG_NAME);
    }
    expect(stateOf(server)).toEqual(before);
    expect(server.inspect.organizations().map((org) => org.name)).toEqual([ORG_NAME]);
  }, 60_000);

  it("succeeds against a server that allows the attacker's name: the browser delivers every request", async () => {
    const { server, key } = await target({ allowedHosts: [EVIL_HOST] });
    servers.push(server);
    const seen = await attack(server, key);
    expect(seen.map((attempt) => [attempt.what, attempt.status])).toEqual([
      ["GET /_reference/organizations", 200],
      ["GET /_reference/console/state", 200],
      ["GET /_reference/requests", 200],
      ["GET /_reference/faults", 200],
      [`POST ${ORGANIZATIONS_PATH}`, 201],
      ["POST /_reference/saved-states", 201],
      ["POST /_reference/saved-states/baseline/restore", 200],
      ["POST /_reference/reset", 200],
      ["POST /_reference/faults", 200],
    ]);
    expect(seen[0]!.body).toContain(ORG_NAME);
    expect(server.inspect.organizations()).toEqual([]);
    expect(server.faults.settings()).toMatchObject({ errorRate: 1 });
  }, 60_000);
});
