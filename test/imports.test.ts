/**
 * The import rules of docs/maintainers/architecture.md, checked on the real sources: no cycle anywhere in
 * src/, the reference server's rooms one-way, the layers (kinds, the reference server, the
 * package root) loading only what they may, and the published package and the toolchain apart. test/support/import-graph.test.ts proves each check
 * can fail.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { backArrows, buildImportGraph, findCycles, forbiddenImports, formatCycle, type Violation } from "./support/import-graph";

const repoRoot = path.resolve(__dirname, "..");
const REFERENCE_SERVER = "src/reference-server/";
/** The private workspace package that finds or builds the Pulumi CLI: development tooling, never published. */
const TOOLCHAIN = "toolchain/src/";

/** Every non-test TypeScript module under src/ and toolchain/src/ and every JSON file they may import, by repo-relative posix path. */
function sources(): Map<string, string> {
  const files = ["src", "toolchain/src"]
    .flatMap((root) => (fs.readdirSync(path.join(repoRoot, root), { recursive: true }) as string[]).map((file) => `${root}/${file.split(path.sep).join("/")}`))
    .filter((file) => (file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts")) || file.endsWith(".json"))
    .sort();
  return new Map(files.map((file) => [file, fs.readFileSync(path.join(repoRoot, file), "utf8")]));
}

const { graph, unresolved } = buildImportGraph(sources());

/** The reference server's rooms in dependency order: a room may import only itself and rooms before it. */
const ROOMS = ["http", "state", "sync", "control", "top"] as const;

/** A reference-server file's room's rank in {@link ROOMS}; undefined outside the reference server. */
function roomOf(file: string): number | undefined {
  if (!file.startsWith(REFERENCE_SERVER)) return undefined;
  const parts = file.slice(REFERENCE_SERVER.length).split("/");
  if (parts.length === 1) return ROOMS.indexOf("top");
  const rank = ROOMS.indexOf(parts[0] as (typeof ROOMS)[number]);
  // A new sub-folder must be given a place in the order before anything may live there.
  if (rank === -1) throw new Error(`${file} is in no room of ${ROOMS.join(" < ")}`);
  return rank;
}

const show = (violations: Violation[]): string[] => violations.map(({ from, to }) => `${from} → ${to}`);
const under = (folder: string) => (file: string) => file.startsWith(folder);

describe("imports in src/", () => {
  it("resolves every relative import, over the whole tree", () => {
    expect(unresolved).toEqual([]);
    // A broken walk would pass every check below vacuously.
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get("src/reference-server/server.ts")).toContain("src/reference-server/state/server-state.ts");
  });

  it("has no import cycle", () => {
    expect(findCycles(graph).map(formatCycle)).toEqual([]);
  });

  it(`keeps the reference server's rooms one-way (${ROOMS.join(" < ")})`, () => {
    const rooms = new Set([...graph.keys()].filter(under(REFERENCE_SERVER)).map((file) => ROOMS[roomOf(file)!]));
    expect([...rooms].sort()).toEqual([...ROOMS].sort());
    expect(
      show(backArrows(graph, roomOf)).map(
        (arrow) =>
          `${arrow} (${arrow
            .split(" → ")
            .map((file) => ROOMS[roomOf(file)!])
            .join(" → ")})`,
      ),
    ).toEqual([]);
  });

  it("keeps the published package and the toolchain (a private workspace package) apart", () => {
    // src/ is what users install, toolchain/ is never published: neither may import the other.
    expect(show(forbiddenImports(graph, under("src/"), (to) => !to.startsWith(TOOLCHAIN)))).toEqual([]);
    expect(show(forbiddenImports(graph, under(TOOLCHAIN), under(TOOLCHAIN)))).toEqual([]);
    expect([...graph.keys()].filter(under(TOOLCHAIN))).toContain(`${TOOLCHAIN}pulumi-cli.ts`);
  });

  it("names pg (an optional peer) in one module only, the schema sync's loader; elsewhere only in type imports", () => {
    // `typeof import("pg")` and `import type` vanish from the build; any other "pg" may load it.
    const namesPg = (text: string): boolean =>
      text.split("\n").some((line) => /["']pg["']/.test(line.replace(/typeof import\("pg"\)/g, "")) && !/^import type\b/.test(line));
    expect([...sources()].filter(([, text]) => namesPg(text)).map(([file]) => file)).toEqual(["src/reference-server/sync/pg-loader.ts"]);
  });

  it("keeps src/kinds free of the rest of the project", () => {
    expect(show(forbiddenImports(graph, under("src/kinds/"), under("src/kinds/")))).toEqual([]);
  });

  it("keeps the reference server away from the client and the resources", () => {
    const allowed = (to: string): boolean => !to.startsWith("src/client/") && !to.startsWith("src/resources/");
    expect(show(forbiddenImports(graph, under(REFERENCE_SERVER), allowed))).toEqual([]);
  });

  it("keeps the native provider plugin an adapter over the provider core: no resource class, policy or reference server", () => {
    // Everything src/native/ reaches, directly or not: the provider core and what it uses.
    const reached = new Set<string>();
    const visit = (file: string): void => {
      for (const to of graph.get(file) ?? []) {
        if (reached.has(to)) continue;
        reached.add(to);
        visit(to);
      }
    };
    [...graph.keys()].filter(under("src/native/")).forEach(visit);
    const others = ["src/index.ts", "src/resources/", "src/policy/", "src/orphans/", "src/reference-server/", TOOLCHAIN];
    expect([...reached].filter((file) => others.some((folder) => file.startsWith(folder)))).toEqual([]);
    expect(reached).toContain("src/provider-core/operations.ts");
  });

  it("keeps the provider core below both adapters: it imports neither the resource classes nor the native plugin", () => {
    const allowed = (to: string): boolean => !to.startsWith("src/resources/") && !to.startsWith("src/native/") && to !== "src/index.ts";
    expect(show(forbiddenImports(graph, under("src/provider-core/"), allowed))).toEqual([]);
    expect(graph.get("src/resources/provider-impl.ts")).toContain("src/provider-core/operations.ts");
  });

  it("has the package root load only the Node.js check, resources, kinds and the error classes, which load nothing else", () => {
    // The client's error classes are re-exported by the root; the rest of src/client/ (HTTP, zod) is not.
    const errors = new Set(["src/errors.ts", "src/client/errors.ts"]);
    const allowed = (to: string): boolean => to.startsWith("src/resources/") || to.startsWith("src/kinds/") || errors.has(to) || to === "src/node-support.ts";
    expect(show(forbiddenImports(graph, (file) => file === "src/index.ts", allowed))).toEqual([]);
    expect(
      show(
        forbiddenImports(
          graph,
          (file) => errors.has(file),
          (to) => errors.has(to),
        ),
      ),
    ).toEqual([]);
    expect(
      show(
        forbiddenImports(
          graph,
          (file) => file === "src/node-support.ts",
          (to) => errors.has(to),
        ),
      ),
    ).toEqual([]);
    expect(graph.get("src/index.ts")?.length).toBeGreaterThan(0);
  });
});
