/**
 * Scenario F: the plugin's start against Node.js's floor. The single file that
 * tools/build-plugin-binary.js makes, against Node.js's own node:http2 floor
 * (bench/fixtures/http2-floor.js) and the script plugin, the release's portable fallback: start to
 * the port line and to the first answered Check, and `pulumi up` of bench/fixtures/native; on
 * linux-x64, the linux-arm64 file under qemu-user from its snapshot against the scripts blob
 * (bench/lib/single-file.ts, bench/lib/single-file-arm64.ts).
 */
import type { RunContext } from "../lib/figure";
import { runSingleFileScenario, SINGLE_FILE_PLANS, type SingleFileResult } from "../lib/single-file";

export { singleFileFigures as figures } from "../lib/single-file";

export async function run({ args, log, toolchain }: RunContext): Promise<SingleFileResult> {
  const plans = args.quick ? [{ count: 1, reps: 1, skipCheckpoints: false }] : SINGLE_FILE_PLANS;
  return runSingleFileScenario(await toolchain(), args.quick ? 2 : 9, plans, log);
}
