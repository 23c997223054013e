/**
 * Python: sdk/python built into an sdist and a wheel with `python -m build` and installed from the
 * wheel into a virtualenv; examples/python type-checked with mypy against the SDK's type hints;
 * and a Python Automation API program (test/fixtures/python-automation) running an inline program
 * through the pinned engine and the native provider plugin against a reference server, on a file
 * backend. (examples/python runs with the Python language host in
 * test/release/release-rehearsal-python.test.ts, on the released wheel and plugin.) The pinned Python packages live in a cached virtualenv (test/support/python-env.ts),
 * made on the first run. Needs `npm run build` (the plugin runs dist/native/bin.js) and python3.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { pulumiEnvironment } from "../../toolchain/src/pulumi-cli";
import { writePluginShim } from "../support/plugin-shim";
import { expectAutomationSteps } from "../support/example-lifecycle";
import { TEST_PASSPHRASE, repoRoot } from "../support/pulumi-workspace";
import {
  PINNED_PYTHON_SDK_VERSION,
  buildPythonSdk,
  createProgramVenv,
  resolvePythonEnv,
  runPython,
  type PythonEnv,
  type SdkDistributions,
} from "../support/python-env";

const toolchain = inject("pulumiToolchain");
const EXAMPLE = path.join(repoRoot, "examples/python");

let pyEnv: PythonEnv;
let dists: SdkDistributions;
/** Interpreter of a virtualenv with the SDK installed from its wheel, shared by every part below. */
let venvPython: string;
let work: string;

