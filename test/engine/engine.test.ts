import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { PulumiWorkspace, repoRoot, resourcesOfType } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const DYNAMIC_TYPE = "pulumi-nodejs:dynamic:Resource";

describe("the real Pulumi engine", () => {
  it("runs preview, up, a no-change preview, a replace and destroy on a file backend", async () => {
    const ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/engine-smoke") });
    try {
      const preview = await ws.pulumi(["preview"]);
      expect(preview.stdout).toMatch(/\+ 2 to create|2 to create/);
      expect(resourcesOfType(await ws.exportStack(), DYNAMIC_TYPE)).toHaveLength(0);

      await ws.pulumi(["up", "--yes"]);
      const created = resourcesOfType(await ws.exportStack(), DYNAMIC_TYPE);
      expect(created).toHaveLength(1);
      expect(created[0]?.id).toBe("greeting-world");
      expect(created[0]?.outputs?.message).toBe("hello, world");
      expect(typeof created[0]?.outputs?.__provider).toBe("string");

      await ws.pulumi(["preview", "--expect-no-changes"]);

      await ws.pulumi(["config", "set", "name", "engine"]);
      const changed = await ws.pulumi(["preview", "--expect-no-changes"], { allowFailure: true });
      expect(changed.code).not.toBe(0);
      expect(changed.stdout).toMatch(/\+-\s+pulumi-nodejs:dynamic:Resource\s+hello\s+replace/);
      await ws.pulumi(["up", "--yes"]);
      expect(resourcesOfType(await ws.exportStack(), DYNAMIC_TYPE)[0]?.id).toBe("greeting-engine");

      await ws.pulumi(["destroy", "--yes"]);
      expect(resourcesOfType(await ws.exportStack(), DYNAMIC_TYPE)).toHaveLength(0);
    } finally {
      ws.dispose();
    }
  }, 600_000);
});
