import { describe, expect, it } from "vitest";
import { fencedBlocks, githubSlug, headings, links, section, withoutCodeBlocks } from "./markdown";

describe("githubSlug", () => {
  it.each([
    ["Quick start", "quick-start"],
    ["Node.js", "nodejs"],
    ["How it behaves: a create-only API", "how-it-behaves-a-create-only-api"],
    ["Inspection (non-public)", "inspection-non-public"],
    ["An interrupted `pulumi up` [5]", "an-interrupted-pulumi-up-5"],
    ["Stacks of hundreds of resources: the program's stack traces off", "stacks-of-hundreds-of-resources-the-programs-stack-traces-off"],
    ["A runner that died mid-create: `ANALYTICS_AMBIGUOUS_CREATE`", "a-runner-that-died-mid-create-analytics_ambiguous_create"],
    ["**Bold** and [a link](x.md)", "bold-and-a-link"],
    ["Two  spaces", "two--spaces"],
    ["Café, naïve", "café-naïve"],
  ])("%s → %s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe("headings", () => {
  it("numbers repeated anchors and skips code blocks", () => {
    const page = "# Title\n## Usage\n```sh\n# a comment\n```\n## Usage\n~~~\n## not one\n~~~\n### Usage ###\n";
    expect(headings(page)).toEqual([
      { level: 1, text: "Title", anchor: "title" },
      { level: 2, text: "Usage", anchor: "usage" },
      { level: 2, text: "Usage", anchor: "usage-1" },
      { level: 3, text: "Usage", anchor: "usage-2" },
    ]);
  });
});

describe("section", () => {
  const page = "# A\nintro\n## B\nb text\n```sh\n# not a heading\n```\n### C\nc text\n## D\nd text\n";
  it.each([
    ["B", "## B\nb text\n```sh\n# not a heading\n```\n### C\nc text"],
    ["C", "### C\nc text"],
    ["D", "## D\nd text\n"],
    ["A", page.trimEnd() + "\n"],
    ["E", undefined],
  ])("%s", (heading, body) => {
    expect(section(page, heading)).toBe(body);
  });
});

describe("links", () => {
  it("finds inline links, images and definitions with their lines, not those in code", () => {
    const page = [
      'See [a](docs/a.md#x) and ![logo](assets/logo.svg "Logo").',
      "`[not](code.md)` but [b](<b c.md>)",
      "```md",
      "[nor](fenced.md)",
      "```",
      "[ref]: https://example.com/ref",
    ].join("\n");
    expect(links(page)).toEqual([
      { target: "docs/a.md#x", line: 1 },
      { target: "assets/logo.svg", line: 1 },
      { target: "b c.md", line: 2 },
      { target: "https://example.com/ref", line: 6 },
    ]);
  });

  it("keeps line numbers when code blocks are blanked", () => {
    expect(withoutCodeBlocks("a\n```\nb\n```\nc").split("\n")).toEqual(["a", "", "", "", "c"]);
  });
});

describe("fencedBlocks", () => {
  it("gives each block's language and code, a list item's indentation taken off and the code's own kept", () => {
    const page = ["1. Step:", "", "   ```ts", "       a: 1,", "   ```", "", "```sh", "npm test", "```", "~~~", "x", "~~~"].join("\n");
    expect(fencedBlocks(page)).toEqual([
      { language: "ts", body: "    a: 1," },
      { language: "sh", body: "npm test" },
      { language: "", body: "x" },
    ]);
  });

  it("ends a block only at a fence of its own kind, at least as long, with no language", () => {
    expect(fencedBlocks(["````md", "```ts", "x", "```", "````"].join("\n"))).toEqual([{ language: "md", body: "```ts\nx\n```" }]);
  });
});
