/** The results page and the figures of docs/benchmarks.md: drawn from results.json, and held equal to it as committed. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { ContainerSubject } from "./container";
import { withDocBlock } from "./figure";
import { BENCHMARKS_DOC, DOC_FIGURES, docFigures, readResults, RESULTS_DIR, resultsPage, type Results, type ScenarioEntry } from "./report";

const committed = readResults(RESULTS_DIR);

/** An entry of the container scenario (the smallest raw data) with one start of each subject and the image's size. */
function container(readyMs: Record<ContainerSubject, number>, imageBytes: number): ScenarioEntry {
  const system = { cpuModel: "CPU", cpus: 2, totalMemMiB: 1024, os: "linux", node: "v24.21.0", pulumiSdk: "3.270.0" };
  const raw = {
    readyMs: Object.fromEntries(Object.entries(readyMs).map(([k, v]) => [k, [v]])),
    imageBytes: { "linux/amd64": imageBytes },
    indexDigest: "sha256:0",
    commands: {},
  };
  return {
    startedAt: "2026-11-29T08:00:00.000Z",
    durationS: 60,
    commit: "0123456789ab",
    command: "npm run bench -- container",
    system,
    load: { start: [1, 1, 1], end: [2, 2, 2] },
    raw,
  };
}
const starts = { podman: 120, "podman floor": 100, docker: 300, "docker floor": 200, single: 100, script: 110 };

describe("the results page", () => {
  it("counts the targets met and shows each figure of each scenario measured, with how it was measured", () => {
    const results: Results = { container: container(starts, 70e6) };
    const page = resultsPage(results);
    expect(page).toContain("**3 of 5 targets met.**");
    expect(page).toContain("| container | the reference server's image started by podman");
    expect(page).toContain("Measured 2026-11-29T08:00:00.000Z at commit 0123456789ab by `npm run bench -- container` (1 min)");
    expect(page).toContain("| podman: server image / floor image: 120 ms / 100 ms (start to ready, medians of 1 rounds) | 1.2× | ≤ 1.3× | ✅ met |");
    expect(page).toContain("| Docker: server image / floor image: 300 ms / 200 ms (start to ready, medians of 1 rounds) | 1.5× | ≤ 1.3× | ❌ missed |");
    expect(page).toContain("| image size, linux/amd64 (compressed: config and layer) | 70 MB (66.8 MiB) | ≤ 60 MB | ❌ missed |");
    expect(page).not.toContain("## T");
  });

  it("is, as committed, what the committed results.json gives, within 300 lines", () => {
    const page = fs.readFileSync(path.join(RESULTS_DIR, "results.md"), "utf8");
    expect(page).toBe(resultsPage(committed));
    expect(page.split("\n").length).toBeLessThanOrEqual(300);
    expect(Object.keys(committed).sort()).toEqual(["F", "L", "T", "container", "server"]);
  });

  it("is the only page beside results.json", () => {
    expect(fs.readdirSync(RESULTS_DIR).sort()).toEqual(["results.json", "results.md"]);
  });
});

describe("the figures of docs/benchmarks.md", () => {
  it("lists the targeted figures only, each with its scenario's date and commit", () => {
    const block = docFigures({ container: container({ ...starts, docker: 240 }, 50e6) });
    expect(block).toContain("5 of 5 targets met");
    expect(block).toContain("| container | 2026-11-29 (0123456789ab) | single file / node dist/reference-server/bin.js: 100 ms / 110 ms");
    expect(block).not.toContain("info");
  });

  it("replaces what is between the markers and keeps the page around them", () => {
    const { begin, end } = DOC_FIGURES;
    expect(withDocBlock(`# Page\n\n${begin}\nold\n${end}\n\nAfter.\n`, DOC_FIGURES, "new")).toBe(`# Page\n\n${begin}\nnew\n${end}\n\nAfter.\n`);
    expect(() => withDocBlock("# No markers\n", DOC_FIGURES, "new")).toThrow(/no figures markers/);
  });

  it("are, as committed, what the committed results.json gives (npm run bench -- --render rewrites them)", () => {
    const doc = fs.readFileSync(BENCHMARKS_DOC, "utf8");
    expect(withDocBlock(doc, DOC_FIGURES, docFigures(committed))).toBe(doc);
  });
});
