/**
 * The enum types change nothing for existing programs and stacks, with the real CLI: a stack made
 * by 0.1.0 (its plugin and Python SDK, test/fixtures/upgrade/, built from the commit before the
 * enums) with the plain strings `"direct"` and `"POSTGRES"` previews with no change on this
 * version's plugin and SDK, both with the same program and with examples/python, which passes the
 * enum constants; the engine is sent the same string values, so the state keeps them. The
 * plain-string program also type-checks (mypy --strict) against this version's SDK. Needs
 * `npm run build` and python3.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { configureExample, writePluginShim } from "../support/plugin-shim";
import { DS_TYPE } from "../support/example-lifecycle";
import { PulumiWorkspace, repoRoot, resourcesOfType } from "../support/pulumi-workspace";
import { PYTHON_TEST_VARIABLES, buildPythonSdk, createProgramVenv, resolvePythonEnv, runPython, type PythonEnv } from "../support/python-env";

const toolchain = inject("pulumiToolchain");
const FIXTURES = path.join(repoRoot, "test/fixtures/upgrade");
const EXAMPLE = path.join(repoRoot, "examples/python");
const PASSWORD = "upgrade-password-1a2b3c";

/** examples/python as 0.1.0 had it: the plain strings where it now has the enum constants. */
function plainStringProgram(): string {
  const source = fs.readFileSync(path.join(EXAMPLE, "__main__.py"), "utf8");
  const plain = source
    .replace("type=analytics.DataSourceType.DIRECT,", 'type="direct",')
    .replace("dialect=analytics.DataSourceDialect.POSTGRES,", 'dialect="POSTGRES",');
  expect(plain.match(/="direct",|="POSTGRES",/g)).toHaveLength(2);
  return plain;
}

/** The secret signature key of the engine's serialized secrets. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** A state resource with each secret value reduced to its marker: ciphertexts are new on every write. */
function withoutCiphertexts(resource: object): unknown {
  return JSON.parse(JSON.stringify(resource), (_, value: unknown) => (value !== null && typeof value === "object" && SECRET_SIG in value ? "[secret]" : value));
}

/** Points the program's Pulumi.yaml at the plugin in `dir` (relative to the program), replacing any earlier choice. */
function usePlugin(programDir: string, dir: string): void {
  const file = path.join(programDir, "Pulumi.yaml");
  const project = fs.readFileSync(file, "utf8").replace(/\nplugins:\n[\s\S]*$/, "\n");
  fs.writeFileSync(file, `${project}plugins:\n  providers:\n    - name: analytics\n      path: ${dir}\n`);
}

/** Makes `venv` in the program folder the virtualenv at `target`. */
function useVenv(programDir: string, target: string): void {
  fs.rmSync(path.join(programDir, "venv"), { force: true });
  fs.symlinkSync(target, path.join(programDir, "venv"), "dir");
}

