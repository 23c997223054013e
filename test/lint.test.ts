/**
 * `npm run lint` (eslint.config.js) catches the async mistakes a provider can make, with the types
 * of the repository's own tsconfig: here on a file of src/ given other text, as an editor lints an
 * unsaved file (and as CI runs it, with CI=true).
 */
import * as path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const repoRoot = path.join(__dirname, "..");

const MISTAKES = `import { EventEmitter } from "node:events";
async function persist(): Promise<number> {
  return 1;
}
export async function mistakes(events: EventEmitter): Promise<number> {
  persist();
  events.on("done", async () => {
    await persist();
  });
  await 42;
  try {
    return persist();
  } catch {
    return 0;
  }
}
`;

describe("the lint", () => {
  it("finds a floating promise, an async listener, an await of a number and an unawaited return in a try", async () => {
    // Under CI=true typescript-eslint would build its program once from the files on disk, where src/redact.ts holds none of this.
    const eslint = new ESLint({ cwd: repoRoot, overrideConfig: { languageOptions: { parserOptions: { disallowAutomaticSingleRunInference: true } } } });
    const [result] = await eslint.lintText(MISTAKES, { filePath: path.join(repoRoot, "src", "redact.ts") });
    expect(result!.messages.map((m) => `${m.line} ${m.ruleId} ${m.severity}`)).toEqual([
      "6 @typescript-eslint/no-floating-promises 2",
      "7 @typescript-eslint/no-misused-promises 2",
      "10 @typescript-eslint/await-thenable 2",
      "12 @typescript-eslint/return-await 2",
    ]);
  }, 180_000);
});
