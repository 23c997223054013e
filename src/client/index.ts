export { AnalyticsClient } from "./client";
export type { AnalyticsClientOptions, AnswerDifferenceEvent, CreateOptions, RetryEvent } from "./client";
export {
  AmbiguousCreateError,
  AnalyticsError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  ResponseFormatError,
  UnauthorizedError,
  UntrackedCreateError,
  PartialCreateError,
} from "./errors";
export type { Advice, AdviceCode, AnalyticsErrorCode } from "./errors";
export { DEFAULT_RETRY_POLICY } from "./retry";
export type { RetryPolicy } from "./retry";
export { fetchTransport, undiciTransport, TransportFailure } from "./transport";
export type { HttpRequest, HttpResponse, HttpTransport, TransportOptions } from "./transport";
