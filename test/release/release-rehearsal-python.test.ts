/**
 * Release rehearsal, Python: the sdist and wheel as the release workflow's pypi job uploaded them
 * (`tools/publish.js pypi`, twine, to pypiserver on 127.0.0.1 in the release run), served again by
 * pypiserver; then `pip install pulumi_analytics` into the project's own
 * virtualenv with that server as the index (the README's command; only the index differs), and
 * examples/python (its Pulumi.yaml and __main__.py) run by the real CLI with an empty PULUMI_HOME and
 * no `node` on PATH; the engine fetches the single-file plugin from the served release folder
 * (the SDK's pluginDownloadURL, redirected to 127.0.0.1) by itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pythonDistributions } from "../../tools/publish.js";
import { createProgramVenv, resolvePythonEnv, runPython, type PythonEnv } from "../support/python-env";
import type { PythonTool } from "../support/python-tool";
import { resolvePypiTools, type RegistryServer } from "../support/registries";
import { sharedReleaseRun } from "../support/release-folder";
import { servePublishedPypi } from "../support/release-run-registries";
import { copyExample, publish, runLifecycle, startRehearsal, VERSION, type Rehearsal } from "../support/release-rehearsal";

const toolchain = inject("pulumiToolchain");

describe("the release, as a Python user installs it", () => {
  let r: Rehearsal;
  let pypi: RegistryServer;
  let venvPython = "";
  let tools: PythonTool;

  beforeAll(async () => {
    let pyEnv: PythonEnv;
    [pyEnv, tools] = await Promise.all([resolvePythonEnv(), resolvePypiTools()]);
    r = await startRehearsal(toolchain, {
      writeProject: (dir) => copyExample("python", dir, ["Pulumi.yaml", "__main__.py"]),
    });
    pypi = await servePublishedPypi(await sharedReleaseRun(), path.join(r.scratch, "pypi"), tools);
    // The virtualenv is made where the project is, after the workspace copied it: a venv does not move.
    venvPython = await createProgramVenv(pyEnv, path.join(r.ws.programDir, "venv"), "pulumi_analytics", ["--index-url", `${pypi.url}simple/`]);
  }, 900_000);

  afterAll(async () => {
    await pypi?.close();
    await r?.close();
  });

  it("serves the release's sdist and wheel as the release workflow uploaded them, byte for byte, and pip installs that wheel", async () => {
    const uploaded = fs.readdirSync(path.join(r.scratch, "pypi", "packages")).sort();
    expect(uploaded).toEqual(pythonDistributions(r.release).map((file) => path.basename(file)));
    for (const file of uploaded)
      expect(fs.readFileSync(path.join(r.scratch, "pypi", "packages", file)).equals(fs.readFileSync(path.join(r.release, file)))).toBe(true);
    const { stdout } = await runPython(venvPython, ["-m", "pip", "show", "pulumi_analytics"]);
    expect(stdout).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
  });

  it("refuses an upload without the server's credentials", async () => {
    await expect(
      publish("pypi", { release: r.release, registry: pypi.url, python: tools.python }, { TWINE_USERNAME: pypi.username, TWINE_PASSWORD: "wrong" }),
    ).rejects.toThrow(/403 Forbidden|401 Unauthorized/);
  });

  it("runs examples/python: fetches the plugin from the release by itself, previews, creates, fails a rejected key, replaces a rename, refuses an import and destroys", async () => {
    await runLifecycle(r, { rejectedKey: true });
  }, 600_000);
});
