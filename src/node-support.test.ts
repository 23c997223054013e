import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { AnalyticsError } from "./errors";
import { UnsupportedRuntimeError } from "./client/errors";
import { assertSupportedNode, nodeFloor } from "./node-support";

describe("assertSupportedNode", () => {
  it("reads its floor from package.json's engines", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as { engines: { node: string } };
    expect(`>=${nodeFloor()}`).toBe(manifest.engines.node);
  });

  it.each(["22.23.3", "24.21.0", "26.10.0", "27.0.0"])("accepts Node.js %s", (version) => {
    expect(() => assertSupportedNode(version)).not.toThrow();
  });

  it.each(["20.20.2", "18.20.8", "21.7.3"])("refuses Node.js %s with an error that names it and the fix", (version) => {
    let caught: unknown;
    try {
      assertSupportedNode(version);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsupportedRuntimeError);
    expect(caught).toBeInstanceOf(AnalyticsError);
    expect((caught as UnsupportedRuntimeError).code).toBe("ANALYTICS_UNSUPPORTED_RUNTIME");
    expect((caught as Error).message).toBe(
      `pulumi-analytics needs Node.js 22 or newer (a line that still gets security fixes); this program runs on Node.js ${version}. Install a current Node.js LTS release and run again.`,
    );
  });
});
