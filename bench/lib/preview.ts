/**
 * Scenario B alone (`node bench/dist/run.js B`): many no-change `pulumi preview`s of one stack of
 * this package's program and of the floor, interleaved in pairs (ABBA), so the per-pair ratio's
 * median comes with a confidence interval, and each preview's CPU split into the provider's and
 * the rest's (CLI, language host, program).
 */
import type { PulumiToolchain } from "@pulumi-analytics/toolchain";
import { FLOOR, OURS, startBenchServer, upArgs, type Variant } from "./engine";
import { STATUS_MARK, type Figure } from "./figure";
import { median, medianInterval, round } from "./stats";
import { loadAverage } from "./system";
import { BenchWorkspace, GLOBAL_FLAGS, upTimeLimitMs } from "./workspace";

/** One pair of previews, back to back. */
export interface PreviewPair {
  /** Which went first. */
  first: Variant;
  /** Wall time of each preview, ms. */
  ms: Record<Variant, number>;
  /** CPU seconds of the dynamic provider process during each preview. */
  providerCpuS: Record<Variant, number>;
  /** CPU seconds of every process of each preview (CLI, language host, program, provider). */
  allCpuS: Record<Variant, number>;
  /** One-minute load average before the pair. */
  load: number;
}

/** What scenario B alone measured. */
export interface PreviewResult {
  /** DataSources in each stack (plus one Organization). */
  count: number;
  /** The pairs, in order. */
  pairs: PreviewPair[];
  /** API requests the reference server received during ours' previews, summed (0 expected). */
  requests: number;
  /** The preview command. */
  command: string;
}

const PREVIEW = (stack: string): string[] => ["preview", "--expect-no-changes", "--stack", stack];

/** Runs scenario B alone: one up of each program at `count`, then `pairs` pairs of previews. */
export async function runPreviewScenario(toolchain: PulumiToolchain, options: { count: number; pairs: number }, log: (line: string) => void): Promise<PreviewResult> {
  const { server, env } = await startBenchServer();
  const ws = {} as Record<Variant, BenchWorkspace>;
  try {
    for (const [variant, subject] of [["ours", OURS], ["floor", FLOOR]] as const) {
      ws[variant] = BenchWorkspace.create(toolchain, subject.fixture, env);
      // Warm-up (plugin start, module loading, disk caches), then the stack every preview reads.
      await ws[variant].initStack("warmup", 10);
      await ws[variant].pulumi(upArgs("warmup"));
      await ws[variant].pulumi(PREVIEW("warmup"));
      await ws[variant].initStack("b", options.count);
      await ws[variant].pulumi(upArgs("b"), {}, upTimeLimitMs(options.count));
    }
    log(`B: stacks of ${options.count} up`);
    const pairs: PreviewPair[] = [];
    let requests = 0;
    for (let i = 0; i < options.pairs; i++) {
      const order: Variant[] = i % 4 === 0 || i % 4 === 3 ? ["ours", "floor"] : ["floor", "ours"];
      const pair = { first: order[0]!, ms: {}, providerCpuS: {}, allCpuS: {}, load: loadAverage()[0]! } as PreviewPair;
      for (const variant of order) {
        const before = server.inspect.requestCount();
        const run = await ws[variant].pulumi(PREVIEW("b"));
        if (variant === "ours") requests += server.inspect.requestCount() - before;
        pair.ms[variant] = run.ms;
        pair.providerCpuS[variant] = run.providerCpuS;
        pair.allCpuS[variant] = run.allCpuS;
      }
      pairs.push(pair);
      log(`B pair ${i + 1}/${options.pairs}: ours ${(pair.ms.ours / 1000).toFixed(2)} s, floor ${(pair.ms.floor / 1000).toFixed(2)} s, ratio ${(pair.ms.ours / pair.ms.floor).toFixed(3)} (load ${pair.load.toFixed(1)})`);
    }
    return { count: options.count, pairs, requests, command: `pulumi ${GLOBAL_FLAGS.join(" ")} ${PREVIEW("<stack>").join(" ")}` };
  } finally {
    await server.close();
    for (const w of Object.values(ws)) w.dispose();
  }
}

