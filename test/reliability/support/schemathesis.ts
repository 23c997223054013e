/**
 * Running schemathesis (an OpenAPI test generator we did not write) against the reference server
 * from the document it serves, and reading its summary. The summary is parsed from its closing
 * lines, which name each failed check by code (`ST101 Server error: 7`).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { pythonEnvironment, type PythonEnv } from "../../support/python-env";

/** What one schemathesis run reported. */
export interface SchemathesisSummary {
  /** Test cases generated. */
  generated: number;
  /** Test cases that passed every check. */
  passed: number;
  /** Each failed check as `<code> <name>: <count>`, e.g. `ST101 Server error: 7`; empty when none failed. */
  failures: string[];
  /** Whether it closed with "No issues found". */
  clean: boolean;
}

/** Reads the summary schemathesis prints at the end of `run`. */
export function parseSchemathesisSummary(output: string): SchemathesisSummary {
  const cases = /^\s*(\d+) generated, (?:(\d+) passed|(\d+) found)/m.exec(output);
  if (cases === null) throw new Error(`schemathesis printed no test-case summary:\n${output.slice(-2000)}`);
  const failureBlock = /^Failures:\n((?:[ \t]+.*\n?)+)/m.exec(output)?.[1] ?? "";
  const failures = [...failureBlock.matchAll(/(ST\d+ [^\n]*?: \d+)/g)].map((match) => match[1]!);
  return { generated: Number(cases[1]), passed: cases[2] === undefined ? 0 : Number(cases[2]), failures, clean: /No issues found/.test(output) };
}

/** Options of {@link runSchemathesis}. */
export interface SchemathesisRun {
  /** The served document, e.g. `http://127.0.0.1:1234/openapi.json`. */
  documentUrl: string;
  /** The API key sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Examples per operation and phase. */
  maxExamples: number;
  /** Seed, so a run can be repeated. */
  seed: number;
  /** Milliseconds before it is killed. */
  timeoutMs: number;
}

/** Runs every check of every phase against the document's server, one worker; returns the summary and the whole output. */
export async function runSchemathesis(pyEnv: PythonEnv, run: SchemathesisRun): Promise<{ summary: SchemathesisSummary; output: string }> {
  const args = [
    "run",
    run.documentUrl,
    "--checks",
    "all",
    "--seed",
    String(run.seed),
    "--max-examples",
    String(run.maxExamples),
    "--workers",
    "1",
    "--header",
    `Authorization: Bearer ${run.apiKey}`,
  ];
  const executable = path.join(pyEnv.dir, "bin", "schemathesis");
  const env = { ...pythonEnvironment(), NO_COLOR: "1", COLUMNS: "120" };
  // It keeps a `.schemathesis/` folder of its own in its working directory: a temp one, never the repository.
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-schemathesis-"));
  const output = await promisify(execFile)(executable, args, { env, cwd, timeout: run.timeoutMs, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => `${stdout}\n${stderr}`,
    // A run that found failures exits 1: its summary says which.
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}\n${error.stderr ?? ""}`,
  );
  fs.rmSync(cwd, { recursive: true, force: true });
  return { summary: parseSchemathesisSummary(output), output };
}
