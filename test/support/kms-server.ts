/**
 * The key the tests' stacks encrypt their secrets with: local-kms (MIT, an emulator of the AWS KMS
 * API in Go), pinned by tools/pinned/local-kms/ and built into the project cache beside the engine
 * with the toolchain's `resolvePinnedGoTool`. A stack on the passphrase provider makes every CLI
 * run derive its key (PBKDF2, a million rounds: about 0.75 s of CPU, most of a `config set`); a
 * stack on `awskms://` asks the KMS once per run to decrypt its data key and encrypts locally.
 *
 * One server per tier of a test run (test/global-setup.ts), with a key made for it: a random
 * backing key seeded under one alias, its data in a temp directory removed at stop. local-kms
 * listens on every interface (it takes only a port), on a port the OS picks; it holds nothing but
 * that run's key, which never leaves it, and the ciphertexts it could decrypt exist only in the
 * tests' temp directories.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { stopProcessTree, trackProcessTree } from "../../toolchain/src/process-group";
import { resolvePinnedGoTool, type PinnedGoTool } from "../../toolchain/src/pulumi-cli";

/** local-kms as a pinned Go tool of the project cache (the commit tools/pinned/local-kms/go.mod pins). */
export const LOCAL_KMS: PinnedGoTool = {
  name: "local-kms",
  version: "0.0.0-20260228092603-2a5e92d09ab6",
  moduleDir: path.resolve(__dirname, "..", "..", "tools", "pinned", "local-kms"),
  goPackage: "github.com/nsmithuk/local-kms",
  binary: "local-kms",
};

/** The alias of the run's key, in every test stack's secrets provider URL. */
export const KMS_KEY_ALIAS = "alias/pulumi-analytics-tests";

/** What a workspace needs to put a stack's secrets under the run's key: plain data, handed from the setup to the workers. */
export interface StackSecrets {
  /** `--secrets-provider` of `pulumi stack init`: `awskms://<alias>?region=…&awssdk=v2`. */
  secretsProvider: string;
  /** The AWS SDK's settings for the CLI: the server's endpoint, placeholder keys, no shared config files. */
  env: Record<string, string>;
}

/** A running local-kms. */
export interface KmsServer extends StackSecrets {
  /** Stops the server and its process group, and removes its directory. */
  stop(): Promise<void>;
}

/** The cached local-kms binary, built on first use (about 20 s from nothing). */
export function resolveLocalKms(log?: (line: string) => void): Promise<string> {
  return resolvePinnedGoTool(LOCAL_KMS, log ? { log } : {});
}

/** local-kms's seed file: one AES key with `backingKey` as its material, under {@link KMS_KEY_ALIAS}. */
export function seedFile(keyId: string, backingKey: string): string {
  return [
    "Keys:",
    "  Symmetric:",
    "    Aes:",
    "      - Metadata:",
    `          KeyId: ${keyId}`,
    "        BackingKeys:",
    `          - ${backingKey}`,
    "Aliases:",
    `  - AliasName: ${KMS_KEY_ALIAS}`,
    `    TargetKeyId: ${keyId}`,
    "",
  ].join("\n");
}

/** The port in local-kms's start line (`Local KMS started on 0.0.0.0:<port>`), once it printed it. */
export function startedPort(output: string): number | undefined {
  const match = /Local KMS started on [^\s:]*:(\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** The AWS SDK's settings that point the CLI at `endpoint` and at nothing of the machine's own AWS setup. */
export function kmsClientEnv(endpoint: string, root: string): Record<string, string> {
  const none = path.join(root, "no-aws-config");
  return {
    AWS_ENDPOINT_URL_KMS: endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local-kms",
    AWS_SECRET_ACCESS_KEY: "local-kms",
    AWS_CONFIG_FILE: none,
    AWS_SHARED_CREDENTIALS_FILE: none,
    AWS_EC2_METADATA_DISABLED: "true",
  };
}

/** Starts local-kms (`binary`, with `env`) on a port the OS picks, seeded with a new key, and waits for its start line. */
export async function startKmsServer(binary: string, env: NodeJS.ProcessEnv = process.env): Promise<KmsServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-kms-"));
  fs.mkdirSync(path.join(root, "data"));
  fs.writeFileSync(path.join(root, "seed.yaml"), seedFile(randomUUID(), randomBytes(32).toString("hex")), { mode: 0o600 });
  const child: ChildProcess = trackProcessTree(
    spawn(binary, [], {
      env: { ...env, PORT: "0", KMS_REGION: "us-east-1", KMS_DATA_PATH: path.join(root, "data"), KMS_SEED_PATH: path.join(root, "seed.yaml") },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
  const stop = async () => {
    await stopProcessTree(child);
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    const port = await waitForStart(child);
    const endpoint = `http://127.0.0.1:${port}`;
    return { secretsProvider: `awskms://${KMS_KEY_ALIAS}?region=us-east-1&awssdk=v2`, env: kmsClientEnv(endpoint, root), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Resolves with the port local-kms listens on; rejects with its output when it exits or stays silent for 20 s. */
function waitForStart(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`local-kms ${why}:\n${output.trim()}`));
    };
    const timer = setTimeout(() => fail("printed no start line within 20 s"), 20_000);
    const read = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      const port = startedPort(output);
      if (port === undefined) return;
      clearTimeout(timer);
      child.stdout?.removeListener("data", read).resume();
      child.stderr?.removeListener("data", read).resume();
      resolve(port);
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code, signal) => fail(`exited (${signal ?? code}) before it started`));
  });
}
