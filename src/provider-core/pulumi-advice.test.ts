import { describe, expect, it } from "vitest";
import { CLIENT_ADVICE, inClientWords } from "../client/advice";
import { AmbiguousCreateError, AnalyticsError, ApiError, ConfigurationError, ConnectionError, UnauthorizedError, type AdviceCode } from "../client/errors";
import { PULUMI_ADVICE, forPulumiUsers, inPulumiWords } from "./pulumi-advice";

/** Each advice code as each audience reads it: the client names its options, the providers stack config and `pulumi up`. */
const WORDING: ReadonlyArray<readonly [AdviceCode, string, string]> = [
  [
    "api-key",
    "Pass the key as the client's `apiKey` option; it is sent as `Authorization: Bearer <key>`.",
    "Set it with `pulumi config set --secret analytics:apiKey <key>` or the ANALYTICS_API_KEY environment variable.",
  ],
  [
    "base-url",
    "Pass it as the client's `baseUrl` option, e.g. `https://analytics.example.com`.",
    "Set it with `pulumi config set analytics:baseUrl <url>` or the ANALYTICS_BASE_URL environment variable.",
  ],
  [
    "ambiguous-create",
    "Check the service for it before sending the create again: a second create makes a second object.",
    "Check the service for it before running `pulumi up` again: the next `pulumi up` creates it anew, so if it already exists you will have two.",
  ],
];

describe("advice per audience", () => {
  it.each(WORDING)("words %s for the client's callers and for Pulumi users", (code, client, pulumi) => {
    expect(CLIENT_ADVICE[code]).toBe(client);
    expect(PULUMI_ADVICE[code]).toBe(pulumi);
    expect(inClientWords(code)).toEqual({ code, words: client });
    expect(inPulumiWords(code)).toEqual({ code, words: pulumi });
  });

  it("has wording for every code in both audiences, and nothing else", () => {
    expect(Object.keys(CLIENT_ADVICE).sort()).toEqual(WORDING.map(([code]) => code).sort());
    expect(Object.keys(PULUMI_ADVICE).sort()).toEqual(WORDING.map(([code]) => code).sort());
  });
});

describe("forPulumiUsers", () => {
  it.each([
    [
      "an unauthorized key",
      new UnauthorizedError(401, "Unauthorized", "bad key", "The API key was not accepted.", inClientWords("api-key")),
      "Unauthorized: bad key (HTTP 401) The API key was not accepted.",
    ],
    ["an unreachable API", new ConnectionError("Could not reach the analytics API.", inClientWords("base-url")), "Could not reach the analytics API."],
    ["a create that may have happened", new AmbiguousCreateError("It may exist.", inClientWords("ambiguous-create")), "It may exist."],
    ["a bad base URL", new ConfigurationError("The analytics base URL must be http(s).", inClientWords("base-url")), "The analytics base URL must be http(s)."],
  ])("words the advice of %s for stack config and pulumi up, keeping class, code and summary", (_name, error, summary) => {
    const { code, advice, constructor } = error;
    expect(error.message).toBe(`${summary} ${CLIENT_ADVICE[advice!]}`);
    expect(forPulumiUsers(error)).toBe(error);
    expect(error.message).toBe(`${summary} ${PULUMI_ADVICE[advice!]}`);
    expect(error.message).not.toMatch(/option/);
    expect([error.code, error.advice, error.summary, error.constructor]).toEqual([code, advice, summary, constructor]);
  });

  it("words the summary alone, so a summary that quotes the client's advice is left as it is", () => {
    const summary = `A server said: ${CLIENT_ADVICE["api-key"]}`;
    const error = new ApiError(400, "BadRequest", summary, "", inClientWords("base-url"));
    forPulumiUsers(error);
    expect(error.message).toBe(`BadRequest: ${summary} (HTTP 400) ${PULUMI_ADVICE["base-url"]}`);
  });

  it("leaves errors without advice, other errors and other values alone", () => {
    const plain = new Error("nothing to reword");
    expect((forPulumiUsers(plain) as Error).message).toBe("nothing to reword");
    const unadvised = new AnalyticsError("no advice here");
    expect((forPulumiUsers(unadvised) as Error).message).toBe("no advice here");
    expect(forPulumiUsers("text")).toBe("text");
  });
});
