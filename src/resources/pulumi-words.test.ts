import { describe, expect, it } from "vitest";
import { AmbiguousCreateError, ConnectionError, UnauthorizedError } from "../client/errors";
import { AMBIGUOUS_CREATE_HINT, API_KEY_HINT, BASE_URL_HINT } from "../client/requests";
import { PULUMI_AMBIGUOUS_CREATE_HINT, PULUMI_API_KEY_HINT, PULUMI_BASE_URL_HINT, inPulumiTerms } from "./pulumi-words";

describe("inPulumiTerms", () => {
  it.each([
    [new UnauthorizedError(401, "Unauthorized", "bad key", `The API key was not accepted. ${API_KEY_HINT}`), PULUMI_API_KEY_HINT],
    [new ConnectionError(`Could not reach the analytics API. ${BASE_URL_HINT}`), PULUMI_BASE_URL_HINT],
    [new AmbiguousCreateError(`It may exist. ${AMBIGUOUS_CREATE_HINT}`), PULUMI_AMBIGUOUS_CREATE_HINT],
  ])("rewords the client's advice in %s for stack config and pulumi up, keeping the error", (error, pulumiWords) => {
    const code = error.code;
    expect(inPulumiTerms(error)).toBe(error);
    expect(error.message.endsWith(pulumiWords)).toBe(true);
    expect(error.message).not.toMatch(/option/);
    expect(error.code).toBe(code);
  });

  it("leaves other errors and values alone", () => {
    const plain = new Error("nothing to reword");
    expect((inPulumiTerms(plain) as Error).message).toBe("nothing to reword");
    expect(inPulumiTerms("text")).toBe("text");
  });
});
