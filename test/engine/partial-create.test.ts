/**
 * A create whose object exists but whose answer cannot be recorded whole, through the real engine
 * on both paths: the first `up` fails naming the object, the state keeps it with its init errors,
 * and the second `up` clears them without a second create. Needs `npm run build`.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { startReferenceServer } from "../../src/reference-server";
import { resourcesOfType } from "../support/pulumi-workspace";
import { CLI_PATHS, PASSWORD, TYPES, auditWorkspace, manyWorkspace, output } from "../reliability/support/pulumi-runs";

const toolchain = inject("pulumiToolchain");

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(CLI_PATHS)("a partial create on the %s path", (cliPath) => {
  it("fails the first up naming the object, keeps it in the state with its init errors, and the next up sends no create", async () => {
    const server = await startReferenceServer({
      port: 0,
      bootstrapUsers: ["alice"],
      inspection: true,
      faults: { routes: { createDataSource: { unrecordableAnswerNext: 1 } } },
      syncSchema: () => new Promise(() => undefined),
    });
    cleanups.push(() => server.close());
    const ws = await manyWorkspace(toolchain, { baseUrl: server.url, apiKey: server.apiKeys.alice!, path: cliPath });
    cleanups.push(() => ws.dispose());

    const first = await ws.pulumi(["up", "--yes", "--skip-preview"], { allowFailure: true });
    const [created] = server.inspect.dataSources();
    expect(first.code).not.toBe(0);
    expect(output(first)).toContain(
      `DataSource "Warehouse 0" (id ${created!.id}) was created in the analytics service, but not all of its outputs could be recorded`,
    );
    const state = await ws.exportStack();
    const [ds] = resourcesOfType(state, TYPES[cliPath].dataSource) as Array<{ id?: string; outputs?: Record<string, unknown>; initErrors?: string[] }>;
    expect(ds?.id).toBe(created!.id);
    expect(ds?.initErrors).toEqual([
      expect.stringMatching(
        new RegExp(`^DataSource "Warehouse 0" \\(id ${created!.id}\\) was created .*\\(the answer's field nested is nested more than 1000 levels deep`),
      ),
    ]);
    expect(ds?.outputs).toMatchObject({ displayName: "Warehouse 0", lastSyncStatus: "PENDING" });
    expect(ds?.outputs).not.toHaveProperty("nested");

    const second = await ws.pulumi(["up", "--yes"]);
    expect(output(second)).not.toMatch(/\+ .*create/);
    expect(server.inspect.dataSources()).toHaveLength(1);
    expect(server.inspect.organizations()).toHaveLength(1);
    const [cleared] = resourcesOfType(await ws.exportStack(), TYPES[cliPath].dataSource) as Array<{ id?: string; initErrors?: string[] }>;
    expect([cleared?.id, cleared?.initErrors]).toEqual([created!.id, undefined]);
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(auditWorkspace(ws, [PASSWORD])).toEqual([]);
  });
});
