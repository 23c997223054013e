/** The native plugin as Pulumi.yaml `plugins: providers: path` finds it: a shim running this repository's build. */
import * as fs from "node:fs";
import * as path from "node:path";

const PLUGIN_BIN = path.resolve(__dirname, "..", "..", "dist", "native", "bin.js");

/** Writes an executable `pulumi-resource-analytics` into `dir` (created if missing) and returns `dir`. */
export function writePluginShim(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN_BIN}" "$@"\n`, { mode: 0o755 });
  return dir;
}
