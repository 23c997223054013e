/**
 * The Windows single files (the plugin's, the reference server's) under Debian's Wine 8
 * (`wine64`), where V8 stops at start because Wine lacks the placeholder reservations of
 * VirtualAlloc2 that V8 takes whenever Windows exports it: a copy differing in one byte, the name
 * V8 looks that function up by, takes V8's path for Windows without it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";

/** Debian's wine64 (the `wine` package would put it on PATH; wine64 alone does not). */
export const WINE = "/usr/lib/wine/wine64";

/**
 * A Wine prefix of its own in `dir`, saying Windows 10 (Node.js refuses older Windows), with no Mono
 * or Gecko to offer; returns the environment that runs in it. Node.js's compile cache, which the
 * suite sets for the Linux processes (tools/test-tiers.js), is left out: its folder is a Linux path.
 */
export function winePrefix(dir: string): NodeJS.ProcessEnv {
  if (!fs.existsSync(WINE)) throw new Error(`${WINE} is missing: install Debian's wine64 (as .ci/run does)`);
  const { NODE_COMPILE_CACHE: _linuxPath, ...inherited } = process.env;
  const env = { ...inherited, WINEPREFIX: path.join(dir, "prefix"), WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };
  execFileSync(WINE, ["winecfg", "/v", "win10"], { env, stdio: "ignore", timeout: 300_000 });
  return env;
}

/** Ends the prefix's wineserver and what runs in it. */
export function stopWine(env: NodeJS.ProcessEnv): void {
  spawnSync(path.join(path.dirname(WINE), "wineserver"), ["-k"], { env, timeout: 60_000 });
}

/** How many times {@link retryingSilentEnds} starts a run under Wine. */
export const WINE_STARTS = 3;

/**
 * What a smoke step reports when the process ended without a word: a run that printed nothing and
 * exited (`exited 1: `), `--version` that printed nothing, or a start that ended before its first
 * line with nothing on stderr. Any of these that also names what was printed is not silent.
 */
const SILENT_END = /(?:exited \(?\w+\)?(?: before (?:printing its port|listening))?: ?$)|^--version printed "", not /;

/**
 * Runs `run` (smoke steps of a Windows file under Wine), again when a start ended silently, up to
 * {@link WINE_STARTS} times: Wine 8 at times ends a process at its start before it has run or
 * printed anything (seen with the file as shipped, whose V8 stops at once, and, on a loaded machine,
 * with the copy that serves). A failure that says anything, or a silent end at every start, fails.
 */
export async function retryingSilentEnds<T>(run: () => Promise<T>, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<T> {
  for (let start = 1; ; start++) {
    try {
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (start >= WINE_STARTS || !SILENT_END.test(message)) throw error;
      log(`[wine] start ${start} of ${WINE_STARTS} ended with nothing printed (${message}); starting again`);
    }
  }
}

/** Writes `copy`, `shipped` with only the name V8 looks VirtualAlloc2 up by changed (one byte), after checking that name occurs once. */
export function withoutVirtualAlloc2(shipped: string, copy: string): string {
  const bytes = fs.readFileSync(shipped);
  const at = bytes.indexOf("VirtualAlloc2\0");
  expect([at > 0, bytes.indexOf("VirtualAlloc2\0", at + 1)]).toEqual([true, -1]);
  const patched = Buffer.from(bytes);
  patched.write("X", at + "VirtualAlloc".length);
  fs.writeFileSync(copy, patched, { mode: 0o755 });
  return copy;
}
