/**
 * Release rehearsal, Python: the sdist and wheel of the release folder uploaded by
 * `tools/publish.js pypi` (twine, as the release workflow uploads them to PyPI) to pypiserver on
 * 127.0.0.1 as its one user; then `pip install pulumi_analytics` into the project's own
 * virtualenv with that server as the index (the README's command; only the index differs), a
 * program written as a Python user writes it, run by the real CLI with an empty PULUMI_HOME and
 * no `node` on PATH; the engine fetches the single-file plugin from the served release folder
 * (the SDK's pluginDownloadURL, redirected to 127.0.0.1) by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pythonDistributions } from "../tools/publish.js";
import { createProgramVenv, resolvePythonEnv, runPython, type PythonEnv } from "./support/python-env";
import type { PythonTool } from "./support/python-tool";
import { resolvePypiTools, startPypiServer, type RegistryServer } from "./support/registries";
import { publish, runLifecycle, startRehearsal, VERSION, type Rehearsal } from "./support/release-rehearsal";


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
  let pypi: RegistryServer;
  let uploadLog = "";
  let venvPython = "";
  let tools: PythonTool;

  beforeAll(async () => {
    let pyEnv: PythonEnv;
    [pyEnv, tools] = await Promise.all([resolvePythonEnv(), resolvePypiTools()]);
    r = await startRehearsal(toolchain, {
      writeProject: (dir) => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
        fs.writeFileSync(path.join(dir, "__main__.py"), PROGRAM);
      },
    });
    pypi = await startPypiServer(path.join(r.scratch, "pypi"), tools);
    uploadLog = await publish("pypi", { release: r.release, registry: pypi.url, python: tools.python }, { TWINE_USERNAME: pypi.username, TWINE_PASSWORD: pypi.password });
    process.stderr.write(`[rehearsal python] ${uploadLog.trim().split("\n").filter((line) => /Uploading|View at/.test(line)).join("; ")}\n`);
    // The virtualenv is made where the project is, after the workspace copied it: a venv does not move.
    venvPython = await createProgramVenv(pyEnv, path.join(r.ws.programDir, "venv"), "pulumi_analytics", ["--index-url", `${pypi.url}simple/`]);
  }, 900_000);

  afterAll(async () => {
    await pypi?.close();
    await r?.close();
  });

  it("uploads the release's sdist and wheel with twine, and pip installs that wheel, byte for byte", async () => {
    const uploaded = fs.readdirSync(path.join(r.scratch, "pypi", "packages")).sort();
    expect(uploaded).toEqual(pythonDistributions(r.release).map((file) => path.basename(file)));
    for (const file of uploaded) expect(fs.readFileSync(path.join(r.scratch, "pypi", "packages", file)).equals(fs.readFileSync(path.join(r.release, file)))).toBe(true);
    const { stdout } = await runPython(venvPython, ["-m", "pip", "show", "pulumi_analytics"]);
    expect(stdout).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
    expect(uploadLog).not.toContain(pypi.password);
  });

  it("refuses an upload without the server's credentials", async () => {
    await expect(publish("pypi", { release: r.release, registry: pypi.url, python: tools.python }, { TWINE_USERNAME: pypi.username, TWINE_PASSWORD: "wrong" })).rejects.toThrow(/403 Forbidden|401 Unauthorized/);
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 600_000);
});
