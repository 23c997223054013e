/**
 * The two bench-only Go programs of scenario T: OpenTofu (tools/opentofu/) and Mastercard's
 * generic REST provider terraform-provider-restapi (tools/restapi/), each pinned by a module of its
 * own under tools/ and built into the project's cache with the toolchain's `resolvePinnedGoTool`
 * (progress lines on the first build, about three minutes for OpenTofu). Users never build them and
 * tools/ is not in the package's files.
 */
import * as path from "node:path";
import { resolvePinnedGoTool, type PinnedGoTool } from "@pulumi-analytics/toolchain";

/** The OpenTofu release tools/opentofu/go.mod pins. */
export const OPENTOFU_VERSION = "1.10.7";

/** The terraform-provider-restapi release tools/restapi/go.mod pins. */
export const RESTAPI_VERSION = "1.20.0";

/** OpenTofu as a pinned Go tool of the repository at `repoRoot` (a release build: no `-dev` marker). */
export function opentofuTool(repoRoot: string): PinnedGoTool {
  return {
    name: "OpenTofu",
    version: OPENTOFU_VERSION,
    moduleDir: path.join(repoRoot, "tools", "opentofu"),
    goPackage: "github.com/opentofu/opentofu/cmd/tofu",
    binary: "tofu",
    ldflags: "-X github.com/opentofu/opentofu/version.dev=no",
  };
}

/** terraform-provider-restapi as a pinned Go tool of the repository at `repoRoot`. */
export function restapiTool(repoRoot: string): PinnedGoTool {
  return {
    name: "terraform-provider-restapi",
    version: RESTAPI_VERSION,
    moduleDir: path.join(repoRoot, "tools", "restapi"),
    goPackage: "github.com/Mastercard/terraform-provider-restapi",
    binary: "terraform-provider-restapi",
  };
}

/** The cached `tofu` and provider binaries, built on first use. */
export async function resolveTofuTools(repoRoot: string, log: (line: string) => void): Promise<{ tofu: string; restapi: string }> {
  const restapi = await resolvePinnedGoTool(restapiTool(repoRoot), { log });
  const tofu = await resolvePinnedGoTool(opentofuTool(repoRoot), { log });
  return { tofu, restapi };
}
