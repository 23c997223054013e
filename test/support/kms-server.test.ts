import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { KMS_KEY_ALIAS, LOCAL_KMS, kmsClientEnv, seedFile, startedPort } from "./kms-server";
import { PulumiWorkspace, repoRoot } from "./pulumi-workspace";
import { unusedPort } from "./tcp-server";

const toolchain = inject("pulumiToolchain");
const PROGRAM = path.join(repoRoot, "test", "fixtures", "many");
const SECRET = "kms-test-secret-5b1e0c";

const workspaces: PulumiWorkspace[] = [];
afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.dispose();
});

async function workspace(passphrase = false): Promise<PulumiWorkspace> {
  const ws = await PulumiWorkspace.create(toolchain, { programDir: PROGRAM, withoutNodeModules: true, passphrase });
  workspaces.push(ws);
  return ws;
}

function stackConfig(ws: PulumiWorkspace): string {
  return fs.readFileSync(path.join(ws.programDir, `Pulumi.${ws.stack}.yaml`), "utf8");
}

describe("local-kms as a pinned Go tool", () => {
  it("tools/pinned/local-kms pins the commit the tests name, imports its main, and has a complete go.sum", () => {
    const version = LOCAL_KMS.version.replace(/\./g, "\\.");
    expect(fs.readFileSync(path.join(LOCAL_KMS.moduleDir, "go.mod"), "utf8")).toMatch(new RegExp(`^require github\\.com/nsmithuk/local-kms v${version}$`, "m"));
    expect(fs.readFileSync(path.join(LOCAL_KMS.moduleDir, "tools.go"), "utf8")).toContain(`_ "${LOCAL_KMS.goPackage}"`);
    expect(fs.readFileSync(path.join(LOCAL_KMS.moduleDir, "go.sum"), "utf8")).toMatch(new RegExp(`^github\\.com/nsmithuk/local-kms v${version} h1:`, "m"));
  });
});

describe("the server's seed, start line and client settings", () => {
  it("seeds one AES key with the given material under the tests' alias", () => {
    const seed = seedFile("3f1c0b7e-0000-4000-8000-000000000001", "ab".repeat(32));
    expect(seed).toContain("KeyId: 3f1c0b7e-0000-4000-8000-000000000001\n");
    expect(seed).toContain(`- ${"ab".repeat(32)}\n`);
    expect(seed).toContain(`AliasName: ${KMS_KEY_ALIAS}\n    TargetKeyId: 3f1c0b7e-0000-4000-8000-000000000001\n`);
  });

  it.each([
    ["INFO[0000] Local KMS started on 0.0.0.0:40123  ", 40123],
    ["\u001b[36mINFO\u001b[0m[2026-11-28 17:56:19.861] Local KMS started on 0.0.0.0:8080 ", 8080],
    ["INFO[0000] Data will be stored in /tmp/x", undefined],
    ["INFO[0000] Local KMS started on 0.0.0.0:", undefined],
  ])("reads the port of %j as %s", (line, port) => {
    expect(startedPort(line)).toBe(port);
  });

  it("points the AWS SDK at the server and away from the machine's own configuration", () => {
    const env = kmsClientEnv("http://127.0.0.1:4000", "/tmp/kms-root");
    expect(env.AWS_ENDPOINT_URL_KMS).toBe("http://127.0.0.1:4000");
    expect([env.AWS_CONFIG_FILE, env.AWS_SHARED_CREDENTIALS_FILE]).toEqual(["/tmp/kms-root/no-aws-config", "/tmp/kms-root/no-aws-config"]);
    expect(env.AWS_EC2_METADATA_DISABLED).toBe("true");
  });
});

describe("test stacks on the tier's KMS key", () => {
  it("keeps a stack's secrets under the key: an encrypted data key instead of a salt, and no plaintext in the stack's file", async () => {
    const ws = await workspace();
    expect(stackConfig(ws)).toMatch(new RegExp(`^secretsprovider: awskms://${KMS_KEY_ALIAS}\\?region=us-east-1&awssdk=v2$`, "m"));
    expect(stackConfig(ws)).toMatch(/^encryptedkey: \S+$/m);
    expect(stackConfig(ws)).not.toContain("encryptionsalt");
    await ws.setConfig({}, { "fixture:password": SECRET });
    expect(stackConfig(ws)).not.toContain(SECRET);
    expect((await ws.pulumi(["config", "get", "fixture:password"])).stdout.trim()).toBe(SECRET);
  });

  it("needs the server to read them: with the KMS out of reach the CLI fails and prints no secret", async () => {
    const ws = await workspace();
    await ws.setConfig({}, { "fixture:password": SECRET });
    const away = await ws.pulumi(["config", "get", "fixture:password"], {
      allowFailure: true,
      env: { AWS_ENDPOINT_URL_KMS: `http://127.0.0.1:${await unusedPort()}`, AWS_MAX_ATTEMPTS: "1" },
    });
    expect(away.code).not.toBe(0);
    expect(`${away.stdout}${away.stderr}`).not.toContain(SECRET);
    expect(away.stderr).toMatch(/KMS: Decrypt.*connection refused/);
  });

  it("keeps the passphrase for a workspace that asks for it, as a user's first stack has it", async () => {
    const ws = await workspace(true);
    expect(stackConfig(ws)).toMatch(/^encryptionsalt: \S+$/m);
    expect(stackConfig(ws)).not.toContain("secretsprovider");
  });
});
