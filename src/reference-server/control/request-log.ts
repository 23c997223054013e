import type { RequestRecorder } from "../http/http-adapter";

/** How many entries {@link RequestLog} keeps; counts cover every request regardless. */
export const REQUEST_LOG_CAPACITY = 1000;

/** One API request as the inspection surface shows it: no headers, no body, no query string. */
export interface RequestLogEntry {
  /** HTTP method. */
  method: string;
  /** Route pattern (a kind's `endpoint.pattern` for a create); null for unknown paths. */
  route: string | null;
  /** The path requested, as the log line shows it: no query string, anything shaped like an API key replaced by `[redacted]`. */
  path: string;
  /** Status sent; null when the connection ended without an answer. */
  status: number | null;
  /** When the request arrived (ISO 8601). */
  receivedAt: string;
  /** Milliseconds from its arrival to its answer (or to the end of its connection), rounded. */
  durationMs: number;
  /**
   * Injected fault rules that shaped this request, as paths in the fault settings
   * (`latencyMs`, `routes.createDataSource.failNext`, …), in the order they fired; `[]` when none.
   * The answer, if any, names the same rules in `X-Reference-Fault`.
   */
  faults: string[];
}

/** Counts of API requests, for assertions such as "the preview sent no requests". */
export interface RequestSummary {
  /** Every API request received, including any still being handled (inspection requests excluded). */
  total: number;
  /** Answered (or abandoned) requests, by `"<METHOD> <route>"` (route `(unmatched)` for unknown paths), then by status (`none` for no answer). */
  byRoute: Record<string, Record<string, number>>;
  /** Requests each fault rule shaped, by rule path (every request counted, not only the recent ones). */
  byFault: Record<string, number>;
  /** The most recent entries, oldest first. */
  recent: RequestLogEntry[];
}

/** Route label of an entry in {@link RequestSummary.byRoute}. */
export function routeKey(entry: Pick<RequestLogEntry, "method" | "route">): string {
  return `${entry.method} ${entry.route ?? "(unmatched)"}`;
}

/** Log of the public API requests received, with exact counts and a bounded list of recent entries. */
export class RequestLog implements RequestRecorder {
  private total = 0;
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly faultCounts = new Map<string, number>();
  private readonly entries: RequestLogEntry[] = [];

  /** Counts a request the moment it arrives. */
  received(): void {
    this.total++;
  }

  /** Records a request once it has been answered, or abandoned without an answer. */
  record(entry: RequestLogEntry): void {
    const key = routeKey(entry);
    const byStatus = this.counts.get(key) ?? new Map<string, number>();
    const status = entry.status === null ? "none" : String(entry.status);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.counts.set(key, byStatus);
    for (const rule of entry.faults) this.faultCounts.set(rule, (this.faultCounts.get(rule) ?? 0) + 1);
    this.entries.push(entry);
    if (this.entries.length > REQUEST_LOG_CAPACITY) this.entries.shift();
  }

  /** Number of API requests received so far. */
  count(): number {
    return this.total;
  }

  /** Totals and recent entries, detached from the log. */
  summary(): RequestSummary {
    const byRoute: Record<string, Record<string, number>> = {};
    for (const [key, statuses] of [...this.counts].sort(([a], [b]) => a.localeCompare(b))) {
      byRoute[key] = Object.fromEntries(statuses);
    }
    return {
      total: this.total,
      byRoute,
      byFault: Object.fromEntries([...this.faultCounts].sort(([a], [b]) => a.localeCompare(b))),
      recent: this.entries.map((e) => ({ ...e, faults: [...e.faults] })),
    };
  }

  /** Forgets everything. */
  clear(): void {
    this.total = 0;
    this.counts.clear();
    this.faultCounts.clear();
    this.entries.length = 0;
  }
}
