#!/usr/bin/env node
/**
 * `npm run demo`: a real `pulumi up` of the root Pulumi.yaml against the embedded reference
 * server and an embedded demo warehouse, then a no-change preview, then clean-up.
 * `npm run demo -- --keep` leaves the reference server and its console running at the end,
 * until Ctrl-C (SIGINT or SIGTERM) stops it and cleans up.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startReferenceServer, type ReferenceServer } from "pulumi-analytics/reference-server";
import { resolvePulumiToolchain, runPulumi, type PulumiToolchain } from "@pulumi-analytics/toolchain";
import { startDemoWarehouse, type DemoWarehouse } from "./demo-warehouse";

const projectDir = path.resolve(__dirname, "..", "..");
const started = Date.now();

function step(text: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\n\u25b6 [${seconds}s] ${text}\n`);
}

async function pulumi(toolchain: PulumiToolchain, args: string[], env: NodeJS.ProcessEnv, echo = true): Promise<string> {
  const result = await runPulumi(toolchain, args, { cwd: projectDir, env, echo });
  if (result.code !== 0) {
    if (!echo) process.stderr.write(result.stdout + result.stderr);
    throw new Error(`\`pulumi ${args.join(" ")}\` exited with code ${result.code}`);
  }
  return result.stdout;
}

/** The command line: `--keep` alone. */
function keepAtEnd(argv: string[]): boolean {
  try {
    return parseArgs({ args: argv, options: { keep: { type: "boolean" } }, strict: true, allowPositionals: false }).values.keep === true;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nUsage: npm run demo [-- --keep]\n`);
    process.exit(2);
  }
}

/** Keeps the server (and the warehouse its data source points at) running until SIGINT or SIGTERM. */
async function keepServing(server: ReferenceServer): Promise<void> {
  step("The reference server keeps running (--keep)");
  process.stdout.write(`  Console: ${server.consoleUrl}\n  Press Ctrl-C to stop it and clean up.\n`);
  const signal = await new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  process.stdout.write(`\n  ${signal} received: stopping the reference server and the demo warehouse\n`);
}

/** A throwaway stack of the root program on a file backend in `work`, pointed at the server and warehouse. */
interface DemoStack {
  work: string;
  stack: string;
  env: NodeJS.ProcessEnv;
  withConfig: string[];
}

function newStack(): DemoStack {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-demo-"));
  const stack = `demo-${randomBytes(3).toString("hex")}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
  };
  fs.mkdirSync(path.join(work, "backend"));
  // The stack's serialized providers load `pulumi-analytics` by name, as in any app that installed
  // it; this checkout is not in its own node_modules, so NODE_PATH lends it one holding a link here.
  fs.mkdirSync(path.join(work, "node_modules"));
  fs.symlinkSync(projectDir, path.join(work, "node_modules", "pulumi-analytics"), "dir");
  env.NODE_PATH = [path.join(work, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
  return { work, stack, env, withConfig: ["--stack", stack, "--config-file", path.join(work, `Pulumi.${stack}.yaml`)] };
}

/** Creates the stack and sets its config: the server's URL and key, the warehouse's address. */
async function configure(toolchain: PulumiToolchain, demo: DemoStack, server: ReferenceServer, apiKey: string, warehouse: DemoWarehouse): Promise<void> {
  const { stack, env, withConfig } = demo;
  step(`Creating stack ${stack} on a local file backend (${demo.work})`);
  await pulumi(toolchain, ["stack", "init", stack], env, false);
  // stack init writes the stack's config next to Pulumi.yaml; keep it in the temp dir instead.
  fs.renameSync(path.join(projectDir, `Pulumi.${stack}.yaml`), path.join(demo.work, `Pulumi.${stack}.yaml`));
  const settings: Array<[string, string, boolean]> = [
    ["analytics:baseUrl", server.url, false],
    ["analytics:apiKey", apiKey, true],
    ["warehouse:host", warehouse.host, false],
    ["warehouse:port", String(warehouse.port), false],
    ["warehouse:databaseName", warehouse.databaseName, false],
    ["warehouse:username", warehouse.username, false],
    ["warehouse:password", warehouse.password, true],
  ];
  for (const [key, value, secret] of settings) {
    await pulumi(toolchain, ["config", "set", ...(secret ? ["--secret"] : []), key, value, ...withConfig], env, false);
  }
}

/** `pulumi up`, the outputs, the sync's result, a no-change preview, then destroy and stack rm. */
async function deploy(toolchain: PulumiToolchain, demo: DemoStack, server: ReferenceServer): Promise<void> {
  const { stack, env, withConfig } = demo;
  step("pulumi up: an organization and a data source for the warehouse");
  await pulumi(toolchain, ["up", "--yes", ...withConfig], env);

  step("Stack outputs");
  const outputs = JSON.parse(await pulumi(toolchain, ["stack", "output", "--json", "--stack", stack], env, false)) as Record<string, string>;
  for (const [key, value] of Object.entries(outputs)) process.stdout.write(`  ${key.padEnd(20)} ${value}\n`);

  step("What the server's background schema sync found");
  const synced = await server.waitForSync(outputs.dataSourceId ?? "");
  process.stdout.write(`  sync ${synced.lastSyncStatus}, health ${synced.lastHealthStatus}${synced.syncErrorMessage ? `: ${synced.syncErrorMessage}` : ""}\n`);
  for (const table of synced.tables ?? []) {
    process.stdout.write(`  ${table.schema}.${table.name}: ${table.columns.map((c) => `${c.name} ${c.type}`).join(", ")}\n`);
  }
  if (synced.lastSyncStatus !== "SUCCEEDED") throw new Error(`the schema sync ended ${synced.lastSyncStatus}`);

  step("pulumi preview --expect-no-changes: the stack matches the program");
  await pulumi(toolchain, ["preview", "--expect-no-changes", ...withConfig], env);

  step("Cleaning up: pulumi destroy (the API cannot delete, so the objects stay in the server) and stack rm");
  await pulumi(toolchain, ["destroy", "--yes", ...withConfig], env);
  await pulumi(toolchain, ["stack", "rm", "--yes", "--stack", stack], env, false);
}

async function main(): Promise<void> {
  const keep = keepAtEnd(process.argv.slice(2));
  step("Finding the Pulumi CLI (the first run builds it from Pulumi's Go modules)");
  const toolchain = await resolvePulumiToolchain();
  process.stdout.write(`  Pulumi ${toolchain.version} (${toolchain.source}): ${toolchain.pulumi}\n`);

  step("Starting the demo warehouse (embedded Postgres)");
  const warehouse = await startDemoWarehouse();
  process.stdout.write(
    `  postgres://${warehouse.username}@${warehouse.host}:${warehouse.port}/${warehouse.databaseName} with tables ${warehouse.tables.join(", ")}\n`,
  );

  step("Starting the reference server and minting an API key");
  const server = await startReferenceServer({ port: 0, bootstrapUsers: ["demo"], inspection: true });
  const apiKey = server.apiKeys.demo;
  if (!apiKey) throw new Error("the reference server did not mint the demo key");
  process.stdout.write(`  ${server.url} (inspection at ${server.url}/_reference/organizations)\n`);
  process.stdout.write(`  Console: ${server.consoleUrl} (open it to watch the stack arrive and its first sync finish)\n`);

  const demo = newStack();
  let deployed = false;
  try {
    await configure(toolchain, demo, server, apiKey, warehouse);
    await deploy(toolchain, demo, server);
    deployed = true;
  } finally {
    fs.rmSync(demo.work, { recursive: true, force: true });
    fs.rmSync(path.join(projectDir, `Pulumi.${demo.stack}.yaml`), { force: true });
    if (!deployed || !keep) await Promise.all([server.close(), warehouse.close()]);
  }
  step(`Demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (!keep) {
    process.stdout.write("  (npm run demo -- --keep leaves the reference server and its console running at the end)\n");
    return;
  }
  await keepServing(server);
  await Promise.all([server.close(), warehouse.close()]);
}

main().catch((error: unknown) => {
  process.stderr.write(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
