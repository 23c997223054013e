/**
 * What one Pulumi program of 1 + N objects did to the reference server through each command of
 * its life (test/languages/yaml-restapi-bridge.test.ts observes it for the native plugin and for restapi
 * bridged into Pulumi), and the words of docs/compared-with-rest-provider.md's comparison table
 * for it: each cell rendered from the observation, with counts said per object so that they hold
 * for any N.
 */

/** Requests by `METHOD route` and status, as the reference server's inspection counts them. */
export type RequestsByRoute = Record<string, Record<string, number>>;

/** One command. */
export interface StepObservation {
  /** Exit code. */
  code: number;
  /** Requests the server received during it. */
  requests: RequestsByRoute;
  /** Objects (organizations and data sources) the server gained. */
  creates: number;
  /** What the command's `Resources:` block said it did (`+` created, `-` deleted, `+-` replaced), undefined without one. */
  said: { add: number; change: number; destroy: number; replace: number } | undefined;
  /** Lines of the output that start `warning:`. */
  warnings: number;
  /** The first `error:` line, with ids and URLs replaced by placeholders; "" when none. */
  error: string;
}

/** Everything one program's lifecycle showed. */
export interface LifecycleObservation {
  /** Data sources (the program has 1 + N objects). */
  n: number;
  /** `pulumi preview` of the fresh stack. */
  freshPreview: StepObservation;
  /** The first `pulumi up`. */
  up: StepObservation;
  /** `pulumi preview` after it. */
  preview: StepObservation;
  /** A second `pulumi up`, nothing changed. */
  secondUp: StepObservation;
  /** `pulumi up` after renaming one data source's resource name in the program. */
  rename: StepObservation;
  /** `pulumi refresh --yes`, and the service's objects in state after it. */
  refresh: StepObservation & { stateObjects: number };
  /** `pulumi up` after the refresh. */
  upAfterRefresh: StepObservation;
  /** `pulumi destroy --yes`, the objects left in state, and how many objects the service lost during it. */
  destroy: StepObservation & { stateObjects: number; serverRemoved: number };
  /** `pulumi import` of an organization that exists in the service. */
  importing: StepObservation & { stateObjects: number };
  /** Occurrences of the data sources' password and of the API key. */
  secrets: { passwordInState: number; passwordInOutput: number; passwordInLogs: number; apiKeyInState: number; apiKeyInOutput: number; apiKeyInLogs: number };
}

/** The rows of the table a Pulumi column has a cell in, by their first cell. */
export const LIFECYCLE_ROWS = {
  firstUp: "First apply / up",
  preview: "Ordinary `tofu plan` / `pulumi preview` after it",
  secondUp: "Second `tofu apply` / `pulumi up`",
  refresh: "`pulumi refresh`, then `pulumi up`",
  rename: "A data source renamed in the program, then `pulumi up`",
  destroy: "`tofu destroy` / `pulumi destroy`",
  importing: "`pulumi import` of an organization the service holds",
  password: "Password",
  apiKey: "API key",
} as const;

/** A row of {@link LIFECYCLE_ROWS}. */
export type LifecycleRow = keyof typeof LIFECYCLE_ROWS;

/**
 * A count against the program's N data sources, so that a cell holds for any N: "one", "N",
 * "1 + N", "2 × (1 + N)", "N + 2", "N + 3" (the objects with a stack and a provider resource), or
 * the plain number when it is none of these (N must differ from the small counts, as with N=4).
 */
export function countText(count: number, n: number): string {
  if (count === 1) return "one";
  if (count === n) return "N";
  if (count === n + 1) return "1 + N";
  if (count > 0 && count % (n + 1) === 0) return `${count / (n + 1)} × (1 + N)`;
  if (count === n + 2 || count === n + 3) return `N + ${count - n}`;
  return String(count);
}

/** A route without its `/api/public` prefix and with ids as `{id}`; one the API does not serve (the inspection's `(unmatched)`) as `<unserved path>`. */
const shortRoute = (route: string): string =>
  route
    .replace("/api/public", "")
    .replace(/\/(org|ds)_\w+/g, "/{id}")
    .replace("(unmatched)", "<unserved path>");

