/**
 * The committed lock is what npm keeps: `npm ci` accepts it, and the README's `npm install` on a
 * fresh clone leaves it byte for byte as committed (so the clone stays clean).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const repoRoot = path.join(__dirname, "..");

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lockText = fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8");
const lock = JSON.parse(lockText) as { packages: Record<string, LockEntry> };

/** Where npm would find `name` for the package at `from`: its own node_modules, then each ancestor's. */
function resolves(from: string, name: string): boolean {
  for (let dir = from; ; dir = dir.includes("/node_modules/") ? dir.slice(0, dir.lastIndexOf("/node_modules/")) : "") {
    if (lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]) return true;
    if (dir === "") return false;
  }
}

describe("package-lock.json", () => {
  it("has an entry for every dependency, optional ones included, so `npm ci` accepts it", () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!resolves(key, name)) missing.push(`${key || "(root)"} → ${name}`);
      }
    }
    // After an `npm install` that dropped platform packages, `node tools/complete-lock.js` restores them.
    expect(missing).toEqual([]);
  });

  it("is left unchanged by `npm install` (package.json's bin, dependencies, workspaces and versions all recorded)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-lock-"));
    try {
      // With each workspace's package.json (the private toolchain/), which the lock records too.
      const { workspaces = [] } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { workspaces?: string[] };
      expect(workspaces).toContain("toolchain");
      for (const file of ["package.json", "package-lock.json", ...workspaces.map((w) => `${w}/package.json`)]) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.copyFileSync(path.join(repoRoot, file), path.join(dir, file));
      }
      // The lock alone: what `npm install` would write, without installing or running scripts.
      await promisify(execFile)("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], {
        cwd: dir,
        timeout: 120_000,
      });
      expect(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8"), "npm install rewrites package-lock.json: commit what it writes").toBe(lockText);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
