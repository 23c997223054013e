import { describe, expect, it } from "vitest";
import { crossOriginRefusal } from "./same-origin";

describe("crossOriginRefusal", () => {
  const host = "127.0.0.1:8080";
  it.each([
    ["a read from another origin", "GET", { host, origin: "http://evil.example" }],
    ["a HEAD from another site", "HEAD", { host, "sec-fetch-site": "cross-site" }],
    ["a POST naming no origin (curl, the SDK)", "POST", { host }],
    ["a POST from the console itself", "POST", { host, origin: `http://${host}`, "sec-fetch-site": "same-origin" }],
    ["a POST typed in the address bar", "POST", { host, "sec-fetch-site": "none" }],
  ])("serves %s", (_name, method, headers) => {
    expect(crossOriginRefusal(method, headers)).toBeUndefined();
  });

  it.each([
    ["a POST from another origin", "POST", { host, origin: "http://evil.example" }, "(http://evil.example) may not POST"],
    ["a DELETE from another port of the same host", "DELETE", { host, origin: "http://127.0.0.1:9999" }, "(http://127.0.0.1:9999) may not DELETE"],
    ["a POST whose origin a browser hides (Origin: null)", "POST", { host, origin: "null" }, "(null) may not POST"],
    ["a POST from another site that sent no Origin", "POST", { host, "sec-fetch-site": "cross-site" }, "Sec-Fetch-Site: cross-site"],
    ["a POST from a sibling subdomain", "POST", { host, "sec-fetch-site": "same-site" }, "Sec-Fetch-Site: same-site"],
  ])("refuses %s, naming the origin and the fix", (_name, method, headers, named) => {
    const refusal = crossOriginRefusal(method, headers);
    expect(refusal).toContain(named);
    expect(refusal).toMatch(/Open the console from/);
  });
});
