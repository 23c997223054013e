/**
 * Scenario N: the native provider plugin (`pulumi-resource-analytics`, dist/native/bin.js) against
 * the dynamic floor. bench/fixtures/native declares the same Organization and N DataSources as
 * bench/fixtures/ours by type token; the plugin checks every input, sends each create to the
 * reference server and keeps the credentials secret. Same machinery as scenarios A-C
 * ({@link compareWithFloor}): one reference server, the two programs interleaved repetition by
 * repetition, checkpoints on (what users get by default).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { compareWithFloor, FLOOR, type Comparison, type EnginePlan, type Subject } from "./engine";
import { repoRoot } from "./workspace";

/** The programs of scenario N. */
export type NativeVariant = "native" | "floor";

/** Everything scenario N measured. */
export type NativeResult = Comparison<NativeVariant>;

/** The plugin the fixture's Pulumi.yaml points at (`plugins: providers: path: ./plugin-bin`). */
export const NATIVE_BIN = path.join(repoRoot, "dist", "native", "bin.js");

/** The native program: its copy gets a `pulumi-resource-analytics` shim exec'ing this repository's build. */
export const NATIVE: Subject = {
  fixture: path.join(repoRoot, "bench", "fixtures", "native"),
  // The shim execs node, so the plugin process's command line is `node …/dist/native/bin.js <engine>`.
  providerMarker: path.join("dist", "native", "bin.js"),
  prepare(ws) {
    if (!fs.existsSync(NATIVE_BIN)) throw new Error(`${NATIVE_BIN} is missing: run npm run build first.`);
    const dir = path.join(ws.programDir, "plugin-bin");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec "${process.execPath}" "${NATIVE_BIN}" "$@"\n`, { mode: 0o755 });
  },
};

/** Runs scenario N for every plan (checkpoints as the plan says); `log` gets progress lines. */
export function runNativeScenario(toolchain: PulumiToolchain, plans: readonly EnginePlan[], log: (line: string) => void): Promise<NativeResult> {
  return compareWithFloor<NativeVariant>(toolchain, { native: NATIVE, floor: FLOOR }, "native", plans, log);
}
