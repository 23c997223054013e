import { defineConfig } from "vitest/config";

// Each test runs a real `pulumi up` (a few seconds); the first hook starts the server and deploys.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000 } });
