/** Small statistics helpers: medians and paired ratios over repetitions. */

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

/** Rounds to `digits` decimals, for reports. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
