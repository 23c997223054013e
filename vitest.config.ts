import * as path from "node:path";
import { defineConfig } from "vitest/config";
import { exports as packageExports, name } from "./package.json";

/**
 * `pulumi-analytics` and its subpaths, resolved as package.json's `exports` say (as Node resolves a
 * package's own name), to the built package: what examples/testing-recipe's suite imports.
 */
const selfReference = Object.entries(packageExports).map(([subpath, target]) => ({
  find: new RegExp(`^${name}${subpath.slice(1).replace(/\./g, "\\.")}$`),
  replacement: path.join(__dirname, typeof target === "string" ? target : target.default),
}));

export default defineConfig({
  resolve: { alias: selfReference },
  test: {
    include: ["src/**/*.test.ts", "demo/**/*.test.ts", "test/**/*.test.ts", "examples/testing-recipe/**/*.test.ts", "bench/lib/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
