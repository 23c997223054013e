import { describe, expect, it } from "vitest";
import { newerOnProxy, newerReleases } from "./go-build";

describe("newer releases on the Go module proxy", () => {
  it("takes the releases newer than the pinned one from `go list -m -versions`, oldest first, no prereleases", () => {
    const listed = "github.com/pulumi/pulumi/pkg/v3 v3.0.0 v3.275.0 v3.276.0 v3.277.0-rc.1 v3.277.0 v3.280.1\n";
    expect(newerReleases(listed, "3.276.0")).toEqual(["3.277.0", "3.280.1"]);
    expect(newerReleases(listed, "3.280.1")).toEqual([]);
  });

  it("says why it could not ask, instead of failing, when the proxy cannot be reached", async () => {
    // A proxy nothing listens on, as offline: the answer names the failure and the run goes on.
    const result = await newerOnProxy("github.com/pulumi/pulumi/pkg/v3", "3.276.0", { ...process.env, GOPROXY: "http://127.0.0.1:9", GOFLAGS: "" });
    expect(result).toEqual({ unavailable: expect.stringMatching(/127\.0\.0\.1:9|not found|ENOENT/) });
  });
});
