/**
 * Child process for scenarios D, E, P and memory: the reference server on 127.0.0.1 with an instant
 * fake schema sync (no data source points at a real database). Talks to the bench over IPC.
 */
import { startReferenceServer } from "pulumi-analytics/reference-server";
import { serveIpc } from "./ipc";

void (async () => {
  const server = await startReferenceServer({
    port: 0,
    bootstrapUsers: ["bench"],
    syncSchema: async () => ({ ok: true, tables: [] }),
    // Scenario P: a state file, as `--state` gives.
    ...(process.env.BENCH_STATE_PATH ? { statePath: process.env.BENCH_STATE_PATH } : {}),
  });
  serveIpc({ url: server.url, apiKey: server.apiKeys.bench ?? "" }, () => server.close());
})();
