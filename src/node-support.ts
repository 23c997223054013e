/**
 * The Node.js lines a program may run this package on: from the floor of package.json's
 * `engines.node` up. Checked when `pulumi-analytics` loads, before anything else, so a program on an
 * ended line gets one clear error instead of a failure deep inside a dependency.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UnsupportedRuntimeError } from "./client/errors";

/** The oldest supported Node.js major: `N` of package.json's `"node": ">=N"`. */
export function nodeFloor(): number {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as { engines?: { node?: string } };
  const floor = /^>=(\d+)$/.exec(manifest.engines?.node ?? "")?.[1];
  if (!floor) throw new Error(`package.json's engines.node is ${JSON.stringify(manifest.engines?.node)}, expected >=N`);
  return Number(floor);
}

/** Throws {@link UnsupportedRuntimeError} when `version` (default: this process's) is below {@link nodeFloor}. */
export function assertSupportedNode(version: string = process.versions.node): void {
  const floor = nodeFloor();
  if (Number(version.split(".")[0]) >= floor) return;
  throw new UnsupportedRuntimeError(
    `pulumi-analytics needs Node.js ${floor} or newer (a line that still gets security fixes); this program runs on Node.js ${version}. Install a current Node.js LTS release and run again.`,
  );
}
