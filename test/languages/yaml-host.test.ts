import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { PulumiWorkspace, repoRoot } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");

describe("the Pulumi YAML language host", () => {
  it("runs a `runtime: yaml` program with a config value and a secret output on a file backend", async () => {
    expect(toolchain.yamlLanguageHost, "global setup resolved no pulumi-language-yaml; see its [toolchain] lines").toBeDefined();
    const ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/yaml-program"), withoutNodeModules: true });
    try {
      await ws.pulumi(["config", "set", "greeting", "hi"]);
      const up = await ws.pulumi(["up", "--yes"]);
      // Ours sits next to `pulumi`, so the CLI takes it as bundled, without a "from $PATH" warning.
      if (toolchain.source === "cache" || toolchain.source === "build") expect(`${up.stdout}\n${up.stderr}`).not.toMatch(/from \$PATH/);

      const shown = JSON.parse((await ws.pulumi(["stack", "output", "--json", "--show-secrets"])).stdout) as Record<string, unknown>;
      expect(shown).toEqual({ message: "hi, yaml", secretMessage: "hi-secret" });
      const masked = JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
      expect(masked).toEqual({ message: "hi, yaml", secretMessage: "[secret]" });
      // The secret is encrypted in the state, never stored in plain text.
      for (const [file, text] of ws.backendFiles()) expect(text, file).not.toContain("hi-secret");

      await ws.pulumi(["preview", "--expect-no-changes"]);
    } finally {
      ws.dispose();
    }
  }, 300_000);
});
