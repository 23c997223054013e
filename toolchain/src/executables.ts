/** Finding executables on PATH and putting built ones beside `pulumi`, where the CLI looks for its bundled plugins. */
import * as fs from "node:fs";
import * as path from "node:path";

/** The first executable `name` in a directory of `env.PATH`; undefined when there is none. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Puts `host` at `engineBinDir/name` as a hard link (a copy where linking fails), so the CLI finds
 * it next to itself, with no "from $PATH" warning, and the engine's cache entry is not rebuilt. A
 * link to another build (the module changed) is replaced.
 */
export function linkBeside(engineBinDir: string, host: string, name: string): string {
  const link = path.join(engineBinDir, name);
  const want = fs.statSync(host);
  const have = fs.statSync(link, { throwIfNoEntry: false });
  const same = have && ((have.ino === want.ino && have.dev === want.dev) || (have.size === want.size && have.mtimeMs === want.mtimeMs));
  if (!same) {
    // Made beside and renamed, so a concurrent CLI never finds the name missing or half written.
    const staging = `${link}.tmp-${process.pid}`;
    fs.rmSync(staging, { force: true });
    try {
      fs.linkSync(host, staging);
    } catch {
      fs.copyFileSync(host, staging);
      fs.chmodSync(staging, 0o755);
      fs.utimesSync(staging, want.atime, want.mtime);
    }
    fs.renameSync(staging, link);
  }
  return link;
}
