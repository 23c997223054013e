import { describe, expect, it } from "vitest";
import { MAX_API_KEY_LENGTH, apiKeyProblem, baseUrlProblem } from "./setting-rules";

describe("setting rules", () => {
  it.each([
    ["not a URL secret-1234", /^must be an http\(s\) URL such as `https:\/\/analytics.example.com`, and this is not a URL$/],
    ["ftp://host", /^must use http or https, got a ftp: URL$/],
    ["javascript:alert(1)", /^must use http or https, got a javascript: URL$/],
    ["http://user:secret-1234@host", /^must not carry a user name or password/],
    ["http://secret-1234@host", /^must not carry a user name or password/],
    ["http://host/?token=secret-1234", /^must not carry a query or fragment$/],
  ])("refuses the base URL %s without quoting it", (url, problem) => {
    expect(baseUrlProblem(url)).toMatch(problem);
    expect(baseUrlProblem(url)).not.toContain("secret-1234");
  });

  it("accepts http and https base URLs with a port and a prefix", () => {
    expect(["http://127.0.0.1:8080", "https://analytics.example.com/api/"].map(baseUrlProblem)).toEqual([undefined, undefined]);
  });

  it.each([
    ["analytics_key_with\nnewline", /control character, a space or a non-ASCII character/],
    ["analytics key", /control character, a space/],
    ["analytics_key_é", /non-ASCII/],
    ["k".repeat(MAX_API_KEY_LENGTH + 1), /^must be at most 4096 characters long \(real keys are far shorter\), and this one has 4097$/],
  ])("refuses the API key %j without quoting it", (key, problem) => {
    expect(apiKeyProblem(key)).toMatch(problem);
    expect(apiKeyProblem(key)).not.toContain("analytics_key");
  });

  it("accepts a key of the service's shape", () => {
    expect(apiKeyProblem(`analytics_key_${"A".repeat(32)}`)).toBeUndefined();
  });
});