beforeAll(async () => {
  expect(toolchain.pythonLanguageHost, "the toolchain has no pulumi-language-python").toBeTruthy();
  pyEnv = await resolvePythonEnv();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-python-"));
  dists = await buildPythonSdk(pyEnv, path.join(work, "sdk"));
  venvPython = await createProgramVenv(pyEnv, path.join(work, "venv"), dists.wheel);
}, 900_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The names inside a wheel (zip) or sdist (tar.gz), listed by Python's own modules. */
async function archiveNames(file: string): Promise<string[]> {
  const script =
    "import sys, tarfile, zipfile\nf = sys.argv[1]\nprint('\\n'.join(zipfile.ZipFile(f).namelist() if f.endswith('.whl') else tarfile.open(f).getnames()))";
  return (await runPython(pyEnv.python, ["-c", script, file])).stdout.trim().split("\n");
}

describe("sdk/python as a package", () => {
  it("builds into an sdist and a wheel with python -m build, writing nothing into the repository", async () => {
    expect(path.basename(dists.wheel)).toBe("pulumi_analytics-0.1.0-py3-none-any.whl");
    const wheel = await archiveNames(dists.wheel);
    for (const file of ["__init__.py", "organization.py", "data_source.py", "provider.py", "config/vars.py", "py.typed", "pulumi-plugin.json"])
      expect(wheel).toContain(`pulumi_analytics/${file}`);
    expect(await archiveNames(dists.sdist)).toContain("pulumi_analytics-0.1.0/pyproject.toml");
    // Nothing new, tracked or ignored (build/, *.egg-info, dist/, __pycache__/), beside the sources.
    const status = execFileSync("git", ["status", "--porcelain", "--ignored", "--untracked-files=all", "--", "sdk/python", "examples/python"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(status.split("\n").filter((line) => line.startsWith("??") || line.startsWith("!!"))).toEqual([]);
  });

  it("has the README as the wheel's long description, and the project's URLs and author", async () => {
    const script =
      "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.read(next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))).decode())";
    const metadata = (await runPython(pyEnv.python, ["-c", script, dists.wheel])).stdout;
    expect(metadata).toMatch(/^Description-Content-Type: text\/markdown$/m);
    expect(metadata).toMatch(/^Project-URL: Homepage, https:\/\/github\.com\/pulumi-analytics\/pulumi-analytics$/m);
    expect(metadata).toMatch(/^Project-URL: Repository, https:\/\/github\.com\/pulumi-analytics\/pulumi-analytics$/m);
    expect(metadata).toMatch(/^Author: pulumi-analytics$/m);
    expect(metadata).toMatch(/^Keywords: pulumi,analytics,category\/database,kind\/native$/m);
    // The long description is the body after the headers: the SDK's README, whole.
    expect(metadata.slice(metadata.indexOf("\n\n") + 2).trim()).toBe(fs.readFileSync(path.join(repoRoot, "sdk/python/README.md"), "utf8").trim());
  });

  it("installs from the wheel alone, with its dependencies at the pinned versions, and names its plugin", async () => {
    const script =
      "import importlib.metadata as m, json, pulumi_analytics\n" +
      "print(json.dumps({'file': pulumi_analytics.__file__, 'pulumi': m.version('pulumi'), 'requires': m.requires('pulumi_analytics')}))";
    const installed = JSON.parse((await runPython(venvPython, ["-c", script])).stdout) as { file: string; pulumi: string; requires: string[] };
    expect(installed.file.startsWith(path.join(work, "venv"))).toBe(true);
    expect(installed.pulumi).toBe(PINNED_PYTHON_SDK_VERSION);
    expect(installed.requires.some((r) => r.startsWith("pulumi<4.0.0,>=") || r.startsWith("pulumi>="))).toBe(true);
    const plugin = JSON.parse(fs.readFileSync(path.join(path.dirname(installed.file), "pulumi-plugin.json"), "utf8")) as Record<string, unknown>;
    expect(plugin).toMatchObject({ resource: true, name: "analytics" });
  });
});

describe("examples/python type-checks with mypy against the installed SDK", () => {
  const mypy = (file: string) =>
    runPython(pyEnv.python, ["-m", "mypy", "--strict", "--python-executable", venvPython, "--cache-dir", path.join(work, "mypy-cache"), file], {
      cwd: work,
      allowFailure: true,
    });

  it("passes --strict, and so does the Automation API fixture", async () => {
    const example = await mypy(path.join(EXAMPLE, "__main__.py"));
    expect(example.code, example.stdout).toBe(0);
    expect(example.stdout).toMatch(/Success: no issues found in 1 source file/);
    const fixture = await mypy(path.join(repoRoot, "test/fixtures/python-automation/automation.py"));
    expect(fixture.code, fixture.stdout).toBe(0);
    expect(fixture.stdout).toMatch(/Success: no issues found in 1 source file/);
  }, 300_000);

  it("fails copies with a misspelled argument or a port given as a string, naming the wrong line", async () => {
    const source = fs.readFileSync(path.join(EXAMPLE, "__main__.py"), "utf8");
    const copies = {
      "wrong_name.py": source.replace("display_name=display_name,", "display_nam=display_name,"),
      "wrong_type.py": source.replace("port=5432,", 'port="5432",'),
    };
    for (const [file, text] of Object.entries(copies)) {
      expect(text).not.toBe(source);
      fs.writeFileSync(path.join(work, file), text);
    }
    const callLine = source.split("\n").findIndex((line) => line.startsWith("warehouse = analytics.DataSource(")) + 1;
    const name = await mypy(path.join(work, "wrong_name.py"));
    expect(name.code).not.toBe(0);
    expect(name.stdout).toContain(
      `wrong_name.py:${callLine}: error: Unexpected keyword argument "display_nam" for overloaded function "DataSource"; did you mean "display_name"?`,
    );
    const type = await mypy(path.join(work, "wrong_type.py"));
    expect(type.code).not.toBe(0);
    expect(type.stdout).toContain(`wrong_type.py:${callLine}: error: No overload variant of "DataSource" matches argument types`);
    expect(type.stdout).toMatch(/port: int \| Awaitable\[int\] \| Output\[int\] \| None/);
  }, 300_000);
});

describe("a Python Automation API inline program with the SDK's wheel", () => {
  let server: ReferenceServer;

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["auto"], inspection: true });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it("runs up, a no-change up and destroy against the reference server", async () => {
    const root = path.join(work, "automation");
    for (const dir of ["backend", "home", "workspace"]) fs.mkdirSync(path.join(root, dir), { recursive: true });
    const env = {
      ...pulumiEnvironment(toolchain),
      PULUMI_HOME: path.join(root, "home"),
      PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
      ANALYTICS_TEST_WORK_DIR: path.join(root, "workspace"),
      ANALYTICS_TEST_BACKEND: `file://${path.join(root, "backend")}`,
      ANALYTICS_TEST_PLUGIN: writePluginShim(path.join(root, "plugin-bin")),
      ANALYTICS_TEST_BASE_URL: server.url,
      ANALYTICS_TEST_API_KEY: server.apiKeys.auto!,
    };
    const { stdout, stderr } = await runPython(venvPython, [path.join(repoRoot, "test/fixtures/python-automation/automation.py")], {
      env,
      cwd: root,
      timeout: 600_000,
    });
    expectAutomationSteps(server, { stdout, stderr, backend: path.join(root, "backend"), apiKey: server.apiKeys.auto! });
  }, 600_000);
});
