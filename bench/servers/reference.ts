/**
 * Child process for the server scenario: the reference server on 127.0.0.1 with an instant
 * fake schema sync (no data source points at a real database). Talks to the bench over IPC.
 */
import { startReferenceServer } from "pulumi-analytics/reference-server";
import { serveIpc } from "./ipc";

void (async () => {
  const server = await startReferenceServer({
    port: 0,
    bootstrapUsers: ["bench"],
    syncSchema: async () => ({ ok: true, tables: [] }),
  });
  serveIpc({ url: server.url, apiKey: server.apiKeys.bench ?? "" }, () => server.close());
})();
