import type { CreateDataSourceRequest, Organization, SecretDataSourceField } from "../../contract";
import { SECRET_DATA_SOURCE_FIELDS } from "../../contract/fields";
import { AnalyticsError } from "../../errors";
import { dataSourceSpec, outputNames, type DataSourceOutputs } from "../../kinds";
import type { ApiKeyRecord } from "./auth";
import { isoTime } from "./iso-time";
import { newId } from "./random";
import { uniqueSlug } from "./slug";
import type { SyncedTable } from "./synced-table";

/** Public fields of a data source as the API returns them. */
export type DataSourceFields = DataSourceOutputs;

/** Credentials sent with a data source; held in memory only, never persisted or returned. */
export type DataSourceSecrets = Partial<Record<SecretDataSourceField, string>>;

/** Outputs of a data source that no input sets (the id and times aside), as this server creates them. */
type InitialState = Omit<DataSourceFields, keyof CreateDataSourceRequest | "id" | "createdAt" | "updatedAt">;

/** A new data source's state: the spec shows PENDING and HEALTHY; nothing is synced or checked yet. */
const INITIAL_DATA_SOURCE_STATE: InitialState = {
  description: null,
  sslCustomCertificatesEnabled: false,
  lastSuccessfulSyncAt: null,
  lastSyncStatus: "PENDING",
  lastSyncAttemptAt: null,
  hasCompletedFirstSync: false,
  syncErrorMessage: null,
  lastHealthyAt: null,
  lastHealthStatus: "HEALTHY",
  lastHealthCheckAttemptAt: null,
  isDemo: false,
  isServiceWarehouse: false,
};

/** Every output of a new data source in order: the initial state, and null where an input goes. */
const DATA_SOURCE_TEMPLATE: Readonly<Record<string, unknown>> = Object.fromEntries(
  outputNames(dataSourceSpec).map((name) => [name, name in INITIAL_DATA_SOURCE_STATE ? INITIAL_DATA_SOURCE_STATE[name as keyof InitialState] : null]),
);

/** Outputs a new data source takes from its create request (the rest come from the template). */
const GIVEN_DATA_SOURCE_FIELDS = outputNames(dataSourceSpec).filter((name) => !(name in INITIAL_DATA_SOURCE_STATE));

/** The frozen list of each set of secret fields, by bit mask: records share them (most data sources carry the same one or two). */
const secretFieldLists = new Map<number, readonly SecretDataSourceField[]>();

/** Names of the secret fields `secrets` holds, in the spec's order, as a shared frozen list. */
function secretFieldList(secrets: DataSourceSecrets): readonly SecretDataSourceField[] {
  let mask = 0;
  SECRET_DATA_SOURCE_FIELDS.forEach((field, bit) => {
    if (secrets[field] !== undefined) mask |= 1 << bit;
  });
  let list = secretFieldLists.get(mask);
  if (list === undefined) secretFieldLists.set(mask, (list = Object.freeze(SECRET_DATA_SOURCE_FIELDS.filter((field) => secrets[field] !== undefined))));
  return list;
}

/** Default trial length: the spec shows none. */
export const DEFAULT_TRIAL_DAYS = 14;

/** Names users may have: they appear in logs and the state file, so keep them plain. */
export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** The trial an organization entered at its first data source. */
export interface Trial {
  /** When it started (ISO 8601). */
  startedAt: string;
  /** When it ends (ISO 8601). */
  endsAt: string;
}

/**
 * An organization as stored: the public fields (the id is `org_` + random; the slug is unique;
 * customAiContext is always null, as the API offers no way to set it; onboardingStatus is
 * `STARTED`, no transitions being specified) plus owner and trial.
 */
export interface OrganizationRecord extends Organization {
  /** User whose key created it; only they may add data sources to it. */
  ownerUserName: string;
  /** Creation time (ISO 8601). */
  createdAt: string;
  /** Null until the first data source starts the trial. */
  trial: Trial | null;
}

/** A data source as stored: public fields, owner organization and sync results. */
export interface DataSourceRecord {
  /** Organization it belongs to. */
  organizationId: string;
  /** Public fields, exactly what the API returns. */
  fields: DataSourceFields;
  /** Tables read by the last successful sync; null before one. Replaced, never changed in place. */
  tables: readonly SyncedTable[] | null;
  /** Names (never values) of the secret fields the create request carried; shared between records, never changed in place. */
  providedSecretFields: readonly SecretDataSourceField[];
}

/** The records a store is rebuilt from: what a state file holds besides its header. */
export interface StoredRecords {
  /** Key digests and owners (never keys). */
  apiKeys: ApiKeyRecord[];
  /** All organizations. */
  organizations: OrganizationRecord[];
  /** All data sources, without credentials. */
  dataSources: DataSourceRecord[];
}

