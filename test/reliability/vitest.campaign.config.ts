import * as os from "node:os";
import * as path from "node:path";
import { defineConfig } from "vitest/config";

// Set here, in the main process, so the reporter and every worker share it.
process.env.ANALYTICS_CAMPAIGN = "1";
process.env.ANALYTICS_FIGURES_DIR ??= path.join(os.tmpdir(), `pulumi-analytics-figures-${process.pid}`);

/** `npm run test:campaign`: the reliability suite at the sizes, summarized by the campaign reporter. */
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
    reporters: ["default", "./test/reliability/support/campaign-reporter.ts"],
  },
});
