/**
 * A real S3-compatible server (versitygw, Apache-2.0, a Go S3 server serving a plain directory, one
 * sub-directory per bucket) for the `s3://` DIY backend, shared by the tests
 * (test/support/s3-server.ts) and the bench (scenario L, bench/lib/scale.ts). It is a test tool,
 * pinned by tools/pinned/versitygw/ and built into the project's cache with the toolchain's
 * `resolvePinnedGoTool`; users never build it and tools/pinned/versitygw/ is not in the package's files.
 *
 * This module imports nothing but Node: each side passes its own repository root and process-group
 * functions (the tests take them from toolchain/src/, the bench from the built `@pulumi-analytics/toolchain`),
 * so neither imports the other's code through a package boundary.
 *
 * versitygw's posix backend keeps object metadata in user extended attributes, so the temp
 * directory must be on a filesystem that has them (ext4, xfs, btrfs and tmpfs do). Each server
 * listens on 127.0.0.1 only (versitygw binds every interface unless told), on a free port, with
 * random root keys and a temp directory of its own, and is stopped with its process group.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { freePort } from "./spawned";

/** The versitygw release tools/pinned/versitygw/go.mod pins. */
export const VERSITYGW_VERSION = "1.8.0";

/** versitygw as a pinned Go tool (the toolchain's `PinnedGoTool`) of the repository at `repoRoot`. */
export function versitygwTool(repoRoot: string): { name: string; version: string; moduleDir: string; goPackage: string; binary: string } {
  return {
    name: "versitygw",
    version: VERSITYGW_VERSION,
    moduleDir: path.join(repoRoot, "tools", "pinned", "versitygw"),
    goPackage: "github.com/versity/versitygw/cmd/versitygw",
    binary: "versitygw",
  };
}

/** How a caller tracks and stops a process group (the toolchain's `trackProcessTree` and `stopProcessTree`). */
export interface ProcessGroupFunctions {
  trackProcessTree<T extends ChildProcess>(child: T): T;
  stopProcessTree(child: ChildProcess): Promise<void>;
}

/** A running versitygw, with one bucket, `state`. */
export interface S3Server {
  /** `127.0.0.1:<port>`. */
  endpoint: string;
  /** The root secret key, random per server (as is the access key). */
  secretAccessKey: string;
  /** `s3://<bucket>[/<prefix>]?endpoint=…&disableSSL=true&s3ForcePathStyle=true&region=us-east-1`. */
  backendUrl(prefix?: string): string;
  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the CLI (and the AWS SDK's default chain); the region is in the URL. */
  env(): NodeJS.ProcessEnv;
  /** Every file below the bucket (its objects, paths relative to it), as text. */
  files(): Map<string, string>;
  /** Stops the server and its process group, and removes its directory. */
  stop(): Promise<void>;
}

/** Whether a TCP connection to `port` opens. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts versitygw (`binary`) on a free 127.0.0.1 port with its bucket, and waits until it answers. */
export async function startVersitygw(binary: string, group: ProcessGroupFunctions): Promise<S3Server> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-s3-"));
  const dataDir = path.join(root, "data");
  const bucket = "state";
  const bucketDir = path.join(dataDir, bucket);
  fs.mkdirSync(bucketDir, { recursive: true });
  const accessKeyId = `AK${randomBytes(9).toString("hex").toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString("base64url");

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = group.trackProcessTree(
      spawn(binary, ["--port", `127.0.0.1:${port}`, "posix", dataDir], {
        env: { ...process.env, ROOT_ACCESS_KEY: accessKeyId, ROOT_SECRET_KEY: secretAccessKey },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      }),
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    const deadline = Date.now() + 20_000;
    let up = false;
    while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      if (await answers(port)) {
        up = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (up && child.exitCode === null) {
      const endpoint = `127.0.0.1:${port}`;
      return {
        endpoint,
        secretAccessKey,
        backendUrl: (prefix) => `s3://${bucket}${prefix ? `/${prefix}` : ""}?endpoint=${endpoint}&disableSSL=true&s3ForcePathStyle=true&region=us-east-1`,
        env: () => ({ AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey }),
        files: () => readTree(bucketDir),
        stop: async () => {
          await group.stopProcessTree(child);
          fs.rmSync(root, { recursive: true, force: true });
        },
      };
    }
    await group.stopProcessTree(child);
    // Another process may have taken the port between the probe and the start: try another one.
    if (attempt >= 3) {
      fs.rmSync(root, { recursive: true, force: true });
      throw new Error(`versitygw did not answer on 127.0.0.1 after ${attempt} attempts:\n${output.trim()}`);
    }
  }
}

/** Every file below `dir`, relative path → text. */
function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(path.relative(dir, full), fs.readFileSync(full, "utf8"));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return files;
}
