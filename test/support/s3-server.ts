/**
 * A real S3-compatible server for the tests of the `s3://` DIY backend: versitygw, pinned by
 * tools/pinned/versitygw/ and built into the project's cache beside the engine with the toolchain's own
 * helper (`resolvePinnedGoTool`). The server itself (start, keys, stop) lives in
 * bench/lib/s3-server.ts, which imports nothing but Node, so the bench's scale scenario (L) starts
 * the same server; the tests hand it src/'s process-group functions.
 */
import { startVersitygw, versitygwTool, VERSITYGW_VERSION, type S3Server } from "../../bench/lib/s3-server";
import { stopProcessTree, trackProcessTree } from "../../toolchain/src/process-group";
import { resolvePinnedGoTool, type PinnedGoTool } from "../../toolchain/src/pulumi-cli";
import { repoRoot } from "./pulumi-workspace";

export { VERSITYGW_VERSION, type S3Server };

/** versitygw as a pinned Go tool of the project cache. */
export const VERSITYGW: PinnedGoTool = versitygwTool(repoRoot);

/** The cached versitygw binary, built on first use (about two minutes from nothing). */
export function resolveVersitygw(log?: (line: string) => void): Promise<string> {
  return resolvePinnedGoTool(VERSITYGW, log ? { log } : {});
}

/** Starts versitygw on a free 127.0.0.1 port with its bucket, and waits until it answers. */
export function startS3Server(binary: string): Promise<S3Server> {
  return startVersitygw(binary, { trackProcessTree, stopProcessTree });
}
