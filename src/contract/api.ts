/**
 * The service's public API, as its specification states it, in zod schemas: the one source of
 * request and response shapes for both the reference server and the provider.
 */
import { z } from "zod";
import type { DATA_SOURCE_RESPONSE_FIELDS } from "./fields";

/** Path of the create-organization endpoint. */
export const ORGANIZATIONS_PATH = "/api/public/organizations";

/** Path of the create-data-source endpoint for an organization. */
export function dataSourcesPath(orgId: string): string {
  return `${ORGANIZATIONS_PATH}/${encodeURIComponent(orgId)}/data-sources`;
}

/** Path of the single-sign-on endpoint for embedding (method and payload not shown in the spec). */
export const SSO_JWT_PATH = "/api/sso/jwt";

/** Lowest valid port and sshPort. */
export const PORT_MIN = 0;
/** Highest valid port and sshPort. */
export const PORT_MAX = 65535;
/** Longest organization name accepted (the spec shows no limit; this bound is the reference server's choice). */
export const ORGANIZATION_NAME_MAX = 255;
/** Length of the random part of an API key. */
export const API_KEY_SECRET_LENGTH = 32;

/** The only allowed data source `type`. */
export const DATA_SOURCE_TYPES = ["direct"] as const;
/** The only allowed `dialect`. */
export const DIALECTS = ["POSTGRES"] as const;

/** Defaults the spec states for omitted data source fields. */
export const DATA_SOURCE_DEFAULTS = { sslEnabled: true, sshEnabled: false } as const;

/** Reason given for any invalid port, so every failure names the allowed range. */
const PORT_RULE = `must be an integer from ${PORT_MIN} to ${PORT_MAX}`;
const port = z.number({ error: PORT_RULE }).int({ error: PORT_RULE }).min(PORT_MIN, { error: PORT_RULE }).max(PORT_MAX, { error: PORT_RULE });

/** Body of `POST /api/public/organizations`. Unknown fields are rejected so typos surface. */
export const createOrganizationRequest = z.strictObject({
  /** Organization name. */
  name: z.string().min(1).max(ORGANIZATION_NAME_MAX),
});

/** Parsed body of a create-organization request. */
export type CreateOrganizationRequest = z.infer<typeof createOrganizationRequest>;

/** Every body field of `POST /api/public/organizations/{orgId}/data-sources`, as the spec's table states it. */
export const dataSourceRequestShape = {
  type: z.enum(DATA_SOURCE_TYPES),
  dialect: z.enum(DIALECTS),
  displayName: z.string().min(1),
  snowflakeAccountId: z.string().optional(),
  snowflakeWarehouse: z.string().optional(),
  snowflakeRole: z.string().optional(),
  snowflakePrivateKey: z.string().optional(),
  snowflakePrivateKeyPassphrase: z.string().optional(),
  databaseName: z.string({ error: "must be a string or null" }).nullable().optional(),
  username: z.string().optional(),
  host: z.string().optional(),
  port: port.optional(),
  password: z.string().optional(),
  bigQueryJsonKey: z.string().optional(),
  bigQueryProjectId: z.string().optional(),
  spannerInstanceId: z.string().optional(),
  sslEnabled: z.boolean().default(DATA_SOURCE_DEFAULTS.sslEnabled),
  sshEnabled: z.boolean().default(DATA_SOURCE_DEFAULTS.sshEnabled),
  sshHost: z.string().optional(),
  sshPort: port.optional(),
  sshUsername: z.string().optional(),
  sshPassword: z.string().optional(),
  sshPrivateKey: z.string().optional(),
  sshPrivateKeyPassphrase: z.string().optional(),
};

/** Body of a create-data-source request; unknown fields are rejected, defaults applied. */
export const createDataSourceRequest = z.strictObject(dataSourceRequestShape);

/** Parsed (defaults applied) body of a create-data-source request. */
export type CreateDataSourceRequest = z.output<typeof createDataSourceRequest>;
/** A create-data-source body as sent (defaults optional). */
export type CreateDataSourceInput = z.input<typeof createDataSourceRequest>;

/** Names of every data source request field. */
export const DATA_SOURCE_REQUEST_FIELDS = Object.keys(dataSourceRequestShape) as Array<keyof typeof dataSourceRequestShape>;

const isoDateTime = z.string();
const nullableString = z.string().nullable();

/** An organization, as `data` of the create-organization response. Extra fields are tolerated. */
export const organization = z.looseObject({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  customAiContext: nullableString,
  /** Observed value: STARTED; others not shown in the spec. */
  onboardingStatus: z.string(),
});

/** An organization returned by the API. */
export type Organization = z.infer<typeof organization>;

/**
 * A data source, as `data` of the create-data-source response. Fields the request left unset
 * come back as null (the spec types them as strings but shows no value for the unset case).
 * Secrets are never part of it. Extra fields are tolerated so new API fields do not break clients.
 */
export const dataSource = z.looseObject({
  id: z.string(),
  displayName: z.string(),
  description: nullableString,
  dialect: z.string(),
  databaseName: nullableString,
  username: nullableString,
  host: nullableString,
  port: z.number().int().nullable(),
  sslEnabled: z.boolean(),
  sslCustomCertificatesEnabled: z.boolean(),
  sshEnabled: z.boolean(),
  sshHost: nullableString,
  sshPort: z.number().int().nullable(),
  sshUsername: nullableString,
  bigQueryProjectId: nullableString,
  spannerInstanceId: nullableString,
  snowflakeAccountId: nullableString,
  snowflakeWarehouse: nullableString,
  snowflakeRole: nullableString,
  lastSuccessfulSyncAt: isoDateTime.nullable(),
  lastSyncStatus: z.string(),
  lastSyncAttemptAt: isoDateTime.nullable(),
  hasCompletedFirstSync: z.boolean(),
  syncErrorMessage: nullableString,
  lastHealthyAt: isoDateTime.nullable(),
  lastHealthStatus: z.string(),
  lastHealthCheckAttemptAt: isoDateTime.nullable(),
  isDemo: z.boolean(),
  isServiceWarehouse: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** A data source returned by the API. */
export type DataSource = z.infer<typeof dataSource>;

/** True when the zod-free field list in fields.ts names exactly the schema's fields (checked at compile time). */
export const RESPONSE_FIELDS_MATCH_SCHEMA: [(typeof DATA_SOURCE_RESPONSE_FIELDS)[number]] extends [keyof typeof dataSource.shape]
  ? [keyof typeof dataSource.shape] extends [(typeof DATA_SOURCE_RESPONSE_FIELDS)[number]]
    ? true
    : false
  : false = true;


/** Error titles the reference server uses; the spec names ValidationError and Unauthorized. */
export const ERROR_TITLES = [
  "ValidationError",
  "Unauthorized",
  "NotFound",
  "MethodNotAllowed",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "RateLimited",
  "NotImplemented",
  "ServiceUnavailable",
  "InternalError",
] as const;

/** One of {@link ERROR_TITLES}. */
export type ErrorTitle = (typeof ERROR_TITLES)[number];

/** `{ "error": { "title", "detail" } }`: the failure envelope. */
export const errorEnvelope = z.object({
  error: z.object({ title: z.string(), detail: z.string() }),
});

/** A failure body. */
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

/** `{ "data": T }`: the success envelope around a schema. */
export function successEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}
