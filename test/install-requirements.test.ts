/**
 * The Go the README and docs/install.md ask for is the Go the toolchain's modules need: the demo's
 * figure is the highest `go` directive of the modules of the pinned engine and its hosts
 * (toolchain/go/*, the `-newest` ones aside), `npm test`'s the highest of every module there,
 * since its languages and release tiers build the newest CLI too, whatever CLI is installed, and
 * of the tools of tools/pinned/ that the tiers and the bench build (BuildKit's, for the image).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { minimumGoVersion } from "../toolchain/src/go-build";
import { compareVersions } from "../toolchain/src/versions";
import { repoRoot } from "./support/pulumi-workspace";

const GO_MODULES = path.join(repoRoot, "toolchain", "go");
const PINNED_TOOLS = path.join(repoRoot, "tools", "pinned");
/** The folders of `root` that hold a Go module. */
const goModules = (root: string): string[] =>
  fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, "go.mod")))
    .map((name) => path.join(root, name));
const modules = goModules(GO_MODULES);
const highestGo = (dirs: readonly string[]): string =>
  dirs
    .map((dir) => minimumGoVersion(dir))
    .sort(compareVersions)
    .at(-1)!;
const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8").replace(/\s+/g, " ");

const forTests = highestGo([...modules, ...goModules(PINNED_TOOLS)]);
const forDemo = highestGo(modules.filter((dir) => !dir.endsWith("-newest")));

describe("the Go the quick start asks for", () => {
  it("is read from the toolchain's go.mod files, the newest CLI's among them", () => {
    expect(modules).toEqual(expect.arrayContaining([path.join(GO_MODULES, "pulumi"), path.join(GO_MODULES, "pulumi-newest")]));
    expect(goModules(PINNED_TOOLS)).toContain(path.join(PINNED_TOOLS, "buildkit"));
    expect(compareVersions(forTests, forDemo)).toBeGreaterThanOrEqual(0);
  });

  it("is, in the README's requirement line, the demo's and npm test's", () => {
    const line = read("README.md").match(/They need Node\.js [^.]*\.[^\n]*?whatever CLI is installed\./)?.[0] ?? "";
    expect(line).toContain(`a Pulumi CLI >= 3.139 on PATH or Go >= ${forDemo} to build one`);
    expect(line).toContain(`\`npm test\` needs Go >= ${forTests}`);
  });

  it("is, in docs/install.md's quick start, the demo's and npm test's", () => {
    const doc = read("docs/install.md");
    expect(doc).toContain(`**or** Go >= ${forDemo} with access to the Go module proxy`);
    expect(doc).toContain(`\`npm test\` needs Go >= ${forTests} with access to the Go module proxy, whatever CLI is installed`);
    expect(doc).toContain(`module needs Go ${forTests}.`);
  });
});
