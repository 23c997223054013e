/**
 * CONTRIBUTING's walkthrough "Add a field", taken on a copy of the tree: the walkthrough's code is
 * put where it says (the spec's input and output at the end of `inputs` and `outputs` in
 * src/kinds/data-source.ts, the changelog's line under `### Added` of `## Unreleased`), and its
 * commands run as written (`npm run regenerate`, which needs the Pulumi CLI and the language hosts
 * of this tier's toolchain). The copy must then hold the field in the package schema and in every
 * SDK, have changed nothing but the spec, the changelog, the schema and the SDKs, keep the schema
 * compatible with the last release's, and pass the unit tests of what changed. A step that stops
 * working, or a walkthrough that no longer says where its code goes, fails here. The tree itself
 * is never written.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { fencedBlocks, section } from "../support/markdown";
import { repoRoot } from "../support/pulumi-workspace";
import { TEST_RUN_MARKER } from "../support/test-run.js";

const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), "utf8");
const walkthrough = section(read(repoRoot, "CONTRIBUTING.md"), "Add a field") ?? "";
const blocks = fencedBlocks(walkthrough);
/** The walkthrough's code: the spec's input and output, the changelog's line, the commands. */
const [inputStep, outputStep] = blocks.filter((b) => b.language === "ts").map((b) => b.body);
const changelogStep = blocks.find((b) => b.language === "markdown")?.body;
const commands = blocks
  .filter((b) => b.language === "sh")
  .flatMap((b) => b.body.split("\n"))
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
/** The field the walkthrough adds, as its spec's code names it. */
const field = /^\s*(\w+): \{/m.exec(inputStep ?? "")?.[1] ?? "";
const SPEC_FILE = "src/kinds/data-source.ts";
const pascal = (name: string): string => name[0]!.toUpperCase() + name.slice(1);
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `text` with `block` added as the last entry of the object literal `key: {` opened at two spaces' indentation. */
function appendEntry(text: string, key: string, block: string): string {
  const lines = text.split("\n");
  const start = lines.indexOf(`  ${key}: {`);
  const end = lines.findIndex((line, i) => i > start && line === "  },");
  if (start < 0 || end < 0) throw new Error(`${SPEC_FILE} has no \`${key}: {\` … \`},\` at two spaces' indentation, where the walkthrough puts the field`);
  lines.splice(end, 0, ...block.trimEnd().split("\n"));
  return lines.join("\n");
}

/** `changelog` with `line` first under `### Added` of `## Unreleased`. */
function addToChangelog(changelog: string, line: string): string {
  const unreleased = changelog.indexOf("\n## Unreleased\n");
  const added = changelog.indexOf("\n### Added\n\n", unreleased);
  const next = changelog.indexOf("\n## ", unreleased + 1);
  if (unreleased < 0 || added < 0 || (next >= 0 && added > next))
    throw new Error("CHANGELOG.md has no `### Added` under `## Unreleased`, where the walkthrough puts its line");
  const at = added + "\n### Added\n\n".length;
  return `${changelog.slice(0, at)}${line.trimEnd()}\n${changelog.slice(at)}`;
}

/** A copy of the working tree (tracked files and new ones git does not ignore) as a git repository of one commit, sharing node_modules. */
function copyOfTree(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "walkthrough-add-a-field-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repoRoot })
    .toString("utf8")
    .split("\0")
    .filter(Boolean);
  for (const file of new Set(files)) {
    const from = path.join(repoRoot, file);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, file));
    fs.chmodSync(path.join(dir, file), fs.statSync(from).mode);
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=walkthrough", "-c", "user.email=walkthrough@example.com", "-c", "commit.gpgsign=false", ...args], {
      cwd: dir,
      stdio: "pipe",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "the tree before the walkthrough");
  return dir;
}

/**
 * Runs `command` (one line of the walkthrough) in `dir` through the shell, as a contributor types
 * it, without blocking the worker; rejects with its output when it fails.
 */
async function run(command: string, dir: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    await promisify(execFile)("bash", ["-c", command], { cwd: dir, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "", code } = error as { stdout?: string; stderr?: string; code?: number | string };
    throw new Error(`\`${command}\` failed (${code}):\n${stdout}\n${stderr}`.slice(-20_000), { cause: error });
  }
}

