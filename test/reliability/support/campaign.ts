/**
 * Short and long (campaign) sizes of the reliability suite, and the figures each scenario
 * reports. `npm test` runs the short sizes; `npm run test:campaign` sets ANALYTICS_CAMPAIGN=1 and
 * ANALYTICS_FIGURES_DIR, and the campaign reporter turns the figures into
 * reliability/results/latest.md.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { InjectedFaultCounts } from "../../../src/reference-server";

/** True under `npm run test:campaign`. */
export const CAMPAIGN = process.env.ANALYTICS_CAMPAIGN === "1";

/** `short` in `npm test`, `long` in the campaign. */
export function scale<T>(short: T, long: T): T {
  return CAMPAIGN ? long : short;
}

/** Per-test timeout: generous, since the campaign sizes run minutes and CLI runs share 2 cores. */
export const TIMEOUT_MS = scale(300_000, 1_200_000);

/** The way a scenario reaches the service, each with its own totals row in the campaign summary. */
export const PATHS = {
  dynamic: "Dynamic providers (TypeScript program)",
  native: "Native plugin (YAML program, gRPC)",
  service: "Client and reference server alone",
} as const;

/** What one scenario did and found; every count is over the whole scenario. */
export interface Figures {
  /** Reliability item (1-12). */
  item: number;
  /** Which {@link PATHS} the scenario goes through. */
  path: keyof typeof PATHS;
  /** Short name of the scenario. */
  scenario: string;
  /** Faults injected: server-side faults, kills, refused connections, database faults. */
  faultsInjected: number;
  /** Operations run: API requests, CLI runs, generated cases or commands. */
  operations: number;
  /** Objects in the service beyond those the state (or model) accounts for. */
  duplicates: number;
  /** Objects the provider saw created (or the model expects) that are missing. */
  lostObjects: number;
  /** Server crashes or unexpected internal errors. */
  crashes: number;
  /** 5xx answers that were not injected. */
  serverErrors: number;
  /** Secret or API key values found in plaintext in backends, CLI output, state files or logs. */
  plaintextHits: number;
}

let sequence = 0;

/** Writes a scenario's figures for the campaign reporter (a no-op outside the campaign). */
export function recordFigures(figures: Figures): void {
  const dir = process.env.ANALYTICS_FIGURES_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${figures.item}-${process.pid}-${sequence++}.json`);
  fs.writeFileSync(file, JSON.stringify({ ...figures, campaign: CAMPAIGN }));
}

/** Sum of every injected-fault count of a reference server. */
export function totalInjected(counts: InjectedFaultCounts): number {
  return counts.error + counts.rateLimited + counts.resetBeforeCommit + counts.resetAfterCommit + counts.latency;
}

/** Places (`where`) in `haystacks` where any of `secrets` occurs; secrets shorter than 8 characters are refused. */
export function plaintextHits(haystacks: ReadonlyArray<{ where: string; text: string }>, secrets: readonly string[]): string[] {
  const hits: string[] = [];
  for (const secret of secrets) {
    if (secret.length < 8) throw new Error("audit secrets must be at least 8 characters long");
    for (const { where, text } of haystacks) if (text.includes(secret)) hits.push(`${secret.slice(0, 6)}… in ${where}`);
  }
  return hits;
}
