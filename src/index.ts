// First, before @pulumi/pulumi loads: a program on an ended Node.js line gets one clear error.
import { assertSupportedNode } from "./node-support";
assertSupportedNode();

export { Organization } from "./resources/organization";
export type { OrganizationArgs } from "./resources/organization";
export { DataSource } from "./resources/data-source";
export type { DataSourceArgs } from "./resources/data-source";
// The client itself is at `pulumi-analytics/client`, so a program loads no HTTP or validation library.
export {
  AmbiguousCreateError,
  AnalyticsError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  ImportUnsupportedError,
  ResponseFormatError,
  UnauthorizedError,
  UnsupportedRuntimeError,
  UntrackedCreateError,
  PartialCreateError,
} from "./client/errors";
export type { AdviceCode, AnalyticsErrorCode } from "./client/errors";
