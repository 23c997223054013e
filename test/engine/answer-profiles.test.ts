/**
 * Created means recorded, through the real engine on both paths (the TypeScript program on the
 * dynamic classes, its YAML twin on the native plugin), against a reference server answering under
 * each answer profile: the first `up` records every object, the second sends no create, and a
 * preview sees no change. Needs `npm run build`.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { ANSWER_PROFILE_NAMES } from "../../src/reference-server/control/answer-profiles";
import type { PulumiWorkspace } from "../support/pulumi-workspace";
import { resourcesOfType } from "../support/pulumi-workspace";
import { CLI_PATHS, PASSWORD, TYPES, auditWorkspace, manyWorkspace, output } from "../reliability/support/pulumi-runs";

const toolchain = inject("pulumiToolchain");

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server answering under `profile` and a stack of one organization and one data source on `cliPath`. */
async function stackUnder(
  cliPath: (typeof CLI_PATHS)[number],
  profile: (typeof ANSWER_PROFILE_NAMES)[number],
): Promise<{ ws: PulumiWorkspace; server: ReferenceServer }> {
  const server = await startReferenceServer({
    port: 0,
    bootstrapUsers: ["alice"],
    inspection: true,
    faults: { answerProfile: profile },
    syncSchema: () => new Promise(() => undefined),
  });
  cleanups.push(() => server.close());
  const ws = await manyWorkspace(toolchain, { baseUrl: server.url, apiKey: server.apiKeys.alice!, path: cliPath });
  cleanups.push(() => ws.dispose());
  return { ws, server };
}

describe.each(CLI_PATHS)("every answer profile, on the %s path", (cliPath) => {
  it.each(ANSWER_PROFILE_NAMES)("%s: the first up records each object the service created, the second sends no create", async (profile) => {
    const { ws, server } = await stackUnder(cliPath, profile);
    const first = await ws.pulumi(["up", "--yes", "--skip-preview"]);
    const state = await ws.exportStack();
    const [org] = resourcesOfType(state, TYPES[cliPath].org);
    const [ds] = resourcesOfType(state, TYPES[cliPath].dataSource);
    expect(server.inspect.organizations()).toHaveLength(1);
    expect(server.inspect.dataSources()).toHaveLength(1);
    expect(org?.id).toMatch(profile === "other-types" ? /^\d+$/ : /^org_/);
    expect(ds?.id).toMatch(profile === "other-types" ? /^\d+$/ : /^ds_/);
    expect(ds?.outputs).toMatchObject({ orgId: org?.id, displayName: "Warehouse 0", sslEnabled: false, port: 5432 });
    expect(ds?.outputs).toHaveProperty("sshHost", null);

    const second = await ws.pulumi(["up", "--yes"]);
    expect([server.inspect.organizations().length, server.inspect.dataSources().length]).toEqual([1, 1]);
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(output(second)).not.toMatch(/\+ .*create/);

    if (profile === "other-types") {
      // Booleans as 0 and 1 are not guessed at: a warning under the data source names each, and the state records null.
      expect(output(first)).toMatch(/the API answered isDemo as a number \(0\), where the spec has a boolean; the state records null/);
      expect(ds?.outputs).toMatchObject({ isDemo: null, hasCompletedFirstSync: null, createdAt: expect.stringMatching(/^\d{13}$/) });
    } else {
      expect(output(first)).not.toMatch(/warning: .*the API answered/);
    }
    if (profile === "extra-fields")
      expect(ds?.outputs).toMatchObject({ region: "local", workspace: { id: "ws_reference", plan: "trial" }, labels: ["reference-server"] });
    if (profile === "new-status-values")
      expect([org?.outputs?.onboardingStatus, ds?.outputs?.lastSyncStatus, ds?.outputs?.lastHealthStatus]).toEqual(["IN_PROGRESS", "QUEUED", "UNKNOWN"]);
    expect(auditWorkspace(ws, [PASSWORD])).toEqual([]);
  });
});
