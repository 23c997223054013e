import type { TestProject } from "vitest/node";
import { resolveNewestPulumiToolchain, resolvePulumiToolchain, type PulumiToolchain } from "../toolchain/src/pulumi-cli";
import { resolveLocalKms, startKmsServer, type KmsServer, type StackSecrets } from "./support/kms-server";
import { describeProcesses, survivors, vitestProcesses } from "./support/leftover-processes";
import { TEST_RUN_MARKER, newRunId, removeRunFolder } from "./support/test-run.js";
import { TIERS } from "./tiers.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Pulumi CLI every engine test drives, resolved (or built) once per run. */
    pulumiToolchain: PulumiToolchain;
    /** The newest Pulumi CLI the Go module proxy serves, with its hosts, that the compatibility tier runs; or why it could not be built. */
    newestPulumiToolchain: PulumiToolchain | { unavailable: string };
    /** The tier's KMS key that test stacks encrypt their secrets with (test/support/kms-server.ts). */
    stackSecrets: StackSecrets;
  }
}

/**
 * Resolves the real Pulumi CLI once, and the newest one after it, before any worker starts, so
 * parallel files never race to build them (a newest CLI that cannot be built fails only its tests);
 * a tier of test/tiers.js that needs neither (the unit tier) gets neither. A tier that runs the CLI
 * also gets a KMS server for its stacks' secrets (test/support/kms-server.ts), stopped at the end.
 * Marks the environment every worker and every process they start inherit (with the run's id,
 * test/support/test-run.js), and returns the teardown that fails the run when any of those
 * processes is still alive at the end, and removes the run's shared folder when the run is its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // One id for every tier of `npm test` when tools/test-tiers.js passes it; a run of its own otherwise.
  const inherited = process.env[TEST_RUN_MARKER];
  const runId = inherited ?? newRunId();
  process.env[TEST_RUN_MARKER] = runId;
  const tier = TIERS.find((t) => t.name === project.name);
  let kms: KmsServer | undefined;
  if (tier?.engine !== false) {
    const toolchain = await resolvePulumiToolchain();
    process.stderr.write(`[toolchain] using Pulumi ${toolchain.version} (${toolchain.source}): ${toolchain.pulumi}\n`);
    process.stderr.write(`[toolchain] YAML language host: ${toolchain.yamlLanguageHost ?? "none (YAML program tests will fail)"}\n`);
    project.provide("pulumiToolchain", toolchain);
    // Without the run's mark: the setup started it, not a test, and another tier's check for
    // leftovers may run before this tier's teardown stops it.
    const { [TEST_RUN_MARKER]: _mark, ...unmarked } = process.env;
    kms = await startKmsServer(await resolveLocalKms(), unmarked);
    const { secretsProvider, env } = kms;
    project.provide("stackSecrets", { secretsProvider, env });
  }
  if (tier?.newestEngine !== false) project.provide("newestPulumiToolchain", await newestToolchain());
  return async () => {
    await kms?.stop();
    if (inherited === undefined) removeRunFolder(runId);
    const left = await survivors(runId, { exclude: vitestProcesses, graceMs: 5_000 });
    if (left.length === 0) return;
    const report = `${left.length} process(es) started by the test run outlived it (${TEST_RUN_MARKER}=${runId}):\n${describeProcesses(left)}`;
    process.stderr.write(`[leftover processes] ${report}\n`);
    process.exitCode = 1;
    throw new Error(report);
  };
}

/** The newest CLI with its hosts, or why it is not there (its build failed): the compatibility tier reports that. */
async function newestToolchain(): Promise<PulumiToolchain | { unavailable: string }> {
  try {
    const newest = await resolveNewestPulumiToolchain();
    process.stderr.write(`[toolchain] newest CLI for the compatibility tier: Pulumi ${newest.version} (${newest.source}): ${newest.pulumi}\n`);
    return newest;
  } catch (err) {
    const unavailable = err instanceof Error ? err.message : String(err);
    process.stderr.write(`[toolchain] the newest CLI could not be built, so test/languages/compat-newest-cli.test.ts will fail: ${unavailable}\n`);
    return { unavailable };
  }
}
