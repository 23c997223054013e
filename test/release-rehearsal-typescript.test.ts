/**
 * Release rehearsal, TypeScript on the native types: a fresh project outside the repository (as
 * `pulumi new typescript` lays one out) importing `@pulumi-analytics/analytics`, which
 * `npm install <release>/pulumi-analytics-analytics-<version>.tgz` installs beside the
 * `@pulumi/pulumi`, `typescript` and `@types/node` the repository's lock pins; run by the real CLI
 * with an empty PULUMI_HOME (node stays on PATH: the program needs it, the plugin does not); the
 * engine learns the plugin and its server from the package's `pulumi` block and fetches the
 * single-file plugin from the served release folder by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { npm } from "./packed/packed-app";
import { repoRoot } from "./support/pulumi-workspace";
import { runLifecycle, startRehearsal, PLUGIN_DOWNLOAD_URL, VERSION, type Rehearsal } from "./support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
const TARBALL = `pulumi-analytics-analytics-${VERSION}.tgz`;
const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
/** The versions of `names` the repository's lock pins, as a package.json's dependencies. */
const locked = (...names: string[]) => Object.fromEntries(names.map((name) => [name, lock.packages[`node_modules/${name}`]!.version]));

const PROJECT = `name: analytics-rehearsal-typescript
runtime: nodejs
config:
  dbHost:
    type: string
  dbUser:
    type: string
  dbPassword:
    type: string
    secret: true
`;

const TSCONFIG = {
  compilerOptions: { strict: true, outDir: "bin", target: "es2020", module: "commonjs", moduleResolution: "node", sourceMap: true, forceConsistentCasingInFileNames: true },
  files: ["index.ts"],
};

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as analytics from "@pulumi-analytics/analytics";

const config = new pulumi.Config();
const acme = new analytics.Organization("acme", { name: "Acme" });
const warehouse = new analytics.DataSource("warehouse", {
    orgId: acme.id,
    type: "direct",
    dialect: "POSTGRES",
    displayName: "Warehouse",
    host: config.require("dbHost"),
    port: 5432,
    databaseName: "analytics",
    username: config.require("dbUser"),
    password: config.requireSecret("dbPassword"),
});
export const dataSourceId = warehouse.id;
`;

describe("the release, as a TypeScript user installs the native types", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      keepNode: true,
      writeProject: (dir) => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
        const manifest = { name: "analytics-rehearsal-typescript", main: "index.ts", dependencies: locked("@pulumi/pulumi"), devDependencies: locked("typescript", "@types/node") };
        fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
        fs.writeFileSync(path.join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
        fs.writeFileSync(path.join(dir, "index.ts"), PROGRAM);
      },
    });
    await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", path.join(r.release, TARBALL)], r.ws.programDir);
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("installs the package with its pulumi block naming the plugin and the schema's download URL", () => {
    const installed = JSON.parse(fs.readFileSync(path.join(r.ws.programDir, "node_modules", "@pulumi-analytics", "analytics", "package.json"), "utf8")) as { pulumi: unknown };
    expect(installed.pulumi).toEqual({ resource: true, name: "analytics", version: VERSION, server: PLUGIN_DOWNLOAD_URL });
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 900_000);
});
