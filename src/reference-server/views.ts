import { type Organization, type SecretDataSourceField } from "../contract";
import type { SyncedTable } from "./schema-sync";
import type { DataSourceFields, DataSourceRecord, OrganizationRecord, ReferenceStore } from "./store";

/** An organization as the inspection surface shows it: the stored record plus its data sources. */
export interface OrganizationInspection extends OrganizationRecord {
  /** Its data sources' ids, in creation order. */
  dataSourceIds: string[];
}

/** An organization with its data sources in full. */
export interface OrganizationDetail extends OrganizationInspection {
  /** Its data sources, in creation order. */
  dataSources: DataSourceInspection[];
}

/** A data source as the inspection surface shows it: public fields plus sync results; never credentials. */
export interface DataSourceInspection extends DataSourceFields {
  /** Organization it belongs to. */
  organizationId: string;
  /** Tables and columns of the last successful sync; null before one. */
  tables: SyncedTable[] | null;
  /** Names of the secret fields the create request carried (values are never shown). */
  providedSecretFields: SecretDataSourceField[];
  /**
   * Whether this process still holds the credentials. False after a restart: credentials are
   * never persisted, so the data source cannot be synced again.
   */
  credentialsAvailable: boolean;
}

/** `data` of a create-organization response: exactly the spec's fields. */
export function organizationResponse(org: OrganizationRecord): Organization {
  return { id: org.id, name: org.name, slug: org.slug, customAiContext: org.customAiContext, onboardingStatus: org.onboardingStatus };
}

/**
 * `data` of a create-data-source response: every contract field, copied one by one into a literal
 * (so nothing else can slip in, and the object keeps one fixed shape, which JSON.stringify is fast on).
 */
export function dataSourceResponse(record: DataSourceRecord): DataSourceFields {
  const f = record.fields;
  return {
    id: f.id,
    displayName: f.displayName,
    description: f.description,
    dialect: f.dialect,
    databaseName: f.databaseName,
    username: f.username,
    host: f.host,
    port: f.port,
    sslEnabled: f.sslEnabled,
    sslCustomCertificatesEnabled: f.sslCustomCertificatesEnabled,
    sshEnabled: f.sshEnabled,
    sshHost: f.sshHost,
    sshPort: f.sshPort,
    sshUsername: f.sshUsername,
    bigQueryProjectId: f.bigQueryProjectId,
    spannerInstanceId: f.spannerInstanceId,
    snowflakeAccountId: f.snowflakeAccountId,
    snowflakeWarehouse: f.snowflakeWarehouse,
    snowflakeRole: f.snowflakeRole,
    lastSuccessfulSyncAt: f.lastSuccessfulSyncAt,
    lastSyncStatus: f.lastSyncStatus,
    lastSyncAttemptAt: f.lastSyncAttemptAt,
    hasCompletedFirstSync: f.hasCompletedFirstSync,
    syncErrorMessage: f.syncErrorMessage,
    lastHealthyAt: f.lastHealthyAt,
    lastHealthStatus: f.lastHealthStatus,
    lastHealthCheckAttemptAt: f.lastHealthCheckAttemptAt,
    isDemo: f.isDemo,
    isServiceWarehouse: f.isServiceWarehouse,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

/** The inspection view of a data source. */
export function dataSourceInspection(store: ReferenceStore, record: DataSourceRecord): DataSourceInspection {
  return {
    ...dataSourceResponse(record),
    organizationId: record.organizationId,
    tables: record.tables === null ? null : structuredClone(record.tables),
    providedSecretFields: [...record.providedSecretFields],
    credentialsAvailable: store.secretsOf(record.fields.id) !== undefined,
  };
}

/** The inspection view of an organization. */
export function organizationInspection(store: ReferenceStore, org: OrganizationRecord): OrganizationInspection {
  return {
    ...organizationResponse(org),
    ownerUserName: org.ownerUserName,
    createdAt: org.createdAt,
    trial: org.trial === null ? null : { ...org.trial },
    dataSourceIds: store.dataSourcesOf(org.id).map((ds) => ds.fields.id),
  };
}

/** The inspection view of an organization with its data sources. */
export function organizationDetail(store: ReferenceStore, org: OrganizationRecord): OrganizationDetail {
  return {
    ...organizationInspection(store, org),
    dataSources: store.dataSourcesOf(org.id).map((ds) => dataSourceInspection(store, ds)),
  };
}