describe("a stack made by 0.1.0 with plain strings, on this version's plugin and SDK", () => {
  let ws: PulumiWorkspace;
  let server: ReferenceServer;
  let pyEnv: PythonEnv;
  let work: string;
  let newVenvPython: string;
  let stateBefore: Array<{ inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>;

  beforeAll(async () => {
    pyEnv = await resolvePythonEnv();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-enum-upgrade-"));
    const oldVenv = path.join(work, "venv-0.1.0");
    await createProgramVenv(pyEnv, oldVenv, path.join(FIXTURES, "pulumi_analytics-0.1.0-py3-none-any.whl"));
    const dists = await buildPythonSdk(pyEnv, path.join(work, "sdk"));
    newVenvPython = await createProgramVenv(pyEnv, path.join(work, "venv-new"), dists.wheel);
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["upgrader"], inspection: true });
    ws = await PulumiWorkspace.create(toolchain, { programDir: EXAMPLE, withoutNodeModules: true, env: PYTHON_TEST_VARIABLES });
    fs.writeFileSync(path.join(ws.programDir, "__main__.py"), plainStringProgram());
    const oldPlugin = path.join(ws.programDir, "plugin-0.1.0");
    fs.mkdirSync(oldPlugin);
    execFileSync("tar", ["-xzf", path.join(FIXTURES, "pulumi-resource-analytics-v0.1.0.tar.gz"), "-C", oldPlugin]);
    writePluginShim(path.join(ws.programDir, "plugin-bin"));
    useVenv(ws.programDir, oldVenv);
    usePlugin(ws.programDir, "./plugin-0.1.0");
    await configureExample(ws, { baseUrl: server.url, apiKey: server.apiKeys.upgrader!, dbPassword: PASSWORD });
    await ws.pulumi(["up", "--yes"]);
    stateBefore = resourcesOfType(await ws.exportStack(), DS_TYPE);
  }, 900_000);

  afterAll(async () => {
    ws?.dispose();
    await server?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("was made by 0.1.0: its SDK had no enum types, and the state holds the plain strings", async () => {
    const probe = "import importlib.util as u, json; print(json.dumps(u.find_spec('pulumi_analytics._enums') is not None))";
    expect((await runPython(path.join(ws.programDir, "venv", "bin", "python"), ["-c", probe])).stdout.trim()).toBe("false");
    expect(stateBefore).toHaveLength(1);
    expect(stateBefore[0]!.inputs).toMatchObject({ type: "direct", dialect: "POSTGRES" });
    expect(stateBefore[0]!.outputs).toMatchObject({ type: "direct", dialect: "POSTGRES" });
  });

  it("previews with no change on this version's plugin and SDK, with the same plain-string program", async () => {
    useVenv(ws.programDir, path.dirname(path.dirname(newVenvPython)));
    usePlugin(ws.programDir, "./plugin-bin");
    const requests = server.inspect.requestCount();
    await ws.pulumi(["preview", "--expect-no-changes"]);
    expect(server.inspect.requestCount()).toBe(requests);
  }, 300_000);

  it("previews and updates with no change with the program on the enum constants, keeping the state's strings", async () => {
    fs.copyFileSync(path.join(EXAMPLE, "__main__.py"), path.join(ws.programDir, "__main__.py"));
    expect(fs.readFileSync(path.join(ws.programDir, "__main__.py"), "utf8")).toContain("type=analytics.DataSourceType.DIRECT,");
    const preview = JSON.parse((await ws.pulumi(["preview", "--json", "--expect-no-changes"])).stdout) as { steps: Array<{ op: string }> };
    expect(new Set(preview.steps.map((s) => s.op))).toEqual(new Set(["same"]));
    await ws.pulumi(["up", "--yes", "--expect-no-changes"]);
    // The same object, inputs and outputs; only the secrets' ciphertexts differ (a fresh nonce per write).
    expect(resourcesOfType(await ws.exportStack(), DS_TYPE).map(withoutCiphertexts)).toEqual(stateBefore.map(withoutCiphertexts));
  }, 300_000);

  it("type-checks the plain-string program against this version's SDK (mypy --strict)", async () => {
    const file = path.join(work, "plain_strings.py");
    fs.writeFileSync(file, plainStringProgram());
    const result = await runPython(
      pyEnv.python,
      ["-m", "mypy", "--strict", "--python-executable", newVenvPython, "--cache-dir", path.join(work, "mypy-cache"), file],
      { cwd: work, allowFailure: true },
    );
    expect(result.stdout).toMatch(/Success: no issues found in 1 source file/);
    // And a value the enum type does not have is a type error there, as a constant.
    fs.writeFileSync(file, fs.readFileSync(path.join(EXAMPLE, "__main__.py"), "utf8").replace("DataSourceType.DIRECT", "DataSourceType.INDIRECT"));
    const wrong = await runPython(
      pyEnv.python,
      ["-m", "mypy", "--strict", "--python-executable", newVenvPython, "--cache-dir", path.join(work, "mypy-cache"), file],
      { cwd: work, allowFailure: true },
    );
    expect(wrong.stdout).toMatch(/"type\[DataSourceType\]" has no attribute "INDIRECT"/);
  }, 300_000);
});
