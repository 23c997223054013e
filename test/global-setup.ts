import type { TestProject } from "vitest/node";
import { resolvePulumiToolchain, type PulumiToolchain } from "../src/toolchain/pulumi-cli";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Pulumi CLI every engine test drives, resolved (or built) once per run. */
    pulumiToolchain: PulumiToolchain;
  }
}

/** Resolves the real Pulumi CLI once, before any worker starts, so parallel files never race to build it. */
export default async function setup(project: TestProject): Promise<void> {
  const toolchain = await resolvePulumiToolchain();
  process.stderr.write(`[toolchain] using Pulumi ${toolchain.version} (${toolchain.source}): ${toolchain.pulumi}\n`);
  process.stderr.write(`[toolchain] YAML language host: ${toolchain.yamlLanguageHost ?? "none (YAML program tests will fail)"}\n`);
  project.provide("pulumiToolchain", toolchain);
}
