/**
 * Child process for the server scenario: the reference server on 127.0.0.1 with an instant fake
 * schema sync (no data source points at a real database). Prints `ready {url, apiKey}` once it
 * listens; stops on SIGTERM.
 */
import { startReferenceServer } from "pulumi-analytics/reference-server";

void (async () => {
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["bench"], syncSchema: async () => ({ ok: true, tables: [] }) });
  process.stdout.write(`ready ${JSON.stringify({ url: server.url, apiKey: server.apiKeys.bench ?? "" })}\n`);
})();
