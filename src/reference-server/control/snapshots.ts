/**
 * Named snapshots of the server's organizations and data sources, restored in one step: suites
 * share an expensive setup and rewind to it between tests. Snapshots live in this process's
 * memory only, since they hold credentials, which are never written anywhere.
 */
import { lazySchema } from "../../lazy-zod";
import type { ServerState } from "../state/server-state";
import type { StoredResources } from "../state/store";
import type { SyncJobs } from "../sync/sync-jobs";

/** Names a snapshot may have: plain enough for a URL path segment and a log line. */
export const SNAPSHOT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The rule {@link SNAPSHOT_NAME_PATTERN} states, in words. */
export const SNAPSHOT_NAME_RULE = "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Body of `POST /_reference/snapshots`; a bad name is reported in the words of {@link SNAPSHOT_NAME_RULE}. */
export const saveSnapshotRequest = lazySchema((z) => z.strictObject({ name: z.string().regex(SNAPSHOT_NAME_PATTERN, { message: SNAPSHOT_NAME_RULE }) }));

/** What a snapshot holds, in numbers. */
export interface SnapshotInfo {
  /** Its name. */
  name: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** Organizations it holds. */
  organizations: number;
  /** Data sources it holds. */
  dataSources: number;
}

/** Saves and restores named snapshots of organizations and data sources (users and keys are never rolled back). */
export interface SnapshotController {
  /** Saves the current organizations and data sources under `name`, replacing a snapshot of that name. */
  save(name: string): Promise<SnapshotInfo>;
  /** Puts the state back to snapshot `name` in one step; resolves once saved like a create. Rejects naming an unknown snapshot. */
  restore(name: string): Promise<SnapshotInfo>;
  /** Every snapshot, sorted by name. */
  list(): SnapshotInfo[];
  /** Forgets snapshot `name`; false if there was none. */
  delete(name: string): boolean;
}

/** What snapshots act on. */
export interface SnapshotDeps {
  /** The store, and the saving of it. */
  state: ServerState;
  /** Background syncs, restarted for data sources restored while their sync was due. */
  jobs: SyncJobs;
  /** Clock. */
  now: () => Date;
}

/** One saved snapshot. */
interface Snapshot {
  /** Name, time and counts. */
  info: SnapshotInfo;
  /** The deep copy restored. */
  resources: StoredResources;
}

/** Throws a RangeError naming the snapshot name's rule unless `name` follows it. */
function assertSnapshotName(name: string): void {
  if (typeof name !== "string" || !SNAPSHOT_NAME_PATTERN.test(name)) throw new RangeError(`snapshot name ${SNAPSHOT_NAME_RULE}`);
}

/**
 * Restarts the syncs a snapshot caught midway: those data sources are PENDING again and their
 * sync is queued, with the credentials the snapshot kept.
 */
function restartDueSyncs({ state, jobs }: SnapshotDeps): void {
  for (const record of state.store.dataSources.values()) {
    if (record.fields.lastSyncStatus !== "PENDING" && record.fields.lastSyncStatus !== "SYNCING") continue;
    record.fields.lastSyncStatus = "PENDING";
    state.store.touchDataSource(record.fields.id);
    jobs.enqueue(record.fields.id)();
  }
}

function assertOpen(state: ServerState): void {
  if (state.isClosed) throw new Error("the reference server is closed");
}

/** The snapshots of one server. */
export function createSnapshots(deps: SnapshotDeps): SnapshotController {
  const saved = new Map<string, Snapshot>();
  const { state } = deps;
  return {
    save: async (name) => {
      assertSnapshotName(name);
      assertOpen(state);
      const resources = state.store.captureResources();
      const { organizations, dataSources } = resources;
      const info = { name, savedAt: deps.now().toISOString(), organizations: organizations.length, dataSources: dataSources.length };
      saved.set(name, { info, resources });
      return { ...info };
    },
    restore: async (name) => {
      assertSnapshotName(name);
      const snapshot = saved.get(name);
      if (snapshot === undefined) {
        const known = [...saved.keys()].sort().join(", ") || "none";
        throw new Error(`no snapshot named "${name}": save it first (saved snapshots: ${known})`);
      }
      assertOpen(state);
      // Both steps run in this one event-loop turn: no request sees a half-restored state.
      state.store.replaceResources(snapshot.resources);
      restartDueSyncs(deps);
      await state.persist();
      return { ...snapshot.info };
    },
    list: () => [...saved.keys()].sort().map((key) => ({ ...saved.get(key)!.info })),
    delete: (name) => {
      assertSnapshotName(name);
      return saved.delete(name);
    },
  };
}