/** Raised when a state file cannot be used; the message says why. */
export class StateError extends AnalyticsError {
  override readonly name = "StateError";
  override readonly code = "ANALYTICS_STATE" as const;
}

/** Organizations, data sources and their credentials, detached from the store: what a saved state holds (control/saved-states.ts). */
export interface StoredResources {
  /** Organizations, in creation order. */
  organizations: OrganizationRecord[];
  /** Data sources (with synced tables and sync status), in creation order. */
  dataSources: DataSourceRecord[];
  /** Credentials by data source id; in memory only, never written anywhere. */
  secrets: Array<[string, DataSourceSecrets]>;
}

/** Ids of the records changed since the journal's last line, or `replaced` when something was removed (reset, restore). */
export interface StoreChanges {
  /** Key digests added. */
  apiKeys: Set<string>;
  /** Organizations created or changed (a trial started). */
  organizations: Set<string>;
  /** Data sources created or changed (sync status). */
  dataSources: Set<string>;
  /** Organizations or data sources were removed or replaced: only a whole new state file says so. */
  replaced: boolean;
}

function emptyChanges(): StoreChanges {
  return { apiKeys: new Set(), organizations: new Set(), dataSources: new Set(), replaced: false };
}

/** Sync error recorded for a sync a restart cut short; credentials were not kept, so it is not retried. */
export const INTERRUPTED_SYNC_MESSAGE =
  "The schema sync was interrupted by a restart of the reference server; credentials are not persisted, so it was not retried.";

/**
 * All server state. Maps (not plain objects) everywhere so request-supplied names can never
 * reach a prototype. Credentials live in a separate in-memory map that the state file never holds.
 */
export class ReferenceStore {
  /** Key records by digest. */
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  /** Organizations by id, in creation order. */
  readonly organizations = new Map<string, OrganizationRecord>();
  /** Data sources by id, in creation order. */
  readonly dataSources = new Map<string, DataSourceRecord>();
  private readonly secrets = new Map<string, DataSourceSecrets>();
  private readonly slugs = new Set<string>();
  /** What changed since the last {@link ReferenceStore.takeChanges}; undefined unless changes are tracked. */
  private changes: StoreChanges | undefined;

  /** From now on, records what changes, for {@link ReferenceStore.takeChanges} (a state file's journal). */
  trackChanges(): void {
    this.changes ??= emptyChanges();
  }

  /** What changed since the last call (nothing unless tracked), and starts afresh. */
  takeChanges(): StoreChanges {
    const taken = this.changes ?? emptyChanges();
    if (this.changes) this.changes = emptyChanges();
    return taken;
  }

  /** Notes that a data source's record changed in place (a sync's status); saved with the next change. */
  touchDataSource(id: string): void {
    this.changes?.dataSources.add(id);
  }

  /** Records a minted key's digest for `userName`. */
  addApiKey(record: ApiKeyRecord): void {
    this.apiKeys.set(record.digest, record);
    this.changes?.apiKeys.add(record.digest);
  }

  /** Names of every user holding a key, sorted. */
  userNames(): string[] {
    return [...new Set([...this.apiKeys.values()].map((k) => k.userName))].sort();
  }

  /** Creates an organization owned by `ownerUserName`, with a slug no other organization has. */
  createOrganization(ownerUserName: string, name: string, now: Date): OrganizationRecord {
    const record: OrganizationRecord = {
      id: this.freshId("org", this.organizations),
      name,
      slug: uniqueSlug(name, (slug) => this.slugs.has(slug)),
      customAiContext: null,
      onboardingStatus: "STARTED",
      ownerUserName,
      createdAt: isoTime(now),
      trial: null,
    };
    this.organizations.set(record.id, record);
    this.slugs.add(record.slug);
    this.changes?.organizations.add(record.id);
    return record;
  }

  /** The organization `id` if `userName` owns it; otherwise undefined, whether or not it exists. */
  organizationOwnedBy(id: string, userName: string): OrganizationRecord | undefined {
    const org = this.organizations.get(id);
    return org?.ownerUserName === userName ? org : undefined;
  }

