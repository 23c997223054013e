/**
 * The bench's own dependency, kept out of the package's: Prism (the peer mock server of the server
 * scenario), pinned in bench/peers/package.json and its lockfile, and installed into
 * bench/peers/node_modules the first time the bench needs it.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { repoRoot } from "./workspace";

/** Folder of the bench-only package.json, lockfile and node_modules. */
export const peersDir = path.join(repoRoot, "bench", "peers");

/** The pinned packages, by name, from bench/peers/package.json. */
function pinned(): Record<string, string> {
  return (JSON.parse(fs.readFileSync(path.join(peersDir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
}

/** Installed version of a bench-only package, or undefined when it is not installed. */
export function peerVersion(name: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(peersDir, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** Installs bench/peers from its lockfile (`npm ci`) unless every pinned version is already there. */
export function ensurePeers(log: (line: string) => void): void {
  const missing = Object.entries(pinned()).filter(([name, version]) => peerVersion(name) !== version);
  if (missing.length === 0) return;
  log(`installing the bench's own tools into bench/peers (${missing.map(([n, v]) => `${n}@${v}`).join(", ")})`);
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: peersDir, stdio: ["ignore", "ignore", "inherit"] });
}

/** Path of Prism's CLI script (run with this node, so its pid is the server's). */
export function prismScript(): string {
  return createRequire(path.join(peersDir, "package.json")).resolve("@stoplight/prism-cli/dist/index.js");
}
