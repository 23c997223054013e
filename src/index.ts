export { Organization } from "./resources/organization";
export type { OrganizationArgs } from "./resources/organization";
export { DataSource } from "./resources/data-source";
export type { DataSourceArgs } from "./resources/data-source";
export {
  AnalyticsClient,
  AmbiguousCreateError,
  AnalyticsError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  ResponseFormatError,
  UnauthorizedError,
} from "./client";
export type { AnalyticsClientOptions, AnalyticsErrorCode, RetryPolicy } from "./client";
