/**
 * Scenario T: this package against its peers. OpenTofu with Mastercard's generic REST provider,
 * and the same provider bridged into Pulumi (restapi through Pulumi, YAML), beside the native
 * plugin from YAML and TypeScript and the dynamic classes, each once per N on a fresh reference
 * server (bench/lib/tofu/). Its committed entry also draws the speed table of
 * docs/compared-with-rest-provider.md (bench/lib/tofu/speed-doc.ts).
 */
import * as path from "node:path";
import { rewriteDocBlock, type RunContext } from "../lib/figure";
import { SPEED_TABLE, speedTable, type SpeedMeta } from "../lib/tofu/speed-doc";
import { runTofuScenario, type TofuResult } from "../lib/tofu/tofu";
import { repoRoot } from "../lib/workspace";

export { tofuFigures as figures } from "../lib/tofu/tofu-report";

export async function run({ args, log, toolchain }: RunContext): Promise<TofuResult> {
  const counts = (
    args.plans ??
    (args.quick
      ? [{ count: 10, reps: 1 }]
      : [
          { count: 100, reps: 1 },
          { count: 300, reps: 1 },
        ])
  ).map(({ count, reps }) => {
    if (reps !== 1) throw new Error(`--plans: scenario T runs each side once per N; write ${count}x1`);
    return count;
  });
  return runTofuScenario(await toolchain(), counts, log);
}

export function docs(entry: SpeedMeta & { raw: TofuResult }): void {
  rewriteDocBlock(path.join(repoRoot, "docs", "compared-with-rest-provider.md"), SPEED_TABLE, speedTable(entry.raw, entry));
}
