/** Longest slug produced before a `-N` suffix, so slugs stay readable in URLs. */
export const SLUG_MAX_LENGTH = 60;

/** Slug used when a name has no ASCII letters or digits at all (e.g. only emoji or CJK). */
export const FALLBACK_SLUG = "organization";

/**
 * URL-style short name for `name`: accents folded to ASCII, lowercase, every run of other
 * characters turned into one hyphen, no leading or trailing hyphen, never empty.
 */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/^-+|-+$/g, "");
  return slug === "" ? FALLBACK_SLUG : slug;
}

/** {@link slugify}`(name)`, or the same with `-2`, `-3`, … appended until `isTaken` says it is free. */
export function uniqueSlug(name: string, isTaken: (slug: string) => boolean): string {
  const base = slugify(name);
  if (!isTaken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!isTaken(candidate)) return candidate;
  }
}
