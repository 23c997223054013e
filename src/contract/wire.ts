/**
 * The API's facts that need no validation library: endpoint paths, error titles, the API key's
 * length. The reference server answers with these before it has validated anything.
 */
import { dataSourceSpec, endpointPath, organizationSpec } from "../kinds";

/** Path of the create-organization endpoint. */
export const ORGANIZATIONS_PATH = endpointPath(organizationSpec);

/** Path of the create-data-source endpoint for an organization. */
export function dataSourcesPath(orgId: string): string {
  return endpointPath(dataSourceSpec, { orgId });
}

/** Path of the single-sign-on endpoint for embedding (method and payload not shown in the spec). */
export const SSO_JWT_PATH = "/api/sso/jwt";

/** Length of the random part of an API key. */
export const API_KEY_SECRET_LENGTH = 32;

/** Error titles the reference server uses; the spec names ValidationError and Unauthorized. */
export const ERROR_TITLES = [
  "ValidationError",
  "Unauthorized",
  "Forbidden",
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
