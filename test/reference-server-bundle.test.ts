/**
 * What tools/build-reference-server-binary.js bundles into the reference server's single file: the
 * bin with what it loads at start in the main script, zod and pg each in an asset of its own
 * compiled on first use (as the npm package loads them), pg without its native bindings. The
 * files as shipped: test/release/reference-server-binary.test.ts. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stop as stopEsbuild } from "esbuild";
import { referenceServerBundle } from "../tools/build-reference-server-binary.js";

let bundle: Awaited<ReturnType<typeof referenceServerBundle>>;

beforeAll(async () => {
  bundle = await referenceServerBundle();
}, 120_000);
afterAll(async () => {
  // esbuild's service process would outlive this file in a reused worker.
  await stopEsbuild();
});

/** The npm packages of a bundle, by the paths esbuild names in its comments. */
const packagesIn = (text: string): string[] => [...new Set([...text.matchAll(/node_modules\/((?:@[^/]+\/)?[^/\s]+)\//g)].map((match) => match[1]!))].sort();

describe("the reference server's single-file bundle", () => {
  it("starts from a main script without zod or pg, which each load their own asset on first require", () => {
    expect(packagesIn(bundle.main)).toEqual([]);
    expect(bundle.main).toContain('require("node:sea").getAsset("zod.js", "utf8")');
    expect(bundle.main).toContain('require("node:sea").getAsset("pg.js", "utf8")');
    expect(Object.keys(bundle.lazy)).toEqual(["zod.js", "pg.js"]);
    expect(packagesIn(bundle.lazy["zod.js"]!)).toEqual(["zod"]);
  });

  it("carries pg and its dependencies, but not pg-native, which pg finds missing as when it is not installed", () => {
    const pg = bundle.lazy["pg.js"]!;
    expect(packagesIn(pg)).toEqual(expect.arrayContaining(["pg", "pg-pool", "pg-protocol", "pg-types", "pgpass"]));
    expect(packagesIn(pg)).not.toContain("pg-native");
    expect(pg).toContain(`Cannot find module 'pg-native'`);
    expect(pg).toContain(`code: "MODULE_NOT_FOUND"`);
  });

  it("names every bundled package in its metafile, for the SBOM", () => {
    const inputs = packagesIn(Object.keys(bundle.metafile.inputs).join("\n") + "\n");
    expect(inputs).toEqual(expect.arrayContaining(["pg", "pg-protocol", "zod"]));
    expect(inputs).not.toContain("pg-native");
  });
});
