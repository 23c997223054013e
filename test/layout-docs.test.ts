/**
 * One listing of the repository's folders: CONTRIBUTING's layout table names each folder at the
 * repository's top and each folder of test/, tools/ and docs/, and nothing that is not there;
 * docs/maintainers/architecture.md and tools/README.md link to it rather than list them again.
 * docs/maintainers/architecture.md lays out src/ (each folder and top-level file, and each file of src/native/
 * and src/native/grpc/), which CONTRIBUTING names as one row; tools/README.md's tables name each
 * runnable script, each module of tools/lib/ and each folder of tools/pinned/, and nothing else.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { links } from "./support/markdown";
import { TIERS } from "./tiers.js";
import { repoRoot } from "./support/pulumi-workspace";

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
/** The folders of src/, and its files that are not tests. */
const src = fs.readdirSync(path.join(repoRoot, "src"), { withFileTypes: true });
const folders = src.filter((e) => e.isDirectory()).map((e) => `src/${e.name}/`);
const files = src.filter((e) => e.isFile() && !e.name.endsWith(".test.ts")).map((e) => `src/${e.name}`);

const subfolders = (dir: string): string[] =>
  fs
    .readdirSync(path.join(repoRoot, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}/`);
/** The first column's code spans of the table rows of `markdown` whose first cell is one. */
const firstColumn = (markdown: string): string[] => markdown.split("\n").flatMap((line) => /^\| `([^`]+)`/.exec(line)?.[1] ?? []);
/** Every code span in the first cell of a table row of `markdown`. */
const firstCells = (markdown: string): string[] =>
  markdown.split("\n").flatMap((line) => (line.startsWith("| `") ? [...(line.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!) : []));
/** The folders at the repository's top that hold a file git tracks. */
const topFolders = (): string[] => {
  const tracked = execFileSync("git", ["ls-files"], { cwd: repoRoot, encoding: "utf8" }).split("\n");
  return [...new Set(tracked.filter((f) => f.includes("/")).map((f) => `${f.split("/")[0]}/`))];
};
const readme = read("tools/README.md");
const layout = (): string => {
  const text = read("CONTRIBUTING.md");
  const start = text.indexOf("\n## Repository layout\n");
  expect(start, "CONTRIBUTING.md: ## Repository layout").toBeGreaterThan(0);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
};

describe("the layout docs", () => {
  it("CONTRIBUTING's layout names each folder at the top, of test/, tools/ and docs/, every tier but unit with a folder of its own", () => {
    const named = firstCells(layout());
    const wanted = [...topFolders(), ...subfolders("test"), ...subfolders("tools"), ...subfolders("docs").filter((f) => f !== "docs/assets/")];
    for (const tier of TIERS.filter((t) => t.name !== "unit")) expect(wanted).toContain(`test/${tier.name}/`);
    expect(wanted).toContain("src/");
    for (const folder of wanted) expect(named, `CONTRIBUTING.md's layout: ${folder}`).toContain(folder);
  });

  it("CONTRIBUTING's layout names nothing that is not there, and no folder of src/ (docs/maintainers/architecture.md lays those out)", () => {
    const named = firstCells(layout());
    for (const entry of named) expect(fs.existsSync(path.join(repoRoot, entry)), entry).toBe(true);
    expect(named.filter((entry) => entry.startsWith("src/") && entry !== "src/")).toEqual([]);
  });

  it("docs/maintainers/architecture.md names each folder and top-level file of src/, and each file of src/native/ and src/native/grpc/", () => {
    const architecture = read("docs/maintainers/architecture.md");
    for (const entry of [...folders, ...files]) expect(architecture, entry).toContain(entry);
    for (const dir of ["native", "native/grpc"]) {
      const modules = fs.readdirSync(path.join(repoRoot, "src", dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
      for (const file of modules) expect(architecture, `src/${dir}/${file}`).toMatch(new RegExp(`(^|[\\s,])${file.replace(".", "\\.")}[\\s,]`, "m"));
    }
    expect(architecture, "src/native/grpc/").toMatch(/^grpc\/ /m);
  });

  it("docs/maintainers/architecture.md and tools/README.md list no folders of the repository again: they link to CONTRIBUTING's layout", () => {
    /** A line that starts a tree entry or a table row with a folder's path (src/'s are architecture.md's to lay out). */
    const listing = /^(?:\| `|[ \t]*)(?!src\/)(?:[\w.-]+\/)+[\w.-]+\/(?:`|[ \t])/;
    for (const doc of ["docs/maintainers/architecture.md", "tools/README.md"]) {
      expect(
        links(read(doc)).map((l) => l.target),
        doc,
      ).toContain(`${path.posix.relative(path.posix.dirname(doc), "CONTRIBUTING.md")}#repository-layout`);
      expect(
        read(doc)
          .split("\n")
          .filter((line) => listing.test(line)),
        doc,
      ).toEqual([]);
    }
  });

  it("tools/README.md's tables name each script of tools/, each module of tools/lib/ and each folder of tools/pinned/, and nothing else", () => {
    const entries = (dir: string, keep: (e: fs.Dirent) => boolean): string[] =>
      fs
        .readdirSync(path.join(repoRoot, dir), { withFileTypes: true })
        .filter(keep)
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    const scripts = entries("tools", (e) => e.isFile() && e.name.endsWith(".js"));
    const modules = entries("tools/lib", (e) => e.isFile());
    const pinned = entries("tools/pinned", (e) => e.isDirectory());
    expect(firstColumn(readme).sort()).toEqual([...scripts, ...modules, ...pinned].sort());
    expect(scripts.length).toBeGreaterThan(15);
  });

  it("keeps tools/ for scripts that run and tools/lib/ for modules that never do", () => {
    const usage = (file: string): string => /^ *(?:\*|\/\/) Usage: (.+)$/m.exec(read(file))?.[1] ?? "";
    for (const script of fs.readdirSync(path.join(repoRoot, "tools")).filter((f) => f.endsWith(".js"))) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${script}\``)) ?? "";
      expect(row, script).toContain(`node tools/${script}`.replace("node tools/release.js", "npm run release"));
    }
    for (const module of fs.readdirSync(path.join(repoRoot, "tools/lib")).filter((f) => f.endsWith(".js"))) {
      expect(read(`tools/lib/${module}`), module).not.toMatch(/require\.main === module/);
      expect(usage(`tools/lib/${module}`), module).toBe("");
    }
  });
});
