/**
 * Reliability item 12: the reference server tested by schemathesis, a tool we did not write, from
 * the OpenAPI document the server itself serves: every check (server errors, status codes,
 * content types, headers, response schemas, negative and positive data, undocumented methods,
 * authentication) in every phase (coverage, fuzzing, stateful), fixed seed. Held: it reports no
 * failure, so 0 answers are 5xx and 0 break the document; the API key never appears in its output.
 * Its Python environment comes from the project cache (test/support/python-env.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { OPENAPI_PATH } from "../../src/reference-server/control/openapi";
import { resolvePythonEnv, type PythonEnv } from "../support/python-env";
import { TIMEOUT_MS, recordFigures, scale } from "./support/campaign";
import { runSchemathesis } from "./support/schemathesis";

const MAX_EXAMPLES = scale(20, 400);

describe("schemathesis against the reference server's own OpenAPI document", () => {
  let server: ReferenceServer;
  let pyEnv: PythonEnv;

  beforeAll(async () => {
    pyEnv = await resolvePythonEnv();
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["fuzz"], inspection: true });
  }, 900_000);

  afterAll(async () => {
    await server?.close();
  });

  it(
    "finds no failure of any check, no 5xx and no answer outside the document",
    async () => {
      const apiKey = server.apiKeys.fuzz!;
      const { summary, output } = await runSchemathesis(pyEnv, {
        documentUrl: `${server.url}${OPENAPI_PATH}`,
        apiKey,
        maxExamples: MAX_EXAMPLES,
        seed: 1,
        timeoutMs: TIMEOUT_MS,
      });
      expect(summary.failures, output).toEqual([]);
      expect(summary.clean, output).toBe(true);
      expect(summary.generated).toBeGreaterThan(MAX_EXAMPLES);
      expect(summary.passed).toBe(summary.generated);
      expect(output.includes(apiKey), "the API key appears in schemathesis's output").toBe(false);
      recordFigures({
        item: 12,
        path: "service",
        scenario: `schemathesis: ${summary.generated} generated cases, every check, coverage + fuzzing + stateful, seed 1`,
        faultsInjected: 0,
        operations: summary.generated,
        duplicates: 0,
        lostObjects: 0,
        crashes: 0,
        serverErrors: summary.failures.filter((failure) => failure.startsWith("ST101")).length,
        plaintextHits: output.includes(apiKey) ? 1 : 0,
      });
    },
    TIMEOUT_MS,
  );
});
