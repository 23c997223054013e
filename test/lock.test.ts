import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };

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
});
