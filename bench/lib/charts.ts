/**
 * The report's charts: Vega-Lite specifications over the raw measurements, compiled and rendered
 * to SVG offline by Vega's headless View (both installed in bench/peers only).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { importPeer } from "./peers";
import type { BenchReport } from "./report";
import type { StartupSubject } from "./startup";

/** A rendered chart, as latest.md embeds it. */
export interface Chart {
  /** File name beside latest.md. */
  file: string;
  /** What it shows (the image's alternative text). */
  title: string;
}

interface VegaLiteModule {
  compile(spec: object): { spec: object };
}
interface VegaModule {
  parse(spec: object): unknown;
  View: new (runtime: unknown, options: { renderer: "none" }) => { toSVG(): Promise<string>; finalize(): void };
}

type Row = Record<string, string | number>;

const CONFIG = { font: "sans-serif", background: "white", view: { stroke: null }, axis: { labelFontSize: 11, titleFontSize: 12 }, legend: { orient: "right", labelLimit: 280 } };

/** One colour per side across the charts: ours blue, the baseline grey, Prism orange. */
const OURS = "#4c78a8";
const BASELINE = "#9d9d9d";
const PEER = "#f58518";

/** A layered Vega-Lite chart over `rows`, in the report's common style. */
function spec(title: string, subtitle: string, rows: Row[], layers: object[], size: { width: number; height: number }): object {
  return { $schema: "https://vega.github.io/schema/vega-lite/v6.json", title: { text: title, subtitle }, ...size, data: { values: rows }, layer: layers, config: CONFIG };
}

function upTimeChart(raw: BenchReport["raw"]): object {
  const rows: Row[] = raw.engine.runs.flatMap((run) =>
    (["ours", "floor"] as const).flatMap((program) => run.upMs[program].map((ms) => ({ N: run.plan.count, program: program === "ours" ? "this package" : "floor (no-op provider)", seconds: ms / 1000 }))),
  );
  const counts = raw.engine.runs.map((r) => r.plan.count);
  const x = {
    field: "N",
    type: "quantitative",
    scale: { type: "log", domain: [Math.min(...counts) * 0.8, Math.max(...counts) * 1.25], nice: false },
    axis: { values: counts, title: "DataSources per stack (N, log scale)" },
  };
  const color = { field: "program", type: "nominal", title: null, scale: { domain: ["this package", "floor (no-op provider)"], range: [OURS, BASELINE] } };
  const skip = raw.engine.runs.filter((r) => r.plan.skipCheckpoints).map((r) => `N=${r.plan.count}`);
  return spec(
    "pulumi up time against N",
    `lines: medians; dots: repetitions${skip.length ? `; ${skip.join(", ")} with PULUMI_SKIP_CHECKPOINTS=true (both programs)` : ""}`,
    rows,
    [
      { mark: { type: "point", opacity: 0.45, filled: true }, encoding: { x, y: { field: "seconds", type: "quantitative", title: "seconds" }, color } },
      { mark: { type: "line", point: true }, encoding: { x, y: { aggregate: "median", field: "seconds", type: "quantitative" }, color } },
    ],
    { width: 420, height: 260 },
  );
}

function throughputChart(raw: BenchReport["raw"]): object {
  const names = { reference: "reference server", prism: "Prism (mock of the same document)", bare: "bare node:http (limit)" } as const;
  const rows: Row[] = raw.http.comparisons.flatMap((c) =>
    (["reference", "prism", "bare"] as const).flatMap((side) => (c[side] ?? []).map((run) => ({ connections: c.connections, server: names[side], rps: run.rps }))),
  );
  const order = Object.values(names);
  const shared = {
    x: { field: "connections", type: "ordinal", title: "concurrent connections", axis: { labelAngle: 0 } },
    xOffset: { field: "server", sort: order },
    color: { field: "server", type: "nominal", sort: order, title: null, scale: { domain: order, range: [OURS, PEER, BASELINE] } },
  };
  return spec(
    "create-data-source throughput against connections",
    "bars: medians; dots: repetitions; Prism measured at 1 and 8 connections",
    rows,
    [
      { mark: { type: "bar" }, encoding: { ...shared, y: { aggregate: "median", field: "rps", type: "quantitative", title: "requests per second" } } },
      { mark: { type: "point", filled: true, color: "black", opacity: 0.6, size: 18 }, encoding: { ...shared, color: undefined, y: { field: "rps", type: "quantitative" } } },
    ],
    { width: 420, height: 260 },
  );
}

function startupChart(raw: BenchReport["raw"]): object | undefined {
  const startup = raw.startup;
  if (!startup) return undefined;
  const names: Record<StartupSubject, string> = {
    bare: "bare node:http server",
    ours: "node dist/reference-server/bin.js",
    npx: "npx analytics-reference-server",
    prism: "Prism mock",
  };
  const rows: Row[] = (Object.keys(names) as StartupSubject[]).flatMap((who) =>
    startup.samples[who].flatMap((s) => [
      { subject: names[who], measure: "first answer", ms: s.firstAnswerMs },
      { subject: names[who], measure: "first successful create", ms: s.firstCreateMs },
    ]),
  );
  const y = { field: "subject", type: "nominal", sort: Object.values(names), title: null, axis: { labelLimit: 300 } };
  const yOffset = { field: "measure" };
  const color = { field: "measure", type: "nominal", title: null, scale: { range: [OURS, "#9ecae9"] } };
  return spec(
    "start-up: process start to first answer",
    "bars: medians; dots: starts; dashed: the 250 ms target of the bin",
    rows,
    [
      { mark: { type: "bar" }, encoding: { y, yOffset, color, x: { aggregate: "median", field: "ms", type: "quantitative", title: "milliseconds" } } },
      { mark: { type: "point", filled: true, color: "black", opacity: 0.5, size: 14 }, encoding: { y, yOffset, x: { field: "ms", type: "quantitative" } } },
      { data: { values: [{ target: 250 }] }, mark: { type: "rule", strokeDash: [4, 3], color: "firebrick" }, encoding: { x: { field: "target", type: "quantitative" } } },
    ],
    { width: 420, height: 200 },
  );
}

/** Renders every chart the raw data allows into `dir` as SVG and returns them in report order. */
export async function renderCharts(dir: string, raw: BenchReport["raw"]): Promise<Chart[]> {
  const vegaLite = await importPeer<VegaLiteModule>("vega-lite");
  const vega = await importPeer<VegaModule>("vega");
  const wanted: Array<[Chart, object | undefined]> = [
    [{ file: "up-time.svg", title: "pulumi up time against N, this package and the floor" }, raw.engine.runs.length ? upTimeChart(raw) : undefined],
    [{ file: "throughput.svg", title: "create throughput against connections: reference server, Prism, bare node:http" }, throughputChart(raw)],
    [{ file: "startup.svg", title: "start-up to first answer and first create" }, startupChart(raw)],
  ];
  const charts: Chart[] = [];
  for (const [chart, vl] of wanted) {
    if (vl === undefined) continue;
    const view = new vega.View(vega.parse(vegaLite.compile(vl).spec), { renderer: "none" });
    fs.writeFileSync(path.join(dir, chart.file), `${await view.toSVG()}\n`);
    view.finalize();
    charts.push(chart);
  }
  return charts;
}
