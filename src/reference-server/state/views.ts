import type { Organization, SecretDataSourceField } from "../../contract";
import { dataSourceSpec, organizationSpec, outputNames, type KindSpec } from "../../kinds";
import type { DataSourceFields, DataSourceRecord, OrganizationRecord, ReferenceStore } from "./store";
import type { SyncedTable } from "./synced-table";

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

/** A kind's answer fields, and an object holding each of them (null) in order, to copy. */
interface AnswerShape {
  names: readonly string[];
  template: Readonly<Record<string, unknown>>;
}

const answerShapes = new WeakMap<KindSpec, AnswerShape>();

/**
 * The fields of `kind`'s answer from a stored object, in the spec's order, and nothing else.
 * Filled into a copy of a template: an object built field by field with computed names turns
 * into a slow dictionary past a dozen fields, several times larger and slower to serialize.
 */
function answerOf(spec: KindSpec, stored: object): Record<string, unknown> {
  let shape = answerShapes.get(spec);
  if (shape === undefined) {
    const names = outputNames(spec);
    answerShapes.set(spec, (shape = { names, template: Object.fromEntries(names.map((name) => [name, null])) }));
  }
  const answer: Record<string, unknown> = { ...shape.template };
  for (const field of shape.names) answer[field] = (stored as Record<string, unknown>)[field];
  return answer;
}

/** `data` of a create-organization response: exactly the spec's fields. */
export function organizationResponse(org: OrganizationRecord): Organization {
  return answerOf(organizationSpec, org) as Organization;
}

/** `data` of a create-data-source response: the contract's fields, in its order, and nothing else. */
export function dataSourceResponse(record: DataSourceRecord): DataSourceFields {
  return answerOf(dataSourceSpec, record.fields) as DataSourceFields;
}

/** The inspection view of a data source. */
export function dataSourceInspection(store: ReferenceStore, record: DataSourceRecord): DataSourceInspection {
  return {
    ...dataSourceResponse(record),
    organizationId: record.organizationId,
    tables: record.tables === null ? null : structuredClone([...record.tables]),
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
