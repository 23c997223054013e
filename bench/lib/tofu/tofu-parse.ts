/**
 * What scenario T (and test/languages/yaml-restapi-bridge.test.ts) reads from OpenTofu's and
 * Pulumi's output and state: errors, Pulumi's summary, the objects a state holds, where a secret shows. Pure functions of text, so the
 * bench's reading of them is unit-tested without running either tool.
 */

/** The counts Pulumi's `Resources:` summary gives. */
export interface ChangeSummary {
  /** Objects created, or to create in a plan/preview. */
  add: number;
  /** Objects updated in place, or to update. */
  change: number;
  /** Objects destroyed, or to destroy. */
  destroy: number;
  /** Objects replaced, or to replace. */
  replace: number;
}

const NONE: ChangeSummary = { add: 0, change: 0, destroy: 0, replace: 0 };

/** Lines of OpenTofu's `Error:` and `Warning:` headings (run with `-no-color`), each once, in order. */
export function tofuDiagnostics(output: string): { errors: string[]; warnings: string[] } {
  const headings = (kind: string): string[] => [...new Set([...output.matchAll(new RegExp(`^(?:│ )?${kind}: (.+)$`, "gm"))].map((m) => m[1]!.trim()))];
  return { errors: headings("Error"), warnings: headings("Warning") };
}

/**
 * The `Resources:` block of `pulumi up|preview|destroy` output: `+ N created` / `to create`,
 * `~ N updated` / `to update`, `- N deleted` / `to delete`, `+-N replaced` / `to replace`. All zero
 * when there is none (a preview or up with no changes prints only `N unchanged`); undefined when
 * the output has no `Resources:` block at all.
 */
export function pulumiSummary(output: string): ChangeSummary | undefined {
  const block = /^Resources:\n((?:[ \t]+.*\n?)*)/m.exec(output);
  if (!block) return undefined;
  const summary = { ...NONE };
  for (const line of block[1]!.split("\n")) {
    const match = /^\s+(\+-|[+~-])?\s*(\d+) (?:to )?(create|created|update|updated|delete|deleted|replace|replaced)\b/.exec(line);
    if (!match) continue;
    const count = Number(match[2]);
    const verb = match[3]!;
    if (verb.startsWith("create")) summary.add += count;
    else if (verb.startsWith("update")) summary.change += count;
    else if (verb.startsWith("delete")) summary.destroy += count;
    else summary.replace += count;
  }
  return summary;
}

/**
 * Resources of a type token starting `prefix` in a Pulumi state: a `file://` backend's checkpoint
 * (`{ checkpoint: { latest } }`) or `pulumi stack export` (`{ deployment }`).
 */
export function pulumiStateObjects(stateText: string, prefix: string): number {
  const state = JSON.parse(stateText) as { checkpoint?: { latest?: Deployment }; deployment?: Deployment };
  const resources = (state.checkpoint?.latest ?? state.deployment)?.resources ?? [];
  return resources.filter((r) => typeof r.type === "string" && r.type.startsWith(prefix)).length;
}

interface Deployment {
  resources?: Array<{ type?: unknown }>;
}

/** How many times `secret` occurs in `text` (0 for an empty secret). */
export function occurrences(text: string, secret: string): number {
  if (!secret) return 0;
  let count = 0;
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length)) count++;
  return count;
}
