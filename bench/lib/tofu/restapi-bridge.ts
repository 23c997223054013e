/**
 * The side "restapi through Pulumi" of scenario T: Mastercard's terraform-provider-restapi bridged
 * into Pulumi by Pulumi's Terraform bridge (tools/pinned/restapi-bridge, built by tofu-tools.ts), driven by
 * the YAML program bench/fixtures/restapi-yaml with the 1 + N objects of bench/fixtures/tofu/main.tf.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Subject } from "../engine";
import { repoRoot, type BenchWorkspace } from "../workspace";

/** The bridged `restapi_object`'s type token. */
export const BRIDGE_OBJECT_TYPE = "restapi:index/object:Object";

/** The bridged restapi's YAML program. */
export const BRIDGE_FIXTURE = path.join(repoRoot, "bench", "fixtures", "restapi-yaml");

/** The plugin's file name, in the command line of its process. */
export const BRIDGE_MARKER = "pulumi-resource-restapi";

/**
 * The `ds-0` … `ds-<count-1>` objects appended to bench/fixtures/restapi-yaml's `resources:`: main.tf's
 * `restapi_object.data_source`, the same JSON body (the password from the secret config) posted
 * under the organization's path.
 */
export function restapiObjects(count: number): string {
  let text = "";
  for (let i = 0; i < count; i++) {
    text +=
      `  ds-${i}:\n    type: ${BRIDGE_OBJECT_TYPE}\n    properties:\n      path: /api/public/organizations/\${org.id}/data-sources\n      data:\n        fn::toJSON:\n` +
      `          type: direct\n          dialect: POSTGRES\n          displayName: Warehouse ${i}\n          host: 127.0.0.1\n          port: 5432\n` +
      `          databaseName: analytics\n          username: bench_reader\n          password: \${password}\n          sslEnabled: false\n    options:\n      provider: \${restapi}\n`;
  }
  return text;
}

/** Puts the built plugin where the program's Pulumi.yaml looks for it (`plugin-bin/`) and appends `count` objects to the program. */
export function prepareBridgeProgram(programDir: string, binary: string, count: number): void {
  const dir = path.join(programDir, "plugin-bin");
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(binary, path.join(dir, BRIDGE_MARKER));
  fs.appendFileSync(path.join(programDir, "Pulumi.yaml"), restapiObjects(count));
}

/** The bench's subject of the bridged restapi with `count` data sources, its plugin the cached `binary`. */
export function bridgeSubject(binary: string, count: number): Subject {
  return { fixture: BRIDGE_FIXTURE, providerMarker: BRIDGE_MARKER, prepare: (ws) => prepareBridgeProgram(ws.programDir, binary, count) };
}

/** The provider's settings the program reads from its stack's config: the service's URL, and the API key as a secret. */
export async function configureBridgeStack(ws: BenchWorkspace, stack: string, baseUrl: string, apiKey: string): Promise<void> {
  await ws.pulumi(["config", "set", "baseUrl", "--stack", stack, "--", baseUrl]);
  await ws.pulumi(["config", "set", "--secret", "apiKey", "--stack", stack, "--", apiKey]);
}
