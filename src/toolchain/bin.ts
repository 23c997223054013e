#!/usr/bin/env node
import { ToolchainError, resolvePulumiToolchain } from "./pulumi-cli";

const usage = `Usage: analytics-pulumi-toolchain [--json]

Finds a Pulumi CLI >= 3.139 ($PULUMI_CLI, then PATH), or builds the pinned engine from
Pulumi's Go modules into the user cache, and prints the directory to put on PATH. It holds
pulumi, the Node.js language host, the dynamic-provider plugin and pulumi-analyzer-policy
(for \`pulumi preview --policy-pack\`); the analyzer's path also goes to stderr.
  --json   print {"pulumi","binDir","version","source","policyAnalyzer"} instead
`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(usage);
    return 0;
  }
  const toolchain = await resolvePulumiToolchain();
  if (!argv.includes("--json")) {
    process.stderr.write(toolchain.policyAnalyzer ? `policy analyzer: ${toolchain.policyAnalyzer}\n` : `no pulumi-analyzer-policy next to ${toolchain.pulumi}: --policy-pack needs one\n`);
  }
  process.stdout.write(argv.includes("--json") ? `${JSON.stringify(toolchain)}\n` : `${toolchain.binDir}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof ToolchainError ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