const ratioText = (v: number): string => `${round(v, 3)}×`;

/** Scenario B's figures from a run of it alone: the median per-pair ratio against the target, its interval and the CPU split. */
export function previewFigures(result: PreviewResult): Figure[] {
  const { pairs, count } = result;
  const of = (key: "ms" | "providerCpuS" | "allCpuS", v: Variant): number[] => pairs.map((p) => p[key][v]);
  const ratios = pairs.map((p) => p.ms.ours / p.ms.floor);
  const r = median(ratios);
  const interval = medianInterval(ratios);
  const rest = (v: Variant): number => median(pairs.map((p) => p.allCpuS[v] - p.providerCpuS[v]));
  const figures: Figure[] = [
    {
      scenario: "B",
      name: `no-change pulumi preview, N=${count}, ${pairs.length} interleaved pairs: ours ${round(median(of("ms", "ours")) / 1000, 2)} s / floor ${round(median(of("ms", "floor")) / 1000, 2)} s (medians)`,
      value: ratioText(r),
      target: "≤ 1.05×",
      status: r <= 1.05 ? "pass" : "miss",
    },
  ];
  if (interval) {
    figures.push({ scenario: "B", name: `the same: ${round(interval.coverage * 100, 1)}% interval of the median per-pair ratio`, value: `${ratioText(interval.low)}–${ratioText(interval.high)}`, target: "–", status: "info" });
  }
  figures.push(
    { scenario: "B", name: `CPU per preview, dynamic provider: ours ${round(median(of("providerCpuS", "ours")), 2)} s / floor ${round(median(of("providerCpuS", "floor")), 2)} s (medians)`, value: ratioText(median(of("providerCpuS", "ours")) / median(of("providerCpuS", "floor"))), target: "–", status: "info" },
    { scenario: "B", name: `CPU per preview, CLI + language host + program: ours ${round(rest("ours"), 2)} s / floor ${round(rest("floor"), 2)} s (medians)`, value: ratioText(rest("ours") / rest("floor")), target: "–", status: "info" },
    { scenario: "B", name: `API requests during ours' previews (${pairs.length} previews)`, value: String(result.requests), target: "0", status: result.requests === 0 ? "pass" : "miss" },
  );
  return figures;
}

/** preview.md: the figures, the per-pair data and how it was run. */
export function previewMarkdown(result: PreviewResult, meta: { startedAt: string; durationS: number; load: { start: number[]; end: number[] } }, command: string): string {
  const rows = previewFigures(result).map((f) => `| ${f.scenario} | ${f.name} | ${f.value} | ${f.target} | ${STATUS_MARK[f.status]} |`);
  const pairRows = result.pairs.map(
    (p, i) =>
      `| ${i + 1} | ${p.first} | ${round(p.ms.ours / 1000, 2)} | ${round(p.ms.floor / 1000, 2)} | ${round(p.ms.ours / p.ms.floor, 3)} | ${round(p.providerCpuS.ours, 2)} / ${round(p.providerCpuS.floor, 2)} | ${round(p.allCpuS.ours, 2)} / ${round(p.allCpuS.floor, 2)} | ${round(p.load, 1)} |`,
  );
  return [
    "# Scenario B alone: no-change preview against the floor",
    "",
    `Run \`${command}\` started ${meta.startedAt}, took ${round(meta.durationS, 0)} s; load average (1, 5, 15 min) ${meta.load.start.map((x) => round(x, 2)).join(", ")} at the start, ${meta.load.end.map((x) => round(x, 2)).join(", ")} at the end.`,
    `Each preview: \`${result.command}\`, of a stack of one Organization and ${result.count} DataSources made by one \`pulumi up\` of each program; pairs run back to back, ours first in pairs 1, 4, 5, 8, … (ABBA). See bench/analysis.md for what the profile shows.`,
    "",
    "| | Figure | Value | Target | |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    "| pair | first | ours s | floor s | ratio | provider CPU s (ours / floor) | all CPU s (ours / floor) | load |",
    "|---|---|---|---|---|---|---|---|",
    ...pairRows,
    "",
  ].join("\n");
}
