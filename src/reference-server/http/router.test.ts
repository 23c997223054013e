import { describe, expect, it } from "vitest";
import { Router } from "./router";

const router = new Router([
  { id: "orgs", pattern: "/api/public/organizations", methods: ["POST"] },
  { id: "ds", pattern: "/api/public/organizations/{orgId}/data-sources", methods: ["POST"] },
  { id: "any", pattern: "/api/sso/jwt", methods: ["*"] },
]);

describe("Router", () => {
  it("matches literal and parameterized routes, decoding parameters", () => {
    expect(router.match("POST", "/api/public/organizations")).toMatchObject({ kind: "found", route: { id: "orgs" } });
    const match = router.match("POST", "/api/public/organizations/org%20x%2F1/data-sources");
    expect(match.kind).toBe("found");
    if (match.kind === "found") expect(match.params.get("orgId")).toBe("org x/1");
  });

  it("reports the allowed methods for a known path", () => {
    expect(router.match("GET", "/api/public/organizations")).toMatchObject({ kind: "method-not-allowed", allow: ["POST"] });
    expect(router.match("DELETE", "/api/public/organizations/o/data-sources")).toMatchObject({ kind: "method-not-allowed" });
  });

  it("accepts every method on a route declared with *", () => {
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) expect(router.match(method, "/api/sso/jwt").kind).toBe("found");
  });

  it.each([
    "/api/public/organizations/",
    "/API/public/organizations",
    "/api/public/organizations//data-sources",
    "/api/public/organizations/%E0%A4%A/data-sources",
    "/api/public/organizations/o/data-sources/x",
    "api/public/organizations",
    "/",
    "",
  ])("does not match %j", (path) => {
    expect(router.match("POST", path).kind).toBe("not-found");
  });
});
