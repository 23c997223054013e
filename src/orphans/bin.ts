#!/usr/bin/env node
/**
 * `analytics-orphans [--stack NAME] [--json]`: lists every organization and data source the
 * stack has left in the analytics service, from the stack's state history. Run it in the
 * project directory, with the same backend login and environment as `pulumi`.
 */
import { parseArgs } from "node:util";
import { cliRunner, readStackHistory } from "./history";
import { findOrphans, formatOrphans } from "./orphans";

/** Usage text. */
const USAGE = "Usage: analytics-orphans [--stack NAME] [--json]\n";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { stack: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const snapshots = await readStackHistory(cliRunner(process.cwd()), values.stack, process.cwd());
  const orphans = findOrphans(snapshots);
  process.stdout.write(values.json ? `${JSON.stringify(orphans, null, 2)}\n` : formatOrphans(orphans));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`analytics-orphans: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(error instanceof TypeError ? 2 : 1);
  },
);
