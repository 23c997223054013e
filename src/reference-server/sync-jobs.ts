import { redact } from "../redact";
import { syncSchema as realSyncSchema, type SyncOptions, type SyncOutcome, type SyncTarget } from "./schema-sync";
import type { ReferenceStore } from "./store";

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

/**
 * The background schema-sync job of each new data source: PENDING → SYNCING → SUCCEEDED or
 * FAILED, with health recorded alongside. Jobs are queued when the data source is committed and
 * start after the current event-loop turn, so the create response always shows PENDING.
 */
export class SyncJobs {
  private readonly queue: string[] = [];
  /** Queued or running syncs, each with the promise its waiters share. */
  private readonly pending = new Map<string, Deferred>();
  private running = 0;
  private stopped = false;

  constructor(private readonly options: SyncJobsOptions) {}

  /**
   * Registers the sync of a just-committed data source, so waiters can find it at once, and
   * returns the function that lets it start (called once the create response is on its way).
   */
  enqueue(dataSourceId: string): () => void {
    if (this.stopped) return () => undefined;
    this.pending.set(dataSourceId, deferred());
    let started = false;
    return () => {
      if (started || this.stopped) return;
      started = true;
      this.queue.push(dataSourceId);
      setImmediate(() => this.pump());
    };
  }

  /** Settles when the queued or running sync of `dataSourceId` ends; undefined if none is. */
  whenDone(dataSourceId: string): Promise<void> | undefined {
    return this.pending.get(dataSourceId)?.promise;
  }

  /** Number of syncs queued or running. */
  active(): number {
    return this.pending.size;
  }

  /**
   * Stops: queued syncs never start, results of running ones are discarded (a sync cannot be
   * aborted midway, but nothing is recorded or saved after this), and waiters are rejected.
   */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    for (const job of this.pending.values()) job.reject(new Error("the reference server closed before the schema sync finished"));
    this.pending.clear();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.running++;
      void this.run(id).finally(() => {
        this.running--;
        const job = this.pending.get(id);
        this.pending.delete(id);
        job?.resolve();
        this.pump();
      });
    }
  }

  private async run(id: string): Promise<void> {
    const { store, now } = this.options;
    const record = store.dataSources.get(id);
    if (record === undefined) return;
    const fields = record.fields;
    const startedAt = now().toISOString();
    fields.lastSyncStatus = "SYNCING";
    fields.lastSyncAttemptAt = startedAt;
    fields.updatedAt = startedAt;
    if (this.options.persist) await this.options.persist().catch(() => undefined);

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
    // Closed, reset or replaced meanwhile: the result belongs to nobody.
    if (this.stopped || store.dataSources.get(id) !== record) return;

    const finishedAt = now().toISOString();
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
      record.tables = outcome.tables.length === 0 ? [] : structuredClone(outcome.tables);
    } else {
      fields.lastSyncStatus = "FAILED";
      // Defence in depth: the sync already removed the password, but any credential may be quoted.
      fields.syncErrorMessage = redact(outcome.message, Object.values(secrets));
      // The sync is the health check: a failed one means the database could not be used.
      fields.lastHealthStatus = "UNHEALTHY";
    }
    if (this.options.persist) await this.options.persist().catch(() => undefined);
  }
}
