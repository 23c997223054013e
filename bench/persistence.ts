#!/usr/bin/env node
/**
 * Scenario P alone (`npm run bench:persistence`): the create rate with `--state` against memory,
 * empty and at 10,000 data sources, beside the disk's bare append + fdatasync loop, and start-up
 * on 100,000. Prints the figures; writes nothing (`node bench/dist/run.js P` writes them into latest.md).
 * `--quick` is a smoke run.
 */
import { persistencePlan, runPersistenceScenario } from "./lib/persistence";
import { persistenceFigures } from "./lib/report";

const quick = process.argv.includes("--quick");
const started = Date.now();
const log = (line: string): void => void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

runPersistenceScenario(persistencePlan(quick), log).then(
  (result) => {
    for (const f of persistenceFigures(result)) log(`${f.status.padEnd(4)} ${f.scenario} ${f.name}: ${f.value} (target ${f.target})`);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
