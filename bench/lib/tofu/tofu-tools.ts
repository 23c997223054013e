/**
 * The bench-only Go programs of scenario T: OpenTofu (tools/pinned/opentofu/), Mastercard's generic REST
 * provider terraform-provider-restapi (tools/pinned/restapi/), and that provider bridged into Pulumi with
 * Pulumi's Terraform bridge (tools/pinned/restapi-bridge/: the plugin `pulumi-resource-restapi` and its
 * schema generator `pulumi-tfgen-restapi`), each pinned by a module of its own under tools/ and
 * built into the project's cache with the toolchain's `resolvePinnedGoTool` (progress lines on the
 * first build: about three minutes for OpenTofu, ten or more for the bridge on two cores). Users
 * never build them and tools/ is not in the package's files.
 */
import * as path from "node:path";
import { resolvePinnedGoTool, type PinnedGoTool } from "@pulumi-analytics/toolchain";

/** The OpenTofu release tools/pinned/opentofu/go.mod pins. */
export const OPENTOFU_VERSION = "1.10.7";

/** The terraform-provider-restapi release tools/pinned/restapi/go.mod pins. */
export const RESTAPI_VERSION = "1.20.0";

/** The release of Pulumi's Terraform bridge (github.com/pulumi/pulumi-terraform-bridge/v3) tools/pinned/restapi-bridge/go.mod pins. */
export const TFBRIDGE_VERSION = "3.120.0";

/** The bridged restapi's module, relative to the repository. */
const BRIDGE_MODULE = path.join("tools", "pinned", "restapi-bridge");

/** The bridged restapi's package schema as `pulumi-tfgen-restapi schema` wrote it, which the plugin embeds. */
export const BRIDGE_SCHEMA = path.join(BRIDGE_MODULE, "cmd", "pulumi-resource-restapi", "schema.json");

/** One main of tools/pinned/restapi-bridge as a pinned Go tool: its version names both pins (restapi's, then the bridge's). */
function bridgeTool(repoRoot: string, binary: string, sources: string[]): PinnedGoTool {
  return {
    name: binary,
    version: `${RESTAPI_VERSION}-tfbridge.${TFBRIDGE_VERSION}`,
    moduleDir: path.join(repoRoot, BRIDGE_MODULE),
    goPackage: `pulumi-analytics/tools/restapi-bridge/cmd/${binary}`,
    binary,
    sources: ["info.go", `cmd/${binary}/main.go`, ...sources],
  };
}

/** `pulumi-resource-restapi`, the Pulumi provider plugin of restapi bridged by tfbridge (its schema embedded). */
export function restapiBridgeTool(repoRoot: string): PinnedGoTool {
  return bridgeTool(repoRoot, "pulumi-resource-restapi", ["cmd/pulumi-resource-restapi/schema.json"]);
}

/** `pulumi-tfgen-restapi`, tfbridge's schema generator over the same ProviderInfo (`pulumi-tfgen-restapi schema --out DIR`). */
export function restapiTfgenTool(repoRoot: string): PinnedGoTool {
  return bridgeTool(repoRoot, "pulumi-tfgen-restapi", []);
}

/** The cached bridged restapi plugin, built on first use. */
export function resolveRestapiBridge(repoRoot: string, log: (line: string) => void): Promise<string> {
  return resolvePinnedGoTool(restapiBridgeTool(repoRoot), { log });
}

/** OpenTofu as a pinned Go tool of the repository at `repoRoot` (a release build: no `-dev` marker). */
export function opentofuTool(repoRoot: string): PinnedGoTool {
  return {
    name: "OpenTofu",
    version: OPENTOFU_VERSION,
    moduleDir: path.join(repoRoot, "tools", "pinned", "opentofu"),
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
    moduleDir: path.join(repoRoot, "tools", "pinned", "restapi"),
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
