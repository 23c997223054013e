/**
 * Issue 24: every acknowledged create survives a SIGKILL. The reference server (the built bin,
 * with a state file) takes creates on many connections at once; every 201 is recorded; the
 * server is SIGKILLed mid-stream and started again on the same file. Every acknowledged
 * organization and data source must be there, none twice, and neither the state file nor its
 * journal may hold a key or a credential.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inspectJson, serverDataSourceIds, serverOrganizationIds, startServerProcess, type ServerProcess } from "./support/server-process";

const PASSWORD = "kill-nine-password-8c1f0e";
const SSH_KEY = "kill-nine-ssh-private-key-52ab";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** POSTs `body` with `key`; the created id on 201, undefined on anything else (a connection cut by the kill). */
async function create(url: string, key: string, body: unknown): Promise<string | undefined> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) return undefined;
    return ((await res.json()) as { data: { id: string } }).data.id;
  } catch {
    return undefined;
  }
}

/** Duplicates in `ids`. */
const duplicates = (ids: string[]): string[] => ids.filter((id, i) => ids.indexOf(id) !== i);

describe("issue 24: acknowledged creates survive kill -9 (state file and journal)", () => {
  it.each([
    { round: 1, workers: 8, killAfter: 150 },
    { round: 2, workers: 16, killAfter: 400 },
  ])(
    "round $round: $workers concurrent creators, SIGKILL after $killAfter acknowledgements",
    async ({ workers, killAfter }) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-kill9-"));
      cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const statePath = path.join(dir, "state.json");
      let server: ServerProcess = await startServerProcess({ port: 0, statePath, bootstrapUser: "alice" });
      cleanups.push(() => server.kill());
      const key = server.apiKey!;
      const base = server.url;

      const acknowledgedOrgs: string[] = [];
      const acknowledgedSources: string[] = [];
      const org = await create(`${base}/api/public/organizations`, key, { name: "Kill" });
      expect(org).toBeDefined();
      acknowledgedOrgs.push(org!);

      let killed = false;
      const creator = async (worker: number): Promise<void> => {
        for (let i = 0; !killed; i++) {
          // Mostly data sources, with credentials; now and then an organization.
          if (i % 10 === worker % 10) {
            const id = await create(`${base}/api/public/organizations`, key, { name: `Org ${worker}-${i}` });
            if (id !== undefined) acknowledgedOrgs.push(id);
          } else {
            const body = {
              type: "direct",
              dialect: "POSTGRES",
              displayName: `ds ${worker}-${i}`,
              host: "127.0.0.1",
              port: 1,
              username: "u",
              password: PASSWORD,
              sshPrivateKey: SSH_KEY,
            };
            const id = await create(`${base}/api/public/organizations/${org!}/data-sources`, key, body);
            if (id !== undefined) acknowledgedSources.push(id);
          }
        }
      };
      const running = Array.from({ length: workers }, (_, w) => creator(w));
      while (acknowledgedSources.length + acknowledgedOrgs.length < killAfter) await new Promise((resolve) => setTimeout(resolve, 2));
      await server.kill();
      killed = true;
      await Promise.all(running);

      const journal = `${statePath}.journal`;
      // A SIGKILL leaves the journal in place: what it holds was never folded into the state file.
      expect(fs.existsSync(journal)).toBe(true);
      for (const file of [statePath, journal]) {
        const text = fs.readFileSync(file, "utf8");
        for (const secret of [PASSWORD, SSH_KEY, key, key.slice("analytics_key_".length)]) expect(text).not.toContain(secret);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      }

      server = await startServerProcess({ port: 0, statePath });
      const orgs = await serverOrganizationIds(server.url);
      const sources = await serverDataSourceIds(server.url);
      expect(acknowledgedOrgs.filter((id) => !orgs.includes(id))).toEqual([]);
      expect(acknowledgedSources.filter((id) => !sources.includes(id))).toEqual([]);
      expect(duplicates(orgs)).toEqual([]);
      expect(duplicates(sources)).toEqual([]);
      expect(duplicates(acknowledgedSources)).toEqual([]);
      // The server goes on after the restart, on the same files; the key still works.
      expect(await create(`${server.url}/api/public/organizations`, key, { name: "After" })).toBeDefined();
      const restored = await inspectJson<{ credentialsAvailable: boolean }>(server.url, `data-sources/${acknowledgedSources[0]!}`);
      expect(restored.credentialsAvailable).toBe(false);
      await server.stop();
      // A clean stop folds the journal into the state file and removes it.
      expect(fs.existsSync(journal)).toBe(false);
      expect(fs.readdirSync(dir)).toEqual(["state.json"]);
    },
    120_000,
  );
});