describe("CONTRIBUTING's walkthrough: add a field", () => {
  let copy = "";
  afterAll(() => {
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it("says what it adds, where, and the one command that regenerates", () => {
    expect(field).toMatch(/^[a-z]\w+$/);
    expect(outputStep).toMatch(new RegExp(`^\\s*${field}: \\{`, "m"));
    expect(changelogStep).toMatch(/^- /);
    expect(commands).toEqual(["npm run regenerate"]);
    expect(walkthrough).toContain(SPEC_FILE);
    // A field of that name would not be a new one.
    expect(read(repoRoot, SPEC_FILE)).not.toMatch(new RegExp(`^\\s*${field}: \\{`, "m"));
  });

  it("takes its steps on a copy of the tree: the field reaches the schema and every SDK, and nothing else changes", async () => {
    copy = copyOfTree();
    let spec = read(copy, SPEC_FILE);
    spec = appendEntry(spec, "inputs", inputStep!);
    spec = appendEntry(spec, "outputs", outputStep!);
    fs.writeFileSync(path.join(copy, SPEC_FILE), spec);
    fs.writeFileSync(path.join(copy, "CHANGELOG.md"), addToChangelog(read(copy, "CHANGELOG.md"), changelogStep!));
    for (const command of commands) await run(command, copy);

    const changed = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: copy, encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(3));
    const outsideSdks = changed.filter((file) => !file.startsWith("sdk/"));
    expect(outsideSdks.sort()).toEqual(["CHANGELOG.md", SPEC_FILE, "src/native/schema.json"].sort());
    for (const language of ["go", "python", "nodejs", "dotnet", "java"])
      expect(
        changed.some((file) => file.startsWith(`sdk/${language}/`)),
        `sdk/${language}/`,
      ).toBe(true);

    const docOf = (block: string): string => /\/\*\* (.*?) \*\//.exec(block)?.[1] ?? "";
    type Property = { description?: string };
    const schema = JSON.parse(read(copy, "src/native/schema.json")) as {
      resources: Record<string, { inputProperties: Record<string, Property>; properties: Record<string, Property> }>;
    };
    const dataSource = schema.resources["analytics:index:DataSource"]!;
    expect(dataSource.inputProperties[field]?.description).toContain(docOf(inputStep!));
    expect(dataSource.properties[field]?.description).toContain(docOf(outputStep!));
    const sdkNames: Array<[string, string]> = [
      ["sdk/go/analytics/dataSource.go", pascal(field)],
      ["sdk/python/pulumi_analytics/data_source.py", snake(field)],
      ["sdk/nodejs/dataSource.ts", field],
      ["sdk/dotnet/DataSource.cs", pascal(field)],
      ["sdk/java/src/main/java/io/github/pulumi_analytics/analytics/DataSource.java", field],
    ];
    for (const [file, name] of sdkNames) {
      expect(read(repoRoot, file), file).not.toContain(name);
      expect(read(copy, file), file).toContain(name);
    }

    // The schema's change control: an optional input and a nullable output break nothing.
    const compat = createRequire(path.join(copy, "package.json"))("./tools/schema-compat.js") as typeof import("../../tools/schema-compat.js");
    const released = compat.lastReleasedSchema(path.join(copy, "test", "fixtures", "released-schema"));
    expect(compat.breakingChanges(released.schema, schema as never)).toEqual([]);
  }, 900_000);

  it("leaves a tree whose unit tests of the kinds, the layers over them, the state files and the generated files pass", async () => {
    expect(copy, "the steps ran").not.toBe("");
    // A run of its own (not this one's, whose leftover-process check would see this tier's
    // processes), with vitest's record of durations kept apart from this run's.
    const { [TEST_RUN_MARKER]: _mark, ...env } = process.env;
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "walkthrough-cache-"));
    try {
      const files = [
        "test/schema.test.ts",
        "test/schema-compat.test.ts",
        "test/hover-docs.test.ts",
        "src/kinds",
        "src/contract",
        "src/resources",
        "src/native/provider.test.ts",
        "src/reference-server/state",
        "src/reference-server/server.test.ts",
      ];
      await run(`node node_modules/vitest/vitest.mjs run --project unit ${files.join(" ")}`, copy, { ...env, PULUMI_ANALYTICS_CACHE_DIR: cache });
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  }, 600_000);
});
