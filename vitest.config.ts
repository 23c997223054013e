import * as path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { exports as packageExports, name } from "./package.json";
import ReleaseLastSequencer from "./test/support/release-last-sequencer";
import { cacheRoot } from "./tools/lib/node-runtime.js";
import { TIERS, excludedBy } from "./test/tiers.js";

/**
 * `pulumi-analytics` and its subpaths, resolved as package.json's `exports` say (as Node resolves a
 * package's own name), to the built package: what examples/testing-recipe's suite imports.
 */
const selfReference = Object.entries(packageExports).map(([subpath, target]) => ({
  find: new RegExp(`^${name}${subpath.slice(1).replace(/\./g, "\\.")}$`),
  replacement: path.join(__dirname, typeof target === "string" ? target : target.default),
}));

/** One project per tier of test/tiers.js: `vitest run --project unit` runs one, tools/test-tiers.js all in turn. */
export default defineConfig({
  resolve: { alias: selfReference },
  // Vitest's cache (each file's last duration) in the project's cache folder, not node_modules/: a
  // fresh clone on a machine that ran the tests before hands the slowest files out first, so no
  // core idles at the end of the run while one long file finishes alone.
  cacheDir: path.join(cacheRoot(), "vite"),
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    pool: "forks",
    // The files that read the release folder run last, while it builds (test/support/release-last-sequencer.ts).
    sequence: { sequencer: ReleaseLastSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: TIERS.map((tier) => ({
      extends: true,
      test: {
        name: tier.name,
        // A test that runs a real `pulumi up` takes seconds alone and many times that on a machine
        // whose every core is busy, as in a full run: the tiers that run the engine give a test, and
        // a hook, 5 minutes unless it says otherwise.
        ...(tier.engine ? { testTimeout: 300_000, hookTimeout: 300_000 } : {}),
        include: tier.include,
        exclude: [...configDefaults.exclude, ...excludedBy(tier)],
        globalSetup: ["test/global-setup.ts"],
        // The engine tier's workers find the resolved CLI on PATH (examples/testing-recipe's Automation API needs it there).
        setupFiles: tier.name === "engine" ? ["test/support/engine-setup.ts"] : [],
      },
    })),
  },
});
