/**
 * The docs by reader: a user's page of docs/ says what a user does and sees in at most 300 lines
 * (the README's 200 are test/readme.test.ts's); what only maintainers need lives in
 * docs/maintainers/, and CONTRIBUTING's "Maintainers' pages" leads to each of those pages.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { links, section } from "./support/markdown";
import { repoRoot } from "./support/pulumi-workspace";

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const lineCount = (file: string): number => read(file).replace(/\n$/, "").split("\n").length;
const USER_PAGE_LINES = 300;
const pages = (dir: string): string[] =>
  fs
    .readdirSync(path.join(repoRoot, dir))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `${dir}/${f}`);
const userPages = (): string[] => pages("docs");

describe("the docs by reader", () => {
  it(`keeps each user's page of docs/ within ${USER_PAGE_LINES} lines`, () => {
    expect(userPages()).toEqual(expect.arrayContaining(["docs/install.md", "docs/usage.md", "docs/reference-server.md", "docs/native-provider.md"]));
    const long = userPages()
      .map((page) => `${page}: ${lineCount(page)} lines`)
      .filter((entry) => Number(/(\d+) lines$/.exec(entry)?.[1]) > USER_PAGE_LINES);
    expect(long).toEqual([]);
  });

  it("counts lines as an editor shows them", () => {
    const file = "docs/install.md";
    expect(lineCount(file)).toBe(read(file).split("\n").length - 1);
  });

  it("leads from CONTRIBUTING's maintainers' pages to each page of docs/maintainers/", () => {
    const listed = new Set(links(section(read("CONTRIBUTING.md"), "Maintainers' pages") ?? "").map((l) => l.target));
    for (const page of pages("docs/maintainers")) expect(listed, page).toContain(page);
    expect(pages("docs/maintainers").length).toBeGreaterThan(1);
  });

  it("names in the README's documentation each page at the top of docs/ but the Registry's generated two", () => {
    const readme = new Set(links(section(read("README.md"), "Documentation") ?? "").map((l) => l.target.split("#")[0]));
    const generated = ["docs/_index.md", "docs/installation-configuration.md"];
    for (const page of pages("docs").filter((p) => !generated.includes(p))) expect(readme, page).toContain(page);
  });
});
