/**
 * A Python command-line tool the tests run (zizmor; pypiserver and twine), installed from a
 * requirements file of the repository (every package pinned with its hashes, `pip install
 * --require-hashes`) into a virtualenv of its own in the project cache: made once under the
 * toolchain's cross-process lock, keyed by the requirements' text and the interpreter, reused after.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { withLock } from "../../toolchain/src/go-build";
import { defaultCacheRoot } from "../../toolchain/src/pulumi-cli";
import { pythonEnvironment } from "./python-env";

const execFileAsync = promisify(execFile);

/** A requirements file and its `-r` includes, as one text (what the cache key is made of). */
function requirementsText(file: string): string {
  const text = fs.readFileSync(file, "utf8");
  const includes = [...text.matchAll(/^-r\s+(\S+)$/gm)].map((match) => requirementsText(path.resolve(path.dirname(file), match[1]!)));
  return [text, ...includes].join("\n");
}

/** The installed tool: its virtualenv and a path to each of its commands. */
export interface PythonTool {
  dir: string;
  python: string;
  bin(command: string): string;
}

/** The virtualenv of `requirements` (a file), named `name` in the cache; made on first use. */
export async function resolvePythonTool(
  name: string,
  requirements: string,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<PythonTool> {
  const env = pythonEnvironment();
  const { stdout } = await execFileAsync("python3", ["-c", "import sys, platform; print(sys.executable); print(platform.python_version())"], { env });
  const [executable, version] = stdout.trim().split("\n") as [string, string];
  const hash = createHash("sha256").update(requirementsText(requirements)).update(executable).digest("hex").slice(0, 12);
  const dir = path.join(defaultCacheRoot(), `${name}-py${version}-${process.platform}-${process.arch}-${hash}`);
  const marker = path.join(dir, ".complete");
  if (!fs.existsSync(marker)) {
    await withLock(
      `${dir}.lock`,
      log,
      async () => {
        if (fs.existsSync(marker)) return;
        const started = Date.now();
        log(`[${name}] installing ${path.relative(process.cwd(), requirements)} into ${dir} (first run only)`);
        fs.rmSync(dir, { recursive: true, force: true });
        await execFileAsync(executable, ["-m", "venv", dir], { env });
        await execFileAsync(path.join(dir, "bin", "python"), ["-m", "pip", "install", "--require-virtualenv", "--require-hashes", "-r", requirements], {
          env,
          timeout: 900_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        fs.writeFileSync(marker, "");
        log(`[${name}] ready (${Math.round((Date.now() - started) / 1000)} s)`);
      },
      name,
    );
  }
  return { dir, python: path.join(dir, "bin", "python"), bin: (command) => path.join(dir, "bin", command) };
}
