/**
 * Release rehearsal, TypeScript on the native types: both npm tarballs of the release
 * (`pulumi-analytics`, `@pulumi-analytics/analytics`) as the release workflow's npm job published
 * them (`tools/publish.js npm`, to Verdaccio on 127.0.0.1 in the release run), served again by
 * Verdaccio; then a fresh project outside the repository (as `pulumi new typescript` lays one out)
 * runs the README's `npm install @pulumi-analytics/analytics` with the scope's registry set to
 * that Verdaccio in the project's .npmrc (only the registry address differs), beside the
 * `@pulumi/pulumi`, `typescript` and `@types/node` the repository's lock pins; examples/typescript
 * (its Pulumi.yaml, tsconfig.json, index.ts and build script) is the program, compiled with
 * `npm run build` as its README says, run by the real CLI
 * with an empty PULUMI_HOME (node stays on PATH: the program needs it, the plugin does not); the
 * engine learns the plugin and its server from the package's `pulumi` block and fetches the
 * single-file plugin from the served release folder by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createHash } from "node:crypto";
import { npmPackages } from "../../tools/publish.js";
import { npm } from "./packed/packed-app";
import { repoRoot } from "../support/pulumi-workspace";
import type { RegistryServer } from "../support/registries";
import { sharedReleaseRun } from "../support/release-folder";
import { servePublishedNpm } from "../support/release-run-registries";
import { copyExample, renameInFile, runLifecycle, startRehearsal, PLUGIN_DOWNLOAD_URL, VERSION, type Rehearsal } from "../support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
/** The package of the native types, the one a TypeScript program on the plugin installs. */
const SDK = npmPackages().find((p) => p.name.startsWith("@"))!;
/** npm's integrity string of a file. */
const integrity = (file: string) => `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
/** The versions of `names` the repository's lock pins, as a package.json's dependencies. */
const locked = (...names: string[]) => Object.fromEntries(names.map((name) => [name, lock.packages[`node_modules/${name}`]!.version]));

describe("the release, as a TypeScript user installs the native types", () => {
  let r: Rehearsal;
  let registry: RegistryServer;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      keepNode: true,
      writeProject: (dir) => {
        copyExample("typescript", dir, ["Pulumi.yaml", "tsconfig.json", "index.ts"]);
        // The example's build script (it runs compiled), beside the versions the repository's lock pins.
        const { scripts } = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "typescript", "package.json"), "utf8")) as {
          scripts: Record<string, string>;
        };
        const manifest = {
          name: "analytics-rehearsal-typescript",
          scripts,
          dependencies: locked("@pulumi/pulumi"),
          devDependencies: locked("typescript", "@types/node"),
        };
        fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
      },
    });
    registry = await servePublishedNpm(await sharedReleaseRun(), path.join(r.scratch, "verdaccio"));
    fs.writeFileSync(path.join(r.ws.programDir, ".npmrc"), `${SDK.name.split("/")[0]}:registry=${registry.url}\n`);
    await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", SDK.name], r.ws.programDir);
    // As the example's README says: `npm install && npm run build && pulumi up`.
    await npm(["run", "build"], r.ws.programDir);
  }, 900_000);

  afterAll(async () => {
    await registry?.close();
    await r?.close();
  });

  it("serves both tarballs of the release as the release workflow published them, byte for byte", async () => {
    for (const { name, tarball } of npmPackages()) {
      const { stdout } = await npm(["view", `${name}@${VERSION}`, "dist.integrity", "--registry", registry.url], r.scratch);
      expect(stdout.trim(), name).toBe(integrity(path.join(r.release, tarball)));
    }
  });

  it("installs the package from the registry, with its pulumi block naming the plugin and the schema's download URL", () => {
    const installed = JSON.parse(fs.readFileSync(path.join(r.ws.programDir, "node_modules", ...SDK.name.split("/"), "package.json"), "utf8")) as {
      pulumi: unknown;
    };
    expect(installed.pulumi).toEqual({ resource: true, name: "analytics", version: VERSION, server: PLUGIN_DOWNLOAD_URL });
    // The lock records the tarball npm took (its `resolved` URL only where npm's config keeps registry URLs in locks).
    const lock = JSON.parse(fs.readFileSync(path.join(r.ws.programDir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; integrity: string }>;
    };
    const entry = lock.packages[`node_modules/${SDK.name}`]!;
    if (entry.resolved) expect(entry.resolved.startsWith(registry.url)).toBe(true);
    expect(entry.integrity).toBe(integrity(path.join(r.release, SDK.tarball)));
    expect(JSON.parse(fs.readFileSync(path.join(r.ws.programDir, "package.json"), "utf8")).dependencies[SDK.name]).toBe(`^${VERSION}`);
  });

  it("runs examples/typescript: fetches the plugin from the release by itself, previews, creates, replaces a rename, refuses an import and destroys", async () => {
    // A rename is an edit of index.ts, built again before the up, as the user builds it.
    const edit = renameInFile(path.join(r.ws.programDir, "index.ts"));
    const rename = async (renamed: string): Promise<void> => {
      edit(renamed);
      await npm(["run", "build"], r.ws.programDir);
    };
    await runLifecycle(r, { rename });
  }, 900_000);
});
