/**
 * Release rehearsal, YAML: a project written as docs/native-provider.md tells a YAML user, with the
 * release's package file copied to `sdks/analytics/`, run by the real CLI with an empty PULUMI_HOME
 * and no `node` on PATH; the engine fetches the single-file plugin from the served release folder
 * (the schema's pluginDownloadURL, redirected to 127.0.0.1) by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runLifecycle, startRehearsal, VERSION, PLUGIN_DOWNLOAD_URL, type Rehearsal } from "./support/release-rehearsal";

const { yamlPackageFileName } = require("../tools/release.js") as { yamlPackageFileName(version: string): string };
const toolchain = inject("pulumiToolchain");

const PROGRAM = `name: analytics-rehearsal-yaml
runtime: yaml
config:
  dbHost:
    type: string
  dbUser:
    type: string
  dbPassword:
    type: string
    secret: true
resources:
  acme:
    type: analytics:Organization
    properties:
      name: Acme
  warehouse:
    type: analytics:DataSource
    properties:
      orgId: \${acme.id}
      type: direct
      dialect: POSTGRES
      displayName: Warehouse
      host: \${dbHost}
      port: 5432
      databaseName: analytics
      username: \${dbUser}
      password: \${dbPassword}
outputs:
  dataSourceId: \${warehouse.id}
`;

describe("the release, as a YAML user installs it", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      writeProject: (dir, release) => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROGRAM);
        fs.mkdirSync(path.join(dir, "sdks", "analytics"), { recursive: true });
        fs.copyFileSync(path.join(release, yamlPackageFileName(VERSION)), path.join(dir, "sdks", "analytics", yamlPackageFileName(VERSION)));
      },
    });
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("has a package file naming the version and the schema's plugin download URL", () => {
    expect(fs.readFileSync(path.join(r.release, yamlPackageFileName(VERSION)), "utf8")).toBe(
      `packageDeclarationVersion: 1\nname: analytics\nversion: ${VERSION}\ndownloadUrl: ${PLUGIN_DOWNLOAD_URL}\n`,
    );
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 600_000);
});
