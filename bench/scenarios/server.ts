/**
 * Scenario server: the reference server against Prism (its peer, mocking the server's own OpenAPI
 * document) and a bare node:http server (the floor): create throughput and latency under load
 * (bench/lib/http.ts), and start to first answer (bench/lib/startup.ts).
 */
import { type Figure, bounded, type RunContext } from "../lib/figure";
import { runHttpScenario, type HttpResult, type LoadRun } from "../lib/http";
import { ensurePeers } from "../lib/peers";
import { writeOpenApiDocument } from "../lib/prism";
import { runStartupScenario, type StartupResult, type StartupSubject } from "../lib/startup";
import { median, pairedRatio, round } from "../lib/stats";

export interface ServerResult {
  http: HttpResult;
  startup: StartupResult;
}

export async function run({ args, log }: RunContext): Promise<ServerResult> {
  ensurePeers(log);
  const document = writeOpenApiDocument();
  const quick = args.quick;
  const startup = await runStartupScenario(document, quick ? 2 : 11, log);
  const http = await runHttpScenario({ connections: [1, 8, 64], peerConnections: [1, 8], reps: quick ? 1 : 5, durationS: quick ? 1 : 3, document }, log);
  return { http, startup };
}

const ms = (v: number): string => `${round(v, 3)} ms`;
const info = (name: string, value: string): Figure => ({ scenario: "server", name, value, target: "–", status: "info" });

/** Throughput against Prism (≥ 2×) and the bare server; p99 at 8 connections beside theirs (< 5 ms). */
function loadFigures(http: HttpResult): Figure[] {
  const med = (runs: LoadRun[], key: keyof LoadRun): number => median(runs.map((x) => x[key]));
  return http.comparisons.flatMap((c) => {
    const rps = (runs: LoadRun[]): string => `${round(med(runs, "rps"), 0)} req/s`;
    const rates = (runs: LoadRun[]): number[] => runs.map((x) => x.rps);
    const figures: Figure[] = [];
    if (c.prism)
      figures.push(
        bounded(
          "server",
          `create throughput, ${c.connections} conn: reference ${rps(c.reference)} / Prism ${rps(c.prism)} (medians)`,
          pairedRatio(rates(c.reference), rates(c.prism)),
          "≥",
          2,
        ),
      );
    figures.push(
      info(
        `create throughput, ${c.connections} conn: reference ${rps(c.reference)} / bare node:http ${rps(c.bare)} (medians)`,
        `${round(pairedRatio(rates(c.reference), rates(c.bare)), 3)}×`,
      ),
    );
    const p99 = med(c.reference, "p99");
    const others = `bare ${ms(med(c.bare, "p99"))}${c.prism ? `, Prism ${ms(med(c.prism, "p99"))}` : ""}`;
    const name = `reference latency p99, ${c.connections} conn (p50 ${ms(med(c.reference, "p50"))}; p99 of ${others})`;
    figures.push(c.connections === 8 ? { scenario: "server", name, value: ms(p99), target: "< 5 ms", status: p99 < 5 ? "pass" : "miss" } : info(name, ms(p99)));
    const failures = [...c.reference, ...c.bare, ...(c.prism ?? [])].reduce((sum, x) => sum + x.failures, 0);
    if (failures) figures.push({ scenario: "server", name: `failed requests, ${c.connections} conn`, value: String(failures), target: "0", status: "miss" });
    return figures;
  });
}

/** Start to first answer of the bin (< 250 ms), beside Prism's and the bare server's. */
function startupFigures(startup: StartupResult): Figure[] {
  const med = (who: StartupSubject, key: "firstAnswerMs" | "firstCreateMs"): number => median(startup.samples[who].map((x) => x[key]));
  const whole = (v: number): string => `${round(v, 0)} ms`;
  const ours = med("ours", "firstAnswerMs");
  return [
    {
      scenario: "server",
      name: `start to first answer, \`node dist/reference-server/bin.js\` (${startup.reps} starts each, medians; Prism ${whole(med("prism", "firstAnswerMs"))}, bare node:http ${whole(med("bare", "firstAnswerMs"))})`,
      value: whole(ours),
      target: "< 250 ms",
      status: ours < 250 ? "pass" : "miss",
    },
    info(
      `start to first successful create: reference ${whole(med("ours", "firstCreateMs"))} / Prism ${whole(med("prism", "firstCreateMs"))}`,
      `${round(med("ours", "firstCreateMs") / med("prism", "firstCreateMs"), 3)}×`,
    ),
  ];
}

export function figures(raw: ServerResult): Figure[] {
  return [...loadFigures(raw.http), ...startupFigures(raw.startup)];
}
