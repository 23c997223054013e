import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RELEASE_FOLDER_MODULE, importsTransitively, releaseReaders } from "./release-readers";

const root = path.resolve(__dirname, "..", "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-sequencer-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A tiny project in `tmp`: `files` maps a relative path to its source. */
function project(files: Record<string, string>): (name: string) => string {
  for (const [name, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(tmp, name)), { recursive: true });
    fs.writeFileSync(path.join(tmp, name), source);
  }
  return (name) => path.join(tmp, name);
}

describe("the readers of the release folder", () => {
  it("are found through any chain of relative imports, cycles and `.js` specifiers included, and packages are not followed", () => {
    const at = project({
      "target.ts": "export const x = 1;",
      "direct.test.ts": 'import { x } from "./target";',
      "through.test.ts": 'import { y } from "./support/a.js";',
      "support/a.ts": 'import { z } from "./b"; export const y = 1;',
      "support/b.ts": 'import { y } from "./a"; import { x } from "../target"; export const z = 1;',
      "cycle.test.ts": 'import { p } from "./p"; import "vitest";',
      "p.ts": 'import { q } from "./q"; export const p = 1;',
      "q.ts": 'import { p } from "./p"; export const q = 1;',
      "mention.test.ts": '// imports "./target" in a comment only\nconst s = "./target";',
    });
    const reads = (name: string) => importsTransitively(at(name), at("target.ts"));
    expect(["direct.test.ts", "through.test.ts", "cycle.test.ts", "mention.test.ts"].map(reads)).toEqual([true, true, false, false]);
  });

  it("go last, each group keeping the order it was given", () => {
    const at = project({
      "r1.test.ts": 'import "./target";',
      "r2.test.ts": 'import "./support/a";',
      "o1.test.ts": 'import "./p";',
      "o2.test.ts": "",
    });
    const order = ["r1.test.ts", "o1.test.ts", "r2.test.ts", "o2.test.ts"];
    expect(releaseReaders(order, at, at("target.ts"))).toEqual({ others: ["o1.test.ts", "o2.test.ts"], readers: ["r1.test.ts", "r2.test.ts"] });
  });

  it("are, in this repository, the release tier's and the compatibility tier's builders of it, and no unit or engine file", () => {
    const reads = (file: string) => importsTransitively(path.join(root, file), RELEASE_FOLDER_MODULE);
    expect(reads("test/languages/compat-newest-cli.test.ts")).toBe(true);
    expect(reads("test/release/packed/packed.test.ts")).toBe(true);
    expect(reads("test/release/release-rehearsal-java.test.ts")).toBe(true);
    expect(reads("test/engine/lifecycle.test.ts")).toBe(false);
    expect(reads("test/tiers.test.ts")).toBe(false);
  });
});
