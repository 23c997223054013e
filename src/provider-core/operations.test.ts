import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { startFlakyServer } from "../../test/support/flaky-server";
import type { NoticeLevel } from "./notices";
import { clientFor, create } from "./operations";

const KEY = "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

describe("clientFor", () => {
  it("reuses one client (and its keep-alive pool) per key, base URL and timeout", () => {
    const env = {};
    const a = clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, env);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, env)).toBe(a);
    expect(clientFor({ apiKey: "key-b", baseUrl: "http://127.0.0.1:1" }, env)).not.toBe(a);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:2" }, env)).not.toBe(a);
    expect(clientFor({ apiKey: "key-a", baseUrl: "http://127.0.0.1:1" }, { ANALYTICS_REQUEST_TIMEOUT_MS: "500" })).not.toBe(a);
  });
});

describe("create", () => {
  it("tells each create's retries to its own notify, though both share the settings' one client", async () => {
    const server = await startFlakyServer(2);
    const heard: Record<string, Array<[NoticeLevel, string]>> = { Alpha: [], Beta: [] };
    try {
      const settings = { baseUrl: server.url, apiKey: KEY };
      const created = await Promise.all(
        ["Alpha", "Beta"].map((name) => create("organization", { name }, settings, (level, message) => void heard[name]!.push([level, message]))),
      );
      expect(created.map((c) => c.id)).toEqual(["org_Alpha", "org_Beta"]);
    } finally {
      await server.close();
    }
    expect(heard.Alpha).toEqual([["info", expect.stringMatching(/^Retrying the create of organization "Alpha" in 0 s \(attempt 1 failed: HTTP 503\)\.$/)]]);
    expect(heard.Beta).toEqual([["info", expect.stringMatching(/^Retrying the create of organization "Beta" in 0 s \(attempt 1 failed: HTTP 503\)\.$/)]]);
  });

  it("bounds a create by ANALYTICS_REQUEST_TIMEOUT_MS against a server that never answers, in a Pulumi user's words", async () => {
    const server = http.createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const settings = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: KEY };
    const saved = process.env.ANALYTICS_REQUEST_TIMEOUT_MS;
    process.env.ANALYTICS_REQUEST_TIMEOUT_MS = "300";
    try {
      const failure = create("organization", { name: "Acme" }, settings, () => undefined);
      await expect(failure).rejects.toThrow(/no complete answer within 300 ms.*organization "Acme" may or may not have been created/);
      await expect(failure).rejects.toMatchObject({
        code: "ANALYTICS_AMBIGUOUS_CREATE",
        advice: "ambiguous-create",
        message: expect.stringMatching(/the next `pulumi up` creates it anew/),
      });
    } finally {
      if (saved === undefined) delete process.env.ANALYTICS_REQUEST_TIMEOUT_MS;
      else process.env.ANALYTICS_REQUEST_TIMEOUT_MS = saved;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
