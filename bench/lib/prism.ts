/**
 * Prism, the peer of scenarios D and S: Stoplight's mock server (bench/peers) serving the
 * reference server's own OpenAPI document, answering from the document's schemas after
 * validating each request (path, body, Bearer key present) against it.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { prismScript } from "./peers";
import { askOnceListening, freePort, spawnGroup } from "./spawned";
import { repoRoot } from "./workspace";

/** Prism's flags after `mock <document>`: static examples, no request logging, validation on (its default). */
export const PRISM_FLAGS = ["--dynamic", "false", "--verboseLevel", "error"];

/** Writes `analytics-reference-server openapi` to bench/tmp/openapi.json and returns the path. */
export function writeOpenApiDocument(): string {
  const file = path.join(repoRoot, "bench", "tmp", "openapi.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, execFileSync(process.execPath, [path.join(repoRoot, "dist", "reference-server", "bin.js"), "openapi"]));
  return file;
}

/** The command that starts Prism on `port`, as [executable, ...args]. */
export function prismCommand(document: string, port: string): [string, ...string[]] {
  return [process.execPath, prismScript(), "mock", document, "--host", "127.0.0.1", "--port", port, ...PRISM_FLAGS];
}

/** A running Prism: its base URL on 127.0.0.1, and how to stop it. */
export interface PrismServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts Prism on a free port and resolves once it answers a request (up to 60 s). */
export async function startPrism(document: string): Promise<PrismServer> {
  const port = await freePort();
  const [command, ...args] = prismCommand(document, String(port));
  const child = spawnGroup(command, args);
  const url = `http://127.0.0.1:${port}`;
  try {
    await askOnceListening({ url: `${url}/`, method: "GET" });
  } catch (error) {
    await child.stop();
    throw new Error(`Prism did not start: ${(error as Error).message} ${child.stderr().slice(0, 500)}`, { cause: error });
  }
  return { url, stop: () => child.stop() };
}
