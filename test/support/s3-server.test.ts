import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { engineCacheKey, pinnedGoToolCacheKey, resolvePinnedGoTool, yamlHostCacheKey } from "../../toolchain/src/pulumi-cli";
import { VERSITYGW, VERSITYGW_VERSION } from "./s3-server";

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "s3-server-test-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function copyModule(from: string): string {
  const dir = tempDir();
  for (const file of ["go.mod", "go.sum", "tools.go"]) fs.copyFileSync(path.join(from, file), path.join(dir, file));
  return dir;
}

describe("versitygw as a pinned Go tool", () => {
  it("tools/pinned/versitygw pins the version the tests name, imports its main, and has a complete go.sum", () => {
    const goMod = fs.readFileSync(path.join(VERSITYGW.moduleDir, "go.mod"), "utf8");
    expect(goMod).toMatch(new RegExp(`^require github\\.com/versity/versitygw v${VERSITYGW_VERSION.replace(/\./g, "\\.")}$`, "m"));
    expect(fs.readFileSync(path.join(VERSITYGW.moduleDir, "tools.go"), "utf8")).toContain(`_ "${VERSITYGW.goPackage}"`);
    // The build runs with -mod=readonly and never asks the checksum database.
    expect(fs.readFileSync(path.join(VERSITYGW.moduleDir, "go.sum"), "utf8")).toMatch(
      new RegExp(`^github\\.com/versity/versitygw v${VERSITYGW_VERSION.replace(/\./g, "\\.")} h1:`, "m"),
    );
  });

  it("has a cache key of its own, from its version, the platform and its module's files", () => {
    const key = pinnedGoToolCacheKey(VERSITYGW);
    expect(key).toMatch(new RegExp(`^versitygw-v${VERSITYGW_VERSION.replace(/\./g, "\\.")}-${process.platform}-${process.arch}-[0-9a-f]{12}$`));
    expect([engineCacheKey(), yamlHostCacheKey()]).not.toContain(key);
    expect(pinnedGoToolCacheKey({ ...VERSITYGW, moduleDir: copyModule(VERSITYGW.moduleDir) })).toBe(key);
    for (const file of ["go.mod", "go.sum", "tools.go"]) {
      const changed = copyModule(VERSITYGW.moduleDir);
      fs.appendFileSync(path.join(changed, file), "\n");
      expect(pinnedGoToolCacheKey({ ...VERSITYGW, moduleDir: changed }), file).not.toBe(key);
    }
  });

  it("is taken from a complete cache entry without building", async () => {
    const cacheDir = tempDir();
    const bin = path.join(cacheDir, pinnedGoToolCacheKey(VERSITYGW), "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "versitygw"), "", { mode: 0o755 });
    fs.writeFileSync(path.join(bin, "..", ".complete"), "{}\n");
    const lines: string[] = [];
    // No `go` on PATH: a build would fail.
    const found = await resolvePinnedGoTool(VERSITYGW, { cacheDir, env: { PATH: "" }, log: (line) => lines.push(line) });
    expect(found).toBe(path.join(bin, "versitygw"));
    expect(lines).toEqual([]);
  });

  it("says what is missing when it must be built and there is no Go", async () => {
    await expect(resolvePinnedGoTool(VERSITYGW, { cacheDir: tempDir(), env: { PATH: "" }, log: () => {} })).rejects.toThrow(
      /`go` is not on PATH to build versitygw 1\.8\.0\. Install Go >= 1\.25\.0/,
    );
  });
});
