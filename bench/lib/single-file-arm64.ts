/**
 * Scenario F's linux-arm64 part, on a linux-x64 machine under qemu-user (as the release builds the
 * file there): the arm64 single file as released (from its start-up snapshot, made by the arm64
 * Node.js under qemu) against the same file made of the scripts blob (how arm64 shipped before),
 * and Node.js's floor run by the arm64 Node.js. Each is started `reps` times after one warm-up,
 * interleaved; the figure is the median of the start to the first answered Check.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { bounded, type Figure } from "./figure";
import { askFirstCheck, askPluginInfo } from "./plugin-calls";
import { HTTP2_FLOOR, interleavedStarts, type Starts } from "./plugin-start";
import { median, round } from "./stats";
import { repoRoot } from "./workspace";

/** What is started: the released file, the scripts-blob file, and the floor. */
export type Arm64Form = "snapshot" | "scripts" | "floor";

/** The released file's first answered Check, at most, in multiples of the scripts-blob file's (medians). */
export const ARM64_SNAPSHOT_TARGET = 0.6;

/** What the arm64 part measured, per form, per start. */
export type Arm64StartResult = Starts<Arm64Form>;

interface BuildModule {
  /** Where qemu-user finds the AArch64 loader and libraries (Debian's arm64 cross packages). */
  ARM64_LIBRARIES: string;
  buildPluginBinaries(out: string, options: { targets: readonly unknown[]; snapshot: boolean }): Promise<Array<{ binary: string }>>;
  targetOf(os: string, arch: string): unknown;
  pinnedBaseNode(building: unknown, log: unknown, target: unknown): Promise<string>;
}

/** tools/build-plugin-binary.js, which builds the arm64 file and knows where its libraries are. */
const buildModule = (): BuildModule => require(path.join(repoRoot, "tools", "build-plugin-binary.js")) as BuildModule;

/** Why this machine cannot run the arm64 part, or undefined when it can. */
export function arm64Unavailable(): string | undefined {
  const build = buildModule();
  const missing = ["ARM64_LIBRARIES", "buildPluginBinaries", "targetOf", "pinnedBaseNode"].filter((name) => !(name in build));
  if (missing.length > 0) return `tools/build-plugin-binary.js exports no ${missing.join(", ")}`;
  const { ARM64_LIBRARIES } = build;
  if (process.platform !== "linux" || process.arch !== "x64") return `it runs on linux-x64 only (this is ${process.platform}-${process.arch})`;
  if (!fs.existsSync("/proc/sys/fs/binfmt_misc/qemu-aarch64"))
    return "the kernel has no qemu-aarch64 binfmt registration (Debian's qemu-user-static, as .ci/run registers it)";
  if (!fs.existsSync(path.join(ARM64_LIBRARIES, "lib", "ld-linux-aarch64.so.1"))) return `${ARM64_LIBRARIES} has no AArch64 loader (libc6-arm64-cross)`;
  return undefined;
}

/** Builds both arm64 files into bench/tmp/plugin-arm64 and starts each form `reps` times, interleaved. */
export async function measureArm64Starts(reps: number, log: (line: string) => void): Promise<Arm64StartResult> {
  const build = buildModule();
  const { THIS_NODE } = require(path.join(repoRoot, "tools", "lib", "single-executable.js")) as { THIS_NODE: unknown };
  const target = build.targetOf("linux", "arm64");
  const out = path.join(repoRoot, "bench", "tmp", "plugin-arm64");
  const [released] = await build.buildPluginBinaries(path.join(out, "snapshot"), { targets: [target], snapshot: true });
  const [scripts] = await build.buildPluginBinaries(path.join(out, "scripts"), { targets: [target], snapshot: false });
  const node = await build.pinnedBaseNode(THIS_NODE, undefined, target);
  log(`built the linux-arm64 file from its snapshot and from the scripts blob; starting each ${reps} times under qemu-user`);
  const env = { ...process.env, QEMU_LD_PREFIX: build.ARM64_LIBRARIES };
  const result = await interleavedStarts<Arm64Form>(
    {
      snapshot: [released!.binary, [], askFirstCheck, env],
      scripts: [scripts!.binary, [], askFirstCheck, env],
      floor: [node, [HTTP2_FLOOR], askPluginInfo, env],
    },
    reps,
  );
  log(
    `arm64 first Check: snapshot ${round(median(result.firstCheckMs.snapshot), 0)} ms, scripts ${round(median(result.firstCheckMs.scripts), 0)} ms, floor ${round(median(result.firstCheckMs.floor), 0)} ms`,
  );
  return result;
}

/** The arm64 part's figure: the released file's first answered Check against the scripts-blob file's, or why it was not measured. */
export function arm64Figures(result: Arm64StartResult | { skipped: string }): Figure[] {
  if ("skipped" in result)
    return [{ scenario: "F", name: "linux-arm64 under qemu-user: not measured", value: result.skipped, target: `≤ ${ARM64_SNAPSHOT_TARGET}×`, status: "info" }];
  const [a, b] = [median(result.firstCheckMs.snapshot), median(result.firstCheckMs.scripts)];
  const name = `linux-arm64 under qemu-user, start to first answered Check (${result.firstCheckMs.snapshot.length} starts each): from its snapshot ${round(a, 1)} ms / from the scripts blob ${round(b, 1)} ms (medians)`;
  return [bounded("F", name, a / b, "≤", ARM64_SNAPSHOT_TARGET)];
}
