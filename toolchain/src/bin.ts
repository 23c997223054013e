#!/usr/bin/env node
import * as path from "node:path";
import { ToolchainError, resolvePulumiToolchain, toolchainPathDirs } from "./pulumi-cli";

const usage = `Usage: analytics-pulumi-toolchain [--json]   (in this repository: npm run --silent toolchain -- [--json])

Finds a Pulumi CLI >= 3.139 ($PULUMI_CLI, then PATH), or builds the pinned engine from
Pulumi's Go modules into the user cache, and prints the directory to put on PATH. It holds
pulumi, the Node.js language host, the dynamic-provider plugin, pulumi-analyzer-policy
(for \`pulumi preview --policy-pack\`) and the YAML, Go, Python and Java language hosts; the
analyzer's path also goes to stderr. When an installed CLI lacks a host, the one built into the
cache lives in a directory of its own, printed after the CLI's (dir:dir).
  --json   print {"pulumi","binDir","version","source","policyAnalyzer","yamlLanguageHost",
           "goLanguageHost","pythonLanguageHost","dotnetGenerator","javaLanguageHost"} instead
`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(usage);
    return 0;
  }
  const toolchain = await resolvePulumiToolchain();
  if (!argv.includes("--json")) {
    process.stderr.write(
      toolchain.policyAnalyzer
        ? `policy analyzer: ${toolchain.policyAnalyzer}\n`
        : `no pulumi-analyzer-policy next to ${toolchain.pulumi}: --policy-pack needs one\n`,
    );
  }
  process.stdout.write(argv.includes("--json") ? `${JSON.stringify(toolchain)}\n` : `${toolchainPathDirs(toolchain).join(path.delimiter)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof ToolchainError ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
