/** Small statistics helpers: medians over repetitions, percentiles over samples. */

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Median over repetitions of `ours[i] / base[i]`: each repetition ran both sides back to back, so
 * its ratio cancels the machine's slower drift, which a ratio of two separate medians does not.
 */
export function pairedRatio(ours: readonly number[], base: readonly number[]): number {
  if (ours.length !== base.length) throw new RangeError("paired lists differ in length");
  return median(ours.map((x, i) => x / base[i]!));
}

/** Nearest-rank percentile (0-100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("percentile of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Rounds to `digits` decimals, for reports. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * A distribution-free confidence interval for the median of `values` (at least `confidence`, 0.95
 * by default): the k-th smallest and k-th largest value, k from the binomial distribution of how
 * many values fall below the true median. Undefined when there are too few values for it (n < 6 at 95%).
 */
export function medianInterval(values: readonly number[], confidence = 0.95): { low: number; high: number; coverage: number } | undefined {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  // P(X <= i) for X ~ Binomial(n, 1/2), grown term by term.
  let term = 0.5 ** n;
  let below = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (2 * (below + term) > 1 - confidence) break;
    below += term;
    term = (term * (n - i)) / (i + 1);
    k = i + 1;
  }
  if (k === 0) return undefined;
  return { low: sorted[k - 1]!, high: sorted[n - k]!, coverage: 1 - 2 * below };
}
