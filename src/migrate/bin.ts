#!/usr/bin/env node
/**
 * `analytics-migrate-to-native [--in FILE] [--out FILE] [--provider-version VERSION] [--json]`:
 * rewrites `pulumi stack export` output so the stack's `Organization` and `DataSource` resources of
 * the dynamic classes become the native provider's, for `pulumi stack import`. Reads FILE or stdin,
 * writes the rewritten export to --out or stdout and what changed to stderr (URNs, ids and setting
 * names only: secrets stay encrypted and are never printed).
 */
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { MigrationRefusedError, formatSummary, migrateDynamicToNative } from "./dynamic-to-native";

/** Usage text. */
const USAGE = `Usage: pulumi stack export | analytics-migrate-to-native [--out FILE] [--provider-version VERSION] [--json] > migrated.json
       analytics-migrate-to-native --in exported.json --out migrated.json
Then: pulumi stack import --file migrated.json, and switch the program to the native provider.
--provider-version: only when the program pins the native provider's version (a generated SDK does).
--json: the summary as JSON on stderr.
`;

function main(): number {
  const { values } = parseArgs({
    options: { in: { type: "string" }, out: { type: "string" }, "provider-version": { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const source = values.in === undefined || values.in === "-" ? 0 : values.in;
  if (source === 0 && process.stdin.isTTY) throw new TypeError("no input: pipe `pulumi stack export` in, or pass --in FILE.");
  const text = fs.readFileSync(source, "utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MigrationRefusedError("The input is not JSON: expected the output of `pulumi stack export`.");
  }
  const { exported, summary } = migrateDynamicToNative(parsed, { providerVersion: values["provider-version"] });
  const written = `${JSON.stringify(exported, null, 4)}\n`;
  if (values.out === undefined || values.out === "-") process.stdout.write(written);
  else fs.writeFileSync(values.out, written, { mode: 0o600 });
  process.stderr.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
  return 0;
}

try {
  process.exitCode = main();
} catch (error: unknown) {
  const usage = error instanceof TypeError;
  const message = error instanceof MigrationRefusedError || usage ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`analytics-migrate-to-native: ${usage ? `${message}\n${USAGE}` : `refused, nothing written: ${message}\n`}`);
  process.exitCode = usage ? 2 : 1;
}
