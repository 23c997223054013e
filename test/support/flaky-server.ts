/**
 * A port-0 HTTP server of organization creates whose first attempt for each name is answered 503
 * (Retry-After: 0) only once `concurrent` first attempts have arrived, so that many creates are
 * provably retried at the same time; later attempts create the organization.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

/** A running {@link startFlakyServer}. */
export interface FlakyServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops the server and its connections. */
  close(): Promise<void>;
}

/** Starts the server; `concurrent` first attempts are held until all of them have arrived. */
export async function startFlakyServer(concurrent: number): Promise<FlakyServer> {
  const seen = new Set<string>();
  const held: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { name } = JSON.parse(body) as { name: string };
      if (!seen.has(name)) {
        seen.add(name);
        held.push(() =>
          response.writeHead(503, { "content-type": "application/json", "retry-after": "0" }).end('{"error":{"title":"Unavailable","detail":"busy"}}'),
        );
        if (held.length === concurrent) held.forEach((answer) => answer());
        return;
      }
      const data = { id: `org_${name}`, name, slug: name.toLowerCase(), customAiContext: null, onboardingStatus: "STARTED" };
      response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
