import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PulumiWorkspace, repoRoot, type CommandResult } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");
const PACK = path.join(repoRoot, "policy-pack");
const PASSWORD = "policy-fixture-Pa55word";
const SSH_PASSWORD = "policy-fixture-ssh-pass";
const SSH_KEY = "policy-fixture-private-key";

/** Everything a run printed. */
const printed = (r: CommandResult) => `${r.stdout}\n${r.stderr}`;

describe("the analytics policy pack under the real CLI", () => {
  let ws: PulumiWorkspace;

  beforeAll(async () => {
    // A stack named "production", so the host policy applies; no server: preview never calls the API.
    ws = await PulumiWorkspace.create(toolchain, { programDir: path.join(repoRoot, "test/fixtures/policy"), stack: "production", linkPackage: true });
    await ws.setConfig(
      { "analytics:baseUrl": "http://127.0.0.1:9" },
      { "analytics:apiKey": "policy-fixture-api-key", "fixture:password": PASSWORD, "fixture:sshPassword": SSH_PASSWORD, "fixture:sshPrivateKey": SSH_KEY },
    );
  }, 120_000);

  afterAll(() => {
    // No run printed a credential, and the analyzer was the one next to `pulumi`, not a stray one.
    const all = ws.transcript.map(printed).join("\n");
    for (const secret of [PASSWORD, SSH_PASSWORD, SSH_KEY]) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/from \$PATH/);
    ws.dispose();
  });

  it("passes a compliant program", async () => {
    const result = await ws.pulumi(["preview", "--policy-pack", PACK]);
    expect(result.stdout).toMatch(/✅ pulumi-analytics@v0\.1\.0/);
    expect(result.stdout).not.toMatch(/\[(advisory|mandatory)\]/);
  }, 180_000);

  it("fails preview on mandatory violations, naming the resource, and warns on advisory ones", async () => {
    await ws.pulumi(["config", "set", "fixture:violate", "true"]);
    const result = await ws.pulumi(["preview", "--policy-pack", PACK], { allowFailure: true });
    expect(result.code).not.toBe(0);
    const out = printed(result);
    expect(out).toMatch(/❌ pulumi-analytics@v0\.1\.0/);
    expect(out).toMatch(/\[mandatory\]\s+analytics-ssl-required\s+\(pulumi-nodejs:dynamic\/analytics:DataSource: warehouse\)/);
    expect(out).toContain('Data source "warehouse": sslEnabled is false');
    expect(out).toMatch(/\[mandatory\]\s+analytics-production-hosts\s+\(pulumi-nodejs:dynamic\/analytics:DataSource: warehouse\)/);
    expect(out).toContain("host 10.1.2.3 is a private address");
    expect(out).toMatch(/\[mandatory\]\s+analytics-no-plaintext-credentials\s+\(pulumi-nodejs:dynamic\/analytics:DataSource: warehouse\)/);
    expect(out).toContain("password (in username)");
    expect(out).toMatch(/\[advisory\]\s+analytics-ssh-key-auth\s+\(pulumi-nodejs:dynamic\/analytics:DataSource: tunnelled\)/);
    // The tunnelled source's private host sits behind its public bastion: no host violation for it.
    expect(out).not.toMatch(/analytics-production-hosts\s+\([^)]*tunnelled\)/);
    // The naming policy is off by default.
    expect(out).not.toContain("analytics-naming");
  }, 180_000);

  it("follows --policy-pack-config: levels lowered, a disabled policy enabled, the production stacks narrowed", async () => {
    const configFile = path.join(ws.root, "policy-config.json");
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        "analytics-ssl-required": "advisory",
        "analytics-no-plaintext-credentials": "advisory",
        "analytics-production-hosts": { enforcementLevel: "mandatory", productionStacks: ["^live$"] },
        "analytics-naming": { enforcementLevel: "advisory", organizationPattern: "^[a-z-]+$" },
      }),
    );
    const result = await ws.pulumi(["preview", "--policy-pack", PACK, "--policy-pack-config", configFile]);
    const out = printed(result);
    expect(out).toMatch(/\[advisory\]\s+analytics-ssl-required\s+\(pulumi-nodejs:dynamic\/analytics:DataSource: warehouse\)/);
    expect(out).toMatch(/\[advisory\]\s+analytics-no-plaintext-credentials/);
    expect(out).toMatch(/\[advisory\]\s+analytics-naming\s+\(pulumi-nodejs:dynamic\/analytics:Organization: org\)/);
    expect(out).toContain('Organization "org": organization name "Analytics Org" does not match the required pattern /^[a-z-]+$/.');
    expect(out).not.toContain("analytics-production-hosts");
    expect(out).not.toContain("[mandatory]");
  }, 180_000);
});
