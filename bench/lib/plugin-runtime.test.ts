import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { otherNodeOnPath, runtimeFigure, RUNTIME_TARGET } from "./plugin-runtime";
import { runNanosOfSchedstat } from "./proc";

describe("otherNodeOnPath", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-other-node-"));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  /** A folder holding a `node` that prints `version` (executable unless said otherwise). */
  const nodeDir = (name: string, version: string, mode = 0o755): string => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "node"), `#!/bin/sh\necho ${version}\n`, { mode });
    return dir;
  };
  const cache = path.join(root, "cache");
  const cached = nodeDir("cache/node-v9.9.9-linux-x64/bin", "v7.0.0");
  const linked = path.join(root, "linked");
  fs.mkdirSync(linked);
  fs.symlinkSync(path.join(cached, "node"), path.join(linked, "node"));

  it("takes the first node of PATH that is neither in the cache (through a link too) nor the pinned release", () => {
    const searchPath = [cached, linked, nodeDir("not-executable", "v6.0.0", 0o644), path.join(root, "missing"), nodeDir("pinned", "v9.9.9"), nodeDir("machine", "v20.0.0"), nodeDir("later", "v22.0.0")].join(path.delimiter);
    expect(otherNodeOnPath(searchPath, cache, "9.9.9")).toEqual({ path: path.join(root, "machine", "node"), version: "v20.0.0" });
  });

  it("finds none when PATH holds only the cache's and the pinned release", () => {
    expect(otherNodeOnPath([cached, nodeDir("pinned", "v9.9.9")].join(path.delimiter), cache, "9.9.9")).toBeUndefined();
  });
});

describe("runtimeFigure", () => {
  it(`meets the target up to ${RUNTIME_TARGET}x the other build's median, and gives the paired ratio`, () => {
    expect(runtimeFigure("start", "ms", [105, 100, 110], [100, 100, 100], true)).toMatchObject({ pinned: 105, other: 100, ratio: 1.05, paired: 1.05, status: "met" });
    expect(runtimeFigure("start", "ms", [106, 106, 106], [100, 100, 100], true)).toMatchObject({ status: "missed" });
    expect(runtimeFigure("rss", "MiB", [200], [100], false)).toMatchObject({ ratio: 2, status: "reported" });
  });
});

describe("runNanosOfSchedstat", () => {
  it("reads the time on a CPU, the first field", () => {
    expect(runNanosOfSchedstat("137204110 2053411 112\n")).toBe(137204110);
    expect(() => runNanosOfSchedstat("")).toThrow(/not a schedstat line/);
  });
});
