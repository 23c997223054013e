/**
 * CONTRIBUTING's layout table and docs/architecture.md's tree name the folders and files of src/ as
 * they are, both name each folder of test/ and tools/, and tools/README.md's tables name each
 * runnable script, each module of tools/lib/ and each folder of tools/pinned/, and nothing else.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { TIERS } from "./tiers.js";
import { repoRoot } from "./support/pulumi-workspace";

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
/** The folders of src/, and its files that are not tests. */
const src = fs.readdirSync(path.join(repoRoot, "src"), { withFileTypes: true });
const folders = src.filter((e) => e.isDirectory()).map((e) => `src/${e.name}/`);
const files = src.filter((e) => e.isFile() && !e.name.endsWith(".test.ts")).map((e) => `src/${e.name}`);

describe("the layout docs", () => {
  it("CONTRIBUTING's table has a row for each folder and top-level file of src/, and names nothing else there", () => {
    const table = read("CONTRIBUTING.md").split("\n").filter((line) => line.startsWith("| `src/"));
    const named = table.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`(src\/[^`]+)`/g)].map((m) => m[1]!));
    expect(named.slice().sort()).toEqual([...folders, ...files].sort());
  });

  it("docs/architecture.md's tree names each folder of src/ and each file of src/native/ and src/native/grpc/", () => {
    const architecture = read("docs/architecture.md");
    for (const folder of folders) expect(architecture, folder).toContain(folder);
    for (const dir of ["native", "native/grpc"]) {
      const modules = fs.readdirSync(path.join(repoRoot, "src", dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
      for (const file of modules) expect(architecture, `src/${dir}/${file}`).toMatch(new RegExp(`(^|[\\s,])${file.replace(".", "\\.")}[\\s,]`, "m"));
    }
    expect(architecture, "src/native/grpc/").toMatch(/^grpc\/ /m);
  });

  const subfolders = (dir: string): string[] => fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${dir}/${e.name}/`);
  /** The first column's code spans of the table rows of `markdown` whose first cell is one. */
  const firstColumn = (markdown: string): string[] => markdown.split("\n").flatMap((line) => /^\| `([^`]+)`/.exec(line)?.[1] ?? []);
  const readme = read("tools/README.md");

  it("CONTRIBUTING and docs/architecture.md name each folder of test/ and tools/, every tier but unit with a folder of its own", () => {
    const folders = [...subfolders("test"), ...subfolders("tools")];
    for (const tier of TIERS.filter((t) => t.name !== "unit")) expect(folders).toContain(`test/${tier.name}/`);
    for (const doc of ["CONTRIBUTING.md", "docs/architecture.md"]) for (const folder of folders) expect(read(doc), `${doc}: ${folder}`).toContain(folder);
  });

  it("tools/README.md's tables name each script of tools/, each module of tools/lib/ and each folder of tools/pinned/, and nothing else", () => {
    const entries = (dir: string, keep: (e: fs.Dirent) => boolean): string[] => fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).filter(keep).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
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
