/** The pinned engine release, and version strings of the tools the toolchain finds: compared and read from their output. */

/** Pulumi CLI and Node.js language host release the engine build uses; toolchain/go/pulumi/go.mod pins the same one. The npm SDK is the app's own (peer range in package.json). */
export const PINNED_PULUMI_VERSION = "3.200.0";

/**
 * The newest Pulumi CLI release the Go module proxy serves, built as a second engine that the
 * compatibility tests run (test/languages/compat-newest-cli.test.ts); toolchain/go/pulumi-newest/go.mod pins the same one.
 */
export const NEWEST_PULUMI_VERSION = "3.276.0";

/** The Go symbol `pulumi version` (and the language hosts built from the engine's release) report; set with `-ldflags -X`. */
export const ENGINE_VERSION_SYMBOL = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";

/** Compares dotted versions numerically; returns <0, 0 or >0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(/[.+-]/).slice(0, 3).map(Number);
  const pb = b.replace(/^v/, "").split(/[.+-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Extracts `X.Y.Z` from a tool's version output, or undefined. */
export function parseVersion(output: string): string | undefined {
  return /v?(\d+\.\d+\.\d+)/.exec(output)?.[1];
}
