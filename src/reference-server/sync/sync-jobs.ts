import { redact } from "../../redact";
import { isoTime } from "../state/iso-time";
import type { DataSourceRecord, ReferenceStore } from "../state/store";
import type { SyncedTable } from "../state/synced-table";
import { syncSchema as realSyncSchema, type SyncOptions, type SyncOutcome, type SyncTarget } from "./schema-sync";

/** Default number of schema syncs run at once, so a burst of creates does not exhaust a database's connections. */
export const DEFAULT_SYNC_CONCURRENCY = 4;

/** Sync error for data sources that ask for an SSH tunnel, which this server cannot open. */
export const SSH_UNSUPPORTED_MESSAGE = "SSH tunnels are not supported by the reference server; set sshEnabled: false to connect directly.";

/** Sync error when the sync function itself threw (it is meant to report failures, not throw). */
export const UNEXPECTED_SYNC_FAILURE_MESSAGE = "The schema sync failed unexpectedly.";

/** Options of {@link SyncJobs}. */
export interface SyncJobsOptions {
  /** Where data sources and their credentials live. */
  store: ReferenceStore;
  /** The sync to run (the real one, or a fake in tests). */
  syncSchema: typeof realSyncSchema;
  /** Timeouts passed to each sync. */
  syncOptions: SyncOptions;
  /** Syncs run at once. */
  concurrency: number;
  /** Clock. */
  now: () => Date;
  /** Saves the state; called at each status change. Failures are the caller's to report. Undefined when state lives in memory only. */
  persist: (() => Promise<void>) | undefined;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (reason: Error) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (reason: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting; an unobserved rejection must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** The tables of a database that has none: one frozen list every such record shares. */
const NO_TABLES: readonly SyncedTable[] = Object.freeze([]);

/** One queued or running sync, bound to the record it was queued for. */
interface Job {
  /** Data source id. */
  id: string;
  /** The record to sync; once the store holds another record under `id` (reset, restore), the job is void. */
  record: DataSourceRecord;
  /** Settles when the job ends; made for the first waiter, shared by the others. */
  done?: Deferred;
}

/**
 * The background schema-sync job of each new data source: PENDING → SYNCING → SUCCEEDED or
 * FAILED, with health recorded alongside. Jobs are queued when the data source is committed and
 * start after the current event-loop turn, so the create response always shows PENDING. A job
 * belongs to the record it was queued for: if a reset or a restored saved state replaced or removed
 * that record, the job never starts, or its result is discarded.
 */
export class SyncJobs {
  private readonly queue: Job[] = [];
  /** Every queued or running job, superseded ones included, so closing can reject their waiters. */
  private readonly live = new Set<Job>();
  /** The latest job of each data source id, which waiters wait for. */
  private readonly latest = new Map<string, Job>();
  private running = 0;
  private stopped = false;
  /** A pump is due after this event-loop turn: creates within one turn share it. */
  private pumpScheduled = false;

  constructor(private readonly options: SyncJobsOptions) {}

  /**
   * Registers the sync of a just-committed (or just-restored) data source, so waiters can find it
   * at once, and returns the function that lets it start (called once the response is on its way).
   */
  enqueue(dataSourceId: string): () => void {
    const record = this.options.store.dataSources.get(dataSourceId);
    if (this.stopped || record === undefined) return () => undefined;
    const job: Job = { id: dataSourceId, record };
    this.live.add(job);
    this.latest.set(dataSourceId, job);
    let started = false;
    return () => {
      if (started || this.stopped) return;
      started = true;
      this.queue.push(job);
      if (this.pumpScheduled) return;
      this.pumpScheduled = true;
      setImmediate(() => {
        this.pumpScheduled = false;
        this.pump();
      });
    };
  }

  /** Settles when the latest queued or running sync of `dataSourceId` ends; undefined if none is. */
  whenDone(dataSourceId: string): Promise<void> | undefined {
    const job = this.latest.get(dataSourceId);
    if (job === undefined) return undefined;
    return (job.done ??= deferred()).promise;
  }

  /** Number of syncs queued or running. */
  active(): number {
    return this.live.size;
  }

  /**
   * Stops: queued syncs never start, results of running ones are discarded (a sync cannot be
   * aborted midway, but nothing is recorded or saved after this), and waiters are rejected.
   */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    for (const job of this.live) job.done?.reject(new Error("the reference server closed before the schema sync finished"));
    this.live.clear();
    this.latest.clear();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      void this.run(job).finally(() => {
        this.running--;
        this.live.delete(job);
        if (this.latest.get(job.id) === job) this.latest.delete(job.id);
        job.done?.resolve();
        this.pump();
      });
    }
  }

  /** True while the store still holds the record `job` was queued for. */
  private current(job: Job): boolean {
    return !this.stopped && this.options.store.dataSources.get(job.id) === job.record;
  }

  private async run(job: Job): Promise<void> {
    const { store, now } = this.options;
    // Reset or restored meanwhile: the record this job was for is gone.
    if (!this.current(job)) return;
    const { id, record } = job;
    const fields = record.fields;
    const startedAt = isoTime(now());
    fields.lastSyncStatus = "SYNCING";
    fields.lastSyncAttemptAt = startedAt;
    fields.updatedAt = startedAt;
    store.touchDataSource(id);
    if (this.options.persist) await this.options.persist().catch(() => undefined);
    if (!this.current(job)) return;

    const secrets = store.secretsOf(id) ?? {};
    let outcome: SyncOutcome;
    if (fields.sshEnabled) {
      outcome = { ok: false, message: SSH_UNSUPPORTED_MESSAGE };
    } else {
      const target: SyncTarget = {
        host: fields.host,
        port: fields.port,
        databaseName: fields.databaseName,
        username: fields.username,
        password: secrets.password,
        sslEnabled: fields.sslEnabled,
      };
      try {
        outcome = await this.options.syncSchema(target, this.options.syncOptions);
      } catch {
        outcome = { ok: false, message: UNEXPECTED_SYNC_FAILURE_MESSAGE };
      }
    }
    // Closed, reset or restored meanwhile: the result belongs to nobody.
    if (!this.current(job)) return;

    const finishedAt = isoTime(now());
    fields.lastHealthCheckAttemptAt = finishedAt;
    fields.updatedAt = finishedAt;
    if (outcome.ok) {
      fields.lastSyncStatus = "SUCCEEDED";
      fields.lastSuccessfulSyncAt = finishedAt;
      fields.hasCompletedFirstSync = true;
      fields.syncErrorMessage = null;
      fields.lastHealthStatus = "HEALTHY";
      fields.lastHealthyAt = finishedAt;
      // Copied so the sync function keeps no handle on stored state.
      record.tables = outcome.tables.length === 0 ? NO_TABLES : structuredClone(outcome.tables);
    } else {
      fields.lastSyncStatus = "FAILED";
      // Defence in depth: the sync already removed the password, but any credential may be quoted.
      fields.syncErrorMessage = redact(outcome.message, Object.values(secrets));
      // The sync is the health check: a failed one means the database could not be used.
      fields.lastHealthStatus = "UNHEALTHY";
    }
    store.touchDataSource(id);
    if (this.options.persist) await this.options.persist().catch(() => undefined);
  }
}
