/** What a removed credential is replaced by, everywhere. */
export const REDACTED = "[redacted]";

/**
 * Removes credentials from a message: every occurrence of each secret (raw and URL-encoded), the
 * password part of `postgres://user:password@` URLs and `password=...` settings. A short secret
 * may blank out unrelated letters; a garbled message beats a leaked secret.
 */
export function redact(message: string, secrets: Iterable<unknown>): string {
  let redacted = message
    .replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/gi, `$1${REDACTED}@`)
    .replace(/(password\s*=\s*)('[^']*'|"[^"]*"|[^\s,;)]+)/gi, `$1${REDACTED}`);
  for (const secret of secrets) {
    // Only non-empty strings: a non-string credential (an empty list, say, which an input may hold
    // before the API rejects it) would split on its string form, "" for `[]`, between every character.
    if (typeof secret !== "string" || secret === "") continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) redacted = redacted.split(form).join(REDACTED);
  }
  return redacted;
}
