/**
 * Release rehearsal, Python: the release's wheel installed by pip from the release folder alone
 * (`--no-index --find-links`) into the project's own virtualenv, a program written as a Python
 * user writes it, run by the real CLI with an empty PULUMI_HOME and no `node` on PATH; the engine
 * fetches the single-file plugin from the served release folder (the SDK's pluginDownloadURL,
 * redirected to 127.0.0.1) by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { createProgramVenv, resolvePythonEnv } from "./support/python-env";
import { runLifecycle, startRehearsal, type Rehearsal } from "./support/release-rehearsal";

const toolchain = inject("pulumiToolchain");

const PROJECT = `name: analytics-rehearsal-python
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: venv
config:
  dbHost:
    type: string
  dbUser:
    type: string
  dbPassword:
    type: string
    secret: true
`;

const PROGRAM = `import pulumi
import pulumi_analytics as analytics

config = pulumi.Config()
acme = analytics.Organization("acme", name="Acme")
warehouse = analytics.DataSource(
    "warehouse",
    org_id=acme.id,
    type="direct",
    dialect="POSTGRES",
    display_name="Warehouse",
    host=config.require("dbHost"),
    port=5432,
    database_name="analytics",
    username=config.require("dbUser"),
    password=config.require_secret("dbPassword"),
)
pulumi.export("dataSourceId", warehouse.id)
`;

describe("the release, as a Python user installs it", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    const pyEnv = await resolvePythonEnv();
    let release = "";
    r = await startRehearsal(toolchain, {
      writeProject: (dir, folder) => {
        release = folder;
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
        fs.writeFileSync(path.join(dir, "__main__.py"), PROGRAM);
      },
    });
    // The virtualenv is made where the project is, after the workspace copied it: a venv does not move.
    await createProgramVenv(pyEnv, path.join(r.ws.programDir, "venv"), "pulumi_analytics", ["--find-links", release]);
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 600_000);
});
