import {
  responseSchema,
  type CreateDataSourceInput,
  type CreateOrganizationRequest,
  type DataSource,
  type Organization,
} from "../contract";
import { dataSourceSpec, describeObject, endpointPath, organizationSpec, secretFieldNames, type KindSpec } from "../kinds";
import { redact } from "../redact";
import { AnalyticsError, ConfigurationError } from "./errors";
import { API_KEY_HINT, buildPost, errorFromResponse, errorFromTransport, normalizeBaseUrl, parseSuccess, type OperationContext } from "./requests";
import { DEFAULT_RETRY_POLICY, decideRetry, type AttemptOutcome, type RetryPolicy } from "./retry";
import { TransportFailure, undiciTransport, type HttpRequest, type HttpResponse, type HttpTransport } from "./transport";
import type { z } from "zod";

/** Settings of an {@link AnalyticsClient}. */
export interface AnalyticsClientOptions {
  /** Base URL of the service, e.g. `https://analytics.example.com`. */
  baseUrl: string;
  /** API key, `<prefix>_key_<32 characters>`. */
  apiKey: string;
  /** Network seam; defaults to a keep-alive undici transport. */
  transport?: HttpTransport;
  /** Retry bounds; defaults to {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** Told before each retry wait, for progress output. */
  onRetry?: (event: RetryEvent) => void;
  /** Waits between attempts; replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
  /** User-Agent header. */
  userAgent?: string;
}

/** A retry about to happen. */
export interface RetryEvent {
  /** What is being created. */
  object: string;
  /** The attempt that just failed (1-based). */
  attempt: number;
  /** Wait before the next attempt. */
  delayMs: number;
  /** Why it failed, e.g. `HTTP 429` or `ECONNREFUSED`. */
  reason: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Client for the service's public API: the two create endpoints. */
export class AnalyticsClient {
  /** Normalized base URL. */
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly transport: HttpTransport;
  private readonly ownsTransport: boolean;
  private readonly policy: RetryPolicy;
  private readonly options: AnalyticsClientOptions;

  constructor(options: AnalyticsClientOptions) {
    if (!options.apiKey) throw new ConfigurationError(`No analytics API key is set. ${API_KEY_HINT}`);
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey;
    this.transport = options.transport ?? undiciTransport();
    this.ownsTransport = !options.transport;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.options = options;
  }

  /** `POST /api/public/organizations`. */
  createOrganization(body: CreateOrganizationRequest): Promise<Organization> {
    return this.createObject(organizationSpec, body) as Promise<Organization>;
  }

  /** `POST /api/public/organizations/{orgId}/data-sources`. */
  createDataSource(orgId: string, body: CreateDataSourceInput): Promise<DataSource> {
    return this.createObject(dataSourceSpec, body, { orgId }) as Promise<DataSource>;
  }

  /**
   * `POST` on the create endpoint of any kind: `body` is its create body, `owners` the ids its
   * path names (such as `orgId`). The answer is checked against the kind's outputs.
   */
  createObject(spec: KindSpec, body: object, owners: Readonly<Record<string, string>> = {}): Promise<Record<string, unknown>> {
    const values = body as Record<string, unknown>;
    const secrets = secretFieldNames(spec).map((field) => values[field] as string | undefined);
    return this.create(endpointPath(spec, owners), body, responseSchema(spec.outputs), describeObject(spec, { ...values, ...owners }), secrets);
  }

  /** Closes pooled connections (only those of a transport the client created itself). */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  private async create<T extends z.ZodType>(path: string, body: unknown, schema: T, object: string, secrets: Array<string | undefined>): Promise<z.output<T>> {
    const context: OperationContext = { object, creates: true, baseUrl: this.baseUrl };
    const request = buildPost(this.baseUrl, path, this.apiKey, body, this.options.userAgent ?? "pulumi-analytics");
    try {
      const response = await this.sendWithRetries(request, context);
      if (response.status >= 200 && response.status < 300) return parseSuccess(response, schema, context);
      throw errorFromResponse(response, context);
    } catch (error) {
      // Nothing the API or the network says may carry the key or a credential into a message.
      if (error instanceof AnalyticsError) error.message = redact(error.message, [this.apiKey, ...secrets]);
      throw error;
    }
  }

  private async sendWithRetries(request: HttpRequest, context: OperationContext): Promise<HttpResponse> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let outcome: AttemptOutcome;
      let result: HttpResponse | TransportFailure;
      try {
        result = await this.transport.send(request);
        outcome = { kind: "response", status: result.status, retryAfter: result.headers["retry-after"] };
      } catch (error) {
        if (!(error instanceof TransportFailure)) throw error;
        result = error;
        outcome = { kind: "transport", sent: error.sent, code: error.failureCode };
      }
      if (outcome.kind === "response" && outcome.status < 400) return result as HttpResponse;
      const decision = decideRetry(outcome, attempt, Date.now() - started, this.policy);
      if (decision.action === "stop") {
        if (result instanceof TransportFailure) throw errorFromTransport(result, context, attempt);
        return result;
      }
      const reason = outcome.kind === "response" ? `HTTP ${outcome.status}` : outcome.code;
      this.options.onRetry?.({ object: context.object, attempt, delayMs: decision.delayMs, reason });
      await (this.options.sleep ?? defaultSleep)(decision.delayMs);
    }
  }
}
