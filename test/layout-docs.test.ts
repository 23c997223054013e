/** CONTRIBUTING's layout table and docs/architecture.md's tree name the folders and files of src/ as they are. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
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
});