  /**
   * Creates a PENDING data source in `org` from a validated request; credentials go to the
   * in-memory secret map. Starts the organization's trial if it never had one.
   */
  createDataSource(org: OrganizationRecord, input: CreateDataSourceRequest, now: Date, trialDays: number): DataSourceRecord {
    const at = isoTime(now);
    // A copy of one template, then stores to existing fields only: V8 keeps such objects compact,
    // while a record built field by field turns into a dictionary at about twice the memory.
    const fields: Record<string, unknown> = { ...DATA_SOURCE_TEMPLATE };
    const given = input as Readonly<Record<string, unknown>>;
    for (const name of GIVEN_DATA_SOURCE_FIELDS) fields[name] = given[name] ?? null;
    Object.assign(fields, { id: this.freshId("ds", this.dataSources), createdAt: at, updatedAt: at });
    const secrets: DataSourceSecrets = {};
    for (const field of SECRET_DATA_SOURCE_FIELDS) {
      const value = input[field];
      if (value !== undefined) secrets[field] = value;
    }
    const record: DataSourceRecord = {
      organizationId: org.id,
      fields: fields as DataSourceFields,
      tables: null,
      providedSecretFields: secretFieldList(secrets),
    };
    this.dataSources.set(record.fields.id, record);
    this.secrets.set(record.fields.id, secrets);
    if (org.trial === null) {
      org.trial = { startedAt: at, endsAt: new Date(now.getTime() + trialDays * 86_400_000).toISOString() };
      this.changes?.organizations.add(org.id);
    }
    this.changes?.dataSources.add(record.fields.id);
    return record;
  }

  /** Credentials of a data source created by this process; undefined after a restart. */
  secretsOf(dataSourceId: string): Readonly<DataSourceSecrets> | undefined {
    return this.secrets.get(dataSourceId);
  }

  /** Data sources of an organization, in creation order. */
  dataSourcesOf(organizationId: string): DataSourceRecord[] {
    return [...this.dataSources.values()].filter((ds) => ds.organizationId === organizationId);
  }

  /** Drops every organization and data source (keys stay, so callers can go on). */
  clearResources(): void {
    this.organizations.clear();
    this.dataSources.clear();
    this.secrets.clear();
    this.slugs.clear();
    // Removals have no journal line: the next save writes the whole state.
    if (this.changes) this.changes = { ...emptyChanges(), replaced: true };
  }

  /** A deep copy of organizations, data sources and credentials (keys excluded); later changes never alter it. */
  captureResources(): StoredResources {
    return structuredClone({
      organizations: [...this.organizations.values()],
      dataSources: [...this.dataSources.values()],
      secrets: [...this.secrets],
    });
  }

  /**
   * Replaces organizations, data sources and credentials with a deep copy of `resources`, in one
   * synchronous step (no request sees a mix), in place (everyone holding the store sees it), and
   * rebuilds the slug set. Keys stay. Every record is a new object, so work bound to a replaced
   * record (a running sync) can tell.
   */
  replaceResources(resources: StoredResources): void {
    const copy = structuredClone(resources);
    this.clearResources();
    for (const org of copy.organizations) {
      this.organizations.set(org.id, org);
      this.slugs.add(org.slug);
    }
    for (const ds of copy.dataSources) this.dataSources.set(ds.fields.id, ds);
    for (const [id, secrets] of copy.secrets) this.secrets.set(id, secrets);
  }

  /**
   * Rebuilds a store from a state file's records, already checked against the file's shape,
   * checking their references. Syncs a restart cut short (PENDING, SYNCING) are marked FAILED:
   * without credentials they cannot rerun.
   */
  static fromParsed(records: StoredRecords, now: Date): ReferenceStore {
    const store = new ReferenceStore();
    for (const key of records.apiKeys) store.addApiKey(key);
    const users = new Set(store.userNames());
    for (const org of records.organizations) {
      if (!users.has(org.ownerUserName)) throw new StateError(`organization ${org.id} belongs to an unknown user`);
      if (store.organizations.has(org.id) || store.slugs.has(org.slug)) throw new StateError(`organization ${org.id} is duplicated`);
      store.organizations.set(org.id, org);
      store.slugs.add(org.slug);
    }
    for (const ds of records.dataSources) {
      if (!store.organizations.has(ds.organizationId)) throw new StateError(`data source ${ds.fields.id} belongs to an unknown organization`);
      if (store.dataSources.has(ds.fields.id)) throw new StateError(`data source ${ds.fields.id} is duplicated`);
      if (ds.fields.lastSyncStatus === "PENDING" || ds.fields.lastSyncStatus === "SYNCING") {
        ds.fields.lastSyncStatus = "FAILED";
        ds.fields.syncErrorMessage = INTERRUPTED_SYNC_MESSAGE;
        ds.fields.updatedAt = now.toISOString();
      }
      store.dataSources.set(ds.fields.id, ds);
    }
    return store;
  }

  private freshId(prefix: string, taken: ReadonlyMap<string, unknown>): string {
    for (;;) {
      const id = newId(prefix);
      if (!taken.has(id)) return id;
    }
  }
}
