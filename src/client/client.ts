import { shortQuote, type AnswerDifference } from "../contract/answer-reading";
import type { CreateDataSourceInput, CreateOrganizationRequest, DataSource, Organization } from "../contract";
import { dataSourceSpec, describeObject, endpointPath, organizationSpec, secretFieldNames, type KindSpec } from "../kinds";
import { redact } from "../redact";
import { AnalyticsError, ConfigurationError } from "./errors";
import { inClientWords } from "./advice";
import { buildPost, errorFromResponse, errorFromTransport, normalizeBaseUrl, parseSuccess, postHeaders, type OperationContext } from "./requests";
import { apiKeyProblem } from "./setting-rules";
import { DEFAULT_RETRY_POLICY, decideRetry, type AttemptOutcome, type RetryPolicy } from "./retry";
import { TransportFailure, undiciTransport, type HttpResponse, type HttpTransport } from "./transport";

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
  /** Told before each retry wait of every create, for progress output (each create may add its own, see {@link CreateOptions}). */
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

/** A field of a create's answer that was not what the spec says (src/contract/answer-reading.ts), and the object it belongs to. */
export interface AnswerDifferenceEvent extends AnswerDifference {
  /** What was created, e.g. `data source "Warehouse" in organization org_1`. */
  object: string;
  /** The object's id. */
  id: string;
}

/** Options of one create. */
export interface CreateOptions {
  /** Told before each retry wait of this create only (after the client's own {@link AnalyticsClientOptions.onRetry}). */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * Told of each field of the answer that differed from the spec, once the object is created: the
   * answer is read tolerantly, and the create succeeds whatever the differences (or the listener
   * throws). Quoted values never hold the key or the body's secrets.
   */
  onDifference?: ((event: AnswerDifferenceEvent) => void) | undefined;
}

/** What every create of one kind shares: its secret inputs, the last URL built. */
interface KindPlan {
  readonly secretNames: readonly string[];
  /** The owners {@link KindPlan.url} was built for. */
  ownersKey: string | undefined;
  url: string;
}

/** A create's {@link OperationContext}; `object` is worded on first read, which only an error or a retry does. */
class CreateContext implements OperationContext {
  readonly creates = true;
  private described: string | undefined;
  constructor(
    private readonly spec: KindSpec,
    private readonly label: unknown,
    private readonly owners: Readonly<Record<string, string>>,
    readonly baseUrl: string,
    /** This create's own listeners. */
    readonly options: CreateOptions,
  ) {}

  /** The kind created. */
  get kind(): KindSpec {
    return this.spec;
  }

  get object(): string {
    return (this.described ??= describeObject(this.spec, { [this.spec.labelField]: this.label, ...this.owners }));
  }
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
  /** Headers of every create (the key and User-Agent do not change). */
  private readonly headers: Readonly<Record<string, string>>;
  private readonly plans = new WeakMap<KindSpec, KindPlan>();

  constructor(options: AnalyticsClientOptions) {
    if (!options.apiKey) throw new ConfigurationError("No analytics API key is set.", inClientWords("api-key"));
    const keyProblem = apiKeyProblem(options.apiKey);
    if (keyProblem !== undefined) throw new ConfigurationError(`The analytics API key ${keyProblem}.`, inClientWords("api-key"));
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey;
    this.transport = options.transport ?? undiciTransport();
    this.ownsTransport = !options.transport;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.options = options;
    this.headers = postHeaders(options.apiKey, options.userAgent ?? "pulumi-analytics");
  }

  /** Creates an organization: a `POST` on the organization kind's endpoint. */
  createOrganization(body: CreateOrganizationRequest): Promise<Organization> {
    return this.createObject(organizationSpec, body) as Promise<Organization>;
  }

  /** Creates a data source in organization `orgId`: a `POST` on the data source kind's endpoint. */
  createDataSource(orgId: string, body: CreateDataSourceInput): Promise<DataSource> {
    return this.createObject(dataSourceSpec, body, { orgId }) as Promise<DataSource>;
  }

