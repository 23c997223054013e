/**
 * ISO 8601 text of a time, made once per millisecond: everything stamped within the same
 * millisecond shares one string, so a burst of creates stores (and the garbage collector moves)
 * far fewer strings.
 */
let lastMs = Number.NaN;
let lastText = "";

/** `date.toISOString()`, shared with the previous call when it named the same millisecond. */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    // An invalid date throws here, as toISOString does, and leaves the cache as it was.
    lastText = date.toISOString();
    lastMs = ms;
  }
  return lastText;
}
