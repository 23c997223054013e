/**
 * Saved states: the server's organizations and data sources saved under a name and restored in
 * one step, so suites share an expensive setup and rewind to it between tests. Saved states live
 * in this process's memory only, since they hold credentials, which are never written anywhere.
 * Served over HTTP at `/_reference/saved-states` (and, for scripts written before the name, at
 * `/_reference/snapshots`: see inspection.ts).
 */
import { lazySchema } from "../../lazy-zod";
import type { ServerState } from "../state/server-state";
import type { StoredResources } from "../state/store";
import type { SyncJobs } from "../sync/sync-jobs";

/** Names a saved state may have: plain enough for a URL path segment and a log line. */
export const SAVED_STATE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The rule {@link SAVED_STATE_NAME_PATTERN} states, in words. */
export const SAVED_STATE_NAME_RULE = "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Body of `POST /_reference/saved-states`; a bad name is reported in the words of {@link SAVED_STATE_NAME_RULE}. */
export const saveStateRequest = lazySchema((z) => z.strictObject({ name: z.string().regex(SAVED_STATE_NAME_PATTERN, { message: SAVED_STATE_NAME_RULE }) }));

/** What a saved state holds, in numbers. */
export interface SavedStateInfo {
  /** Its name. */
  name: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** Organizations it holds. */
  organizations: number;
  /** Data sources it holds. */
  dataSources: number;
}

/** Saves and restores named states of organizations and data sources (users and keys are never rolled back). */
export interface SavedStateController {
  /** Saves the current organizations and data sources under `name`, replacing a saved state of that name. */
  save(name: string): Promise<SavedStateInfo>;
  /** Puts the state back to the one saved as `name` in one step; resolves once saved like a create. Rejects naming an unknown saved state. */
  restore(name: string): Promise<SavedStateInfo>;
  /** Every saved state, sorted by name. */
  list(): SavedStateInfo[];
  /** Forgets the saved state `name`; false if there was none. */
  delete(name: string): boolean;
}

/** What saved states act on. */
export interface SavedStateDeps {
  /** The store, and the saving of it. */
  state: ServerState;
  /** Background syncs, restarted for data sources restored while their sync was due. */
  jobs: SyncJobs;
  /** Clock. */
  now: () => Date;
}

/** One saved state. */
interface SavedState {
  /** Name, time and counts. */
  info: SavedStateInfo;
  /** The deep copy restored. */
  resources: StoredResources;
}

/** Throws a RangeError naming the saved-state name's rule unless `name` follows it. */
function assertSavedStateName(name: string): void {
  if (typeof name !== "string" || !SAVED_STATE_NAME_PATTERN.test(name)) throw new RangeError(`saved state name ${SAVED_STATE_NAME_RULE}`);
}

/**
 * Restarts the syncs a saved state caught midway: those data sources are PENDING again and their
 * sync is queued, with the credentials the saved state kept.
 */
function restartDueSyncs({ state, jobs }: SavedStateDeps): void {
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

/** The saved states of one server. */
export function createSavedStates(deps: SavedStateDeps): SavedStateController {
  const saved = new Map<string, SavedState>();
  const { state } = deps;
  return {
    save: async (name) => {
      assertSavedStateName(name);
      assertOpen(state);
      const resources = state.store.captureResources();
      const { organizations, dataSources } = resources;
      const info = { name, savedAt: deps.now().toISOString(), organizations: organizations.length, dataSources: dataSources.length };
      saved.set(name, { info, resources });
      return { ...info };
    },
    restore: async (name) => {
      assertSavedStateName(name);
      const savedState = saved.get(name);
      if (savedState === undefined) {
        const known = [...saved.keys()].sort().join(", ") || "none";
        throw new Error(`no saved state named "${name}": save it first (saved states: ${known})`);
      }
      assertOpen(state);
      // Both steps run in this one event-loop turn: no request sees a half-restored state.
      state.store.replaceResources(savedState.resources);
      restartDueSyncs(deps);
      await state.persist();
      return { ...savedState.info };
    },
    list: () => [...saved.keys()].sort().map((key) => ({ ...saved.get(key)!.info })),
    delete: (name) => {
      assertSavedStateName(name);
      return saved.delete(name);
    },
  };
}

/** @deprecated The earlier name of {@link SavedStateInfo}. */
export type SnapshotInfo = SavedStateInfo;

/** @deprecated The earlier name of {@link SavedStateController}. */
export type SnapshotController = SavedStateController;