  /**
   * `POST` on the create endpoint of any kind: `body` is its create body, `owners` the ids its
   * path names (such as `orgId`). The answer is read tolerantly (src/contract/answer-reading.ts): the id
   * must be there, each difference is told to `options.onDifference`. `options.onRetry`
   * hears this create's retries only, so callers sharing one client tell each retry to its own caller.
   */
  createObject(spec: KindSpec, body: object, owners: Readonly<Record<string, string>> = {}, options: CreateOptions = {}): Promise<Record<string, unknown>> {
    const values = body as Record<string, unknown>;
    const plan = this.planFor(spec);
    // The secrets' values as sent, for redaction; the object's description is only worded if a message needs it.
    const secrets = plan.secretNames.map((field) => values[field] as string | undefined);
    const context = new CreateContext(spec, values[spec.labelField], owners, this.baseUrl, options);
    return this.create(this.urlFor(plan, spec, owners), body, context, secrets);
  }

  /** Closes pooled connections (only those of a transport the client created itself). */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  /** What every create of `spec` shares, worked out on its first create. */
  private planFor(spec: KindSpec): KindPlan {
    let plan = this.plans.get(spec);
    if (plan === undefined) {
      plan = { secretNames: secretFieldNames(spec), ownersKey: undefined, url: "" };
      this.plans.set(spec, plan);
    }
    return plan;
  }

  /** The create URL for these owners; the last one per kind is kept, as creates tend to go to one owner after another. */
  private urlFor(plan: KindPlan, spec: KindSpec, owners: Readonly<Record<string, string>>): string {
    // Length-prefixed, so no two different owner sets share a key.
    let key = "";
    for (const name in owners) {
      const value = String(owners[name]);
      key += `${name.length}:${name}${value.length}:${value}`;
    }
    if (plan.ownersKey !== key) {
      plan.url = `${this.baseUrl}${endpointPath(spec, owners)}`;
      plan.ownersKey = key;
    }
    return plan.url;
  }

  /**
   * One create: the first attempt, then retries only while {@link decideRetry} says the request
   * provably was not applied. Errors are redacted of the key and the body's secrets.
   */
  private async create(url: string, body: unknown, context: CreateContext, secrets: Array<string | undefined>): Promise<Record<string, unknown>> {
    const request = buildPost(url, this.headers, body);
    const started = Date.now();
    try {
      for (let attempt = 1; ; attempt++) {
        let outcome: AttemptOutcome;
        let response: HttpResponse | undefined;
        try {
          response = await this.transport.send(request);
          if (response.status < 400) {
            if (response.status >= 200 && response.status < 300) return this.created(response, context, secrets);
            throw errorFromResponse(response, context);
          }
          outcome = { kind: "response", status: response.status, retryAfter: response.headers["retry-after"] };
        } catch (error) {
          if (!(error instanceof TransportFailure)) throw error;
          const decision = decideRetry({ kind: "transport", sent: error.sent, code: error.failureCode }, attempt, Date.now() - started, this.policy);
          if (decision.action === "stop") throw errorFromTransport(error, context, attempt);
          await this.beforeRetry(context, attempt, decision.delayMs, error.failureCode);
          continue;
        }
        const decision = decideRetry(outcome, attempt, Date.now() - started, this.policy);
        if (decision.action === "stop") throw errorFromResponse(response, context);
        await this.beforeRetry(context, attempt, decision.delayMs, `HTTP ${response.status}`);
      }
    } catch (error) {
      // Nothing the API or the network says may carry the key or a credential into a message.
      if (error instanceof AnalyticsError) error.scrub((text) => redact(text, [this.apiKey, ...secrets]));
      throw error;
    }
  }

  /** The values of a 2xx answer; each difference from the spec told to the create's listener, redacted of the key and the body's secrets. */
  private created(response: HttpResponse, context: CreateContext, secrets: Array<string | undefined>): Record<string, unknown> {
    const { id, values, differences } = parseSuccess(response, context.kind, context);
    const listener = context.options.onDifference;
    for (const difference of listener === undefined ? [] : differences) {
      try {
        listener!({ ...difference, received: shortQuote(redact(difference.received, [this.apiKey, ...secrets])), object: context.object, id });
      } catch {
        // The object exists: a listener's failure never turns its create into an error.
      }
    }
    return values;
  }

  /** Tells {@link AnalyticsClientOptions.onRetry} and the create's own listener, and waits out the delay. */
  private async beforeRetry(context: CreateContext, attempt: number, delayMs: number, reason: string): Promise<void> {
    const event: RetryEvent = { object: context.object, attempt, delayMs, reason };
    this.options.onRetry?.(event);
    context.options.onRetry?.(event);
    await (this.options.sleep ?? defaultSleep)(delayMs);
  }
}
