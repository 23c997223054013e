/**
 * Scenario F: the plugin's start against Node.js's floor. The single file that
 * tools/build-plugin-binary.js makes, against Node.js's own node:http2 floor
 * (bench/fixtures/http2-floor.js) and the script plugin, the release's portable fallback: start to
 * the port line and to the first answered Check; on linux-x64, the linux-arm64 file under
 * qemu-user from its snapshot against the scripts blob (bench/lib/single-file.ts,
 * bench/lib/single-file-arm64.ts).
 */
import type { RunContext } from "../lib/figure";
import { runSingleFileScenario, type SingleFileResult } from "../lib/single-file";

export { singleFileFigures as figures } from "../lib/single-file";

export function run({ args, log }: RunContext): Promise<SingleFileResult> {
  return runSingleFileScenario(args.quick ? 2 : 9, log);
}