/** The requests of a step, e.g. "one `POST /organizations` (201), N `POST /organizations/{id}/data-sources` (201)"; "no request" when none. */
export function requestsText(requests: RequestsByRoute, n: number): string {
  const parts: string[] = [];
  for (const [route, statuses] of Object.entries(requests).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [status, count] of Object.entries(statuses)) parts.push(`${countText(count, n)} \`${shortRoute(route)}\` (${status})`);
  }
  return parts.length === 0 ? "no request" : parts.join(", ");
}

/** What the CLI said it did, e.g. "said `+3 -0`"; "" without a `Resources:` block. */
const saidText = (step: StepObservation, n: number): string => {
  const said = step.said;
  if (!said) return "";
  const count = (value: number): string => {
    const text = countText(value, n);
    return text === "one" ? "1" : text.includes(" ") ? `(${text})` : text;
  };
  const parts = [`+${count(said.add)}`, `~${count(said.change)}`, `-${count(said.destroy)}`, said.replace ? `+-${count(said.replace)}` : ""];
  return `said \`${parts.filter((p) => p !== "").join(" ")}\``;
};

/** A step: its exit when not 0, its requests, its creates, what it said, its warnings and first error. */
function stepText(step: StepObservation, n: number): string {
  const parts = [
    step.code === 0 ? "" : `exit ${step.code}`,
    requestsText(step.requests, n),
    step.creates ? `${countText(step.creates, n)} created in the service` : "",
    saidText(step, n),
    step.warnings === 1 ? "one warning" : step.warnings ? `${countText(step.warnings, n)} warnings` : "no warning",
    step.error ? `error: ${step.error}` : "",
  ];
  return parts.filter((p) => p !== "").join("; ");
}

/** Where a secret appeared. */
const secretText = (state: number, output: number, logs: number): string =>
  `state file: ${state === 0 ? "not in plain text" : `${state}× in plain text`}; CLI output: ${output === 0 ? "never" : `${output}×`}; \`-v=9\` logs: ${logs === 0 ? "never" : `${logs}×`}`;

/** The cells of one Pulumi column, by row. */
export function lifecycleCells(o: LifecycleObservation): Record<LifecycleRow, string> {
  const n = o.n;
  return {
    firstUp: `preview of the new stack: ${requestsText(o.freshPreview.requests, n)}; up: ${stepText(o.up, n)}`,
    preview: stepText(o.preview, n),
    secondUp: stepText(o.secondUp, n),
    refresh: `refresh: ${stepText(o.refresh, n)}; ${countText(o.refresh.stateObjects, n)} of the 1 + N objects left in state; then up: ${stepText(o.upAfterRefresh, n)}`,
    rename: stepText(o.rename, n),
    destroy: `${stepText(o.destroy, n)}; ${o.destroy.stateObjects} objects left in state, ${o.destroy.serverRemoved === 0 ? "none" : countText(o.destroy.serverRemoved, n)} removed from the service`,
    importing: `${stepText(o.importing, n)}; ${o.importing.stateObjects} imported`,
    password: secretText(o.secrets.passwordInState, o.secrets.passwordInOutput, o.secrets.passwordInLogs),
    apiKey: secretText(o.secrets.apiKeyInState, o.secrets.apiKeyInOutput, o.secrets.apiKeyInLogs),
  };
}

/** One Markdown table row split into its cells (outer pipes dropped, `\|` kept inside a cell). */
export function markdownCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The cells of `column` in the Markdown table of `page` whose header holds it, by each row's first cell. */
export function tableColumn(page: string, column: string): Map<string, string> {
  const lines = page.split("\n");
  const header = lines.findIndex((line) => line.startsWith("|") && markdownCells(line).includes(column));
  if (header < 0) throw new Error(`no table with a column "${column}"`);
  const index = markdownCells(lines[header]!).indexOf(column);
  const cells = new Map<string, string>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const row = markdownCells(line);
    cells.set(row[0]!, row[index] ?? "");
  }
  return cells;
}
