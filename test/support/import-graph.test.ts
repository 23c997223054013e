import { describe, expect, it } from "vitest";
import { backArrows, buildImportGraph, findCycles, forbiddenImports, formatCycle, importSpecifiers, type ImportGraph } from "./import-graph";

/** A fake project: file → source. */
const project = (files: Record<string, string>) => buildImportGraph(new Map(Object.entries(files)));

describe("importSpecifiers", () => {
  it("reads every kind of import, type-only ones and re-exports included, and nothing from comments, strings or regexes", () => {
    const source = [
      `// import { fake } from "./line-comment";`,
      `/** {@link import("./doc-comment")} */`,
      `import type { A } from "./type-only";`,
      `import { B } from "./value";`,
      `import "./side-effect";`,
      `export { C } from "./re-export";`,
      `export * from "./star";`,
      `import D = require("./import-equals");`,
      `const quote = /"/g; import { E } from "./after-regex";`,
      `const text = 'from "./in-string"';`,
      `const lazy = require("./required") as typeof import("./type-query");`,
      `async function later() { return import("./dynamic"); }`,
    ].join("\n");
    expect(importSpecifiers(source)).toEqual([
      "./type-only",
      "./value",
      "./side-effect",
      "./re-export",
      "./star",
      "./import-equals",
      "./after-regex",
      "./required",
      "./type-query",
      "./dynamic",
    ]);
  });
});

describe("buildImportGraph", () => {
  it("resolves ./x, ../x and ./x/index, skips packages, and reports specifiers that name no file", () => {
    const { graph, unresolved } = project({
      "src/a.ts": `import { b } from "./b"; import { c } from "./c"; import { z } from "zod"; import "./missing";`,
      "src/b.ts": `export const b = 1;`,
      "src/c/index.ts": `export { d } from "../d/d";`,
      "src/d/d.ts": `export const d = 1;`,
    });
    expect(Object.fromEntries(graph)).toEqual({
      "src/a.ts": ["src/b.ts", "src/c/index.ts"],
      "src/b.ts": [],
      "src/c/index.ts": ["src/d/d.ts"],
      "src/d/d.ts": [],
    });
    expect(unresolved).toEqual([`src/a.ts: "./missing"`]);
  });
});

describe("findCycles", () => {
  const cases: Array<{ name: string; files: Record<string, string>; cycles: string[] }> = [
    { name: "no cycle", files: { "a.ts": `import "./b";`, "b.ts": `import "./c";`, "c.ts": `` }, cycles: [] },
    {
      name: "two files through a type-only import",
      files: { "a.ts": `import "./b";`, "b.ts": `import type { A } from "./a";` },
      cycles: ["a.ts → b.ts → a.ts"],
    },
    { name: "a self-import", files: { "a.ts": `export * from "./a";` }, cycles: ["a.ts → a.ts"] },
    {
      name: "a long cycle beside a short one, each reported once, shortest way round",
      files: {
        "a.ts": `import "./b";`,
        "b.ts": `import "./c"; import "./a";`,
        "c.ts": `import "./a";`,
        "x.ts": `import "./y";`,
        "y.ts": `import "./z";`,
        "z.ts": `import "./x"; import "./a";`,
      },
      cycles: ["a.ts → b.ts → a.ts", "x.ts → y.ts → z.ts → x.ts"],
    },
  ];
  it.each(cases)("$name", ({ files, cycles }) => {
    expect(findCycles(project(files).graph).map(formatCycle)).toEqual(cycles);
  });
});

describe("backArrows and forbiddenImports", () => {
  const graph: ImportGraph = new Map([
    ["http/a.ts", ["state/b.ts"]],
    ["state/b.ts", ["http/a.ts", "other.ts"]],
    ["top.ts", ["state/b.ts", "http/a.ts"]],
    ["other.ts", []],
  ]);
  const rank = (file: string): number | undefined => ({ http: 0, state: 1, "top.ts": 2 })[file.split("/")[0]!];

  it("finds an import from an earlier room into a later one, and only that", () => {
    expect(backArrows(graph, rank)).toEqual([{ from: "http/a.ts", to: "state/b.ts" }]);
  });

  it("finds imports a rule rejects", () => {
    expect(
      forbiddenImports(
        graph,
        (file) => file.startsWith("state/"),
        (to) => to.startsWith("http/"),
      ),
    ).toEqual([{ from: "state/b.ts", to: "other.ts" }]);
  });
});
