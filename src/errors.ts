/** Stable codes of every error this package raises. */
export type AnalyticsErrorCode =
  | "ANALYTICS_ERROR"
  | "ANALYTICS_CONFIGURATION"
  | "ANALYTICS_API_ERROR"
  | "ANALYTICS_UNAUTHORIZED"
  | "ANALYTICS_CONNECTION"
  | "ANALYTICS_AMBIGUOUS_CREATE"
  | "ANALYTICS_UNTRACKED_CREATE"
  | "ANALYTICS_PARTIAL_CREATE"
  | "ANALYTICS_RESPONSE_FORMAT"
  | "ANALYTICS_STATE"
  | "ANALYTICS_IMPORT_UNSUPPORTED"
  | "ANALYTICS_UNSUPPORTED_RUNTIME"
  | "ANALYTICS_MIGRATION_REFUSED"
  | "ANALYTICS_MISSING_PEER";

/**
 * What an error advises doing, as a code each layer words for its own audience: the client names
 * its options (src/client/advice.ts), the providers name stack config and the next `pulumi up`
 * (src/provider-core/pulumi-advice.ts).
 */
export type AdviceCode = "api-key" | "base-url" | "ambiguous-create";

/** Advice as one audience reads it: its code and the words for that audience. */
export interface Advice {
  /** What to do, whoever reads it. */
  readonly code: AdviceCode;
  /** The sentences closing the message. */
  readonly words: string;
}

/** Base of every error this package raises: a fixed `name` and a stable `code` to branch on. */
export class AnalyticsError extends Error {
  override readonly name: string = "AnalyticsError";
  /** Stable identifier of the failure kind. */
  readonly code: AnalyticsErrorCode = "ANALYTICS_ERROR";
  /** What happened: the message without its advice. */
  summary: string;
  /** What to do about it, when the message closes with advice; worded per audience, see {@link AdviceCode}. */
  readonly advice: AdviceCode | undefined;

  /** `message` is `summary`, then the advice's words when there is advice. */
  constructor(summary: string, advice?: Advice) {
    super(advice === undefined ? summary : `${summary} ${advice.words}`);
    this.summary = summary;
    this.advice = advice?.code;
  }

  /** Words the advice for another audience: `message` becomes `summary` and that audience's words; class, code and summary stay. */
  adviseIn(wording: Readonly<Record<AdviceCode, string>>): this {
    if (this.advice !== undefined) this.message = `${this.summary} ${wording[this.advice]}`;
    return this;
  }

  /** Applies `clean` to the summary and the message alike (the client removes credentials from both). */
  scrub(clean: (text: string) => string): void {
    this.summary = clean(this.summary);
    this.message = clean(this.message);
  }
}
