/**
 * A kind's facts are written in src/kinds only: outside it, non-test code names no engine type
 * token and no API route pattern, so a new or changed kind cannot leave a stale copy behind.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const src = path.join(__dirname, "..", "src");

/** Non-test TypeScript files under `dir`, relative to src/. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path.relative(src, full)] : [];
  });
}

/** What a restated kind fact looks like: a type token or a public route. */
const RESTATED = [/dynamic\/analytics:/, /analytics:index:/, /\/api\/public\//];

describe("kind facts", () => {
  it("are written in src/kinds and nowhere else in src/", () => {
    const files = sources(src).filter((file) => !file.startsWith(`kinds${path.sep}`));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => {
      const text = fs.readFileSync(path.join(src, file), "utf8");
      return RESTATED.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern.source}`);
    });
    expect(found).toEqual([]);
  });
});
