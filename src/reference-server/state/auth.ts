import { hash, timingSafeEqual } from "node:crypto";
import { API_KEY_SECRET_LENGTH } from "../../contract/wire";
import { randomBase62 } from "./random";

/** Service prefix of keys when none is configured: keys look like `analytics_key_<32 chars>`. */
export const DEFAULT_KEY_PREFIX = "analytics";

/** Allowed shape of a key prefix: letters, digits, `-` and `_`, starting with a letter or digit. */
const KEY_PREFIX_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** What the server keeps of an API key: its SHA-256 digest and owner, never the key. */
export interface ApiKeyRecord {
  /** Lowercase hex SHA-256 of the full key. */
  digest: string;
  /** User the key belongs to. */
  userName: string;
  /** When the key was minted (ISO 8601). */
  createdAt: string;
}

/** Outcome of checking an `Authorization` header. */
export type AuthResult = { ok: true; userName: string } | { ok: false; detail: string };

/** Throws unless `prefix` can start an API key. */
export function assertKeyPrefix(prefix: string): void {
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new RangeError(`key prefix must be 1-32 letters, digits, '-' or '_', starting with a letter or digit, got ${JSON.stringify(prefix)}`);
  }
}

/** A new key `<prefix>_key_<secret>` whose secret is {@link API_KEY_SECRET_LENGTH} CSPRNG base62 characters. */
export function generateApiKey(prefix: string): string {
  assertKeyPrefix(prefix);
  return `${prefix}_key_${randomBase62(API_KEY_SECRET_LENGTH)}`;
}

/** Lowercase hex SHA-256 of a key: the only form in which keys are stored. */
export function digestApiKey(key: string): string {
  // One-shot hash: no Hash object per request.
  return hash("sha256", key, "hex");
}

/** Exactly a key secret: {@link API_KEY_SECRET_LENGTH} base62 characters. */
const SECRET_PATTERN = new RegExp(`^[0-9A-Za-z]{${API_KEY_SECRET_LENGTH}}$`);

/** True when `key` has the shape of this server's keys: `<prefix>_key_` and {@link API_KEY_SECRET_LENGTH} letters and digits. */
export function isApiKeyShaped(key: string, prefix: string): boolean {
  const keyStart = `${prefix}_key_`;
  return key.startsWith(keyStart) && SECRET_PATTERN.test(key.slice(keyStart.length));
}

/** The credential of `Bearer <credential>`: "" when the scheme is not Bearer, undefined when there is not exactly one. */
function bearerCredential(header: string): string | undefined {
  const [scheme = "", ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== "bearer") return "";
  return rest.length === 1 ? rest[0]! : undefined;
}

/**
 * Checks `Authorization: Bearer <key>` against the stored digests. Details say what is wrong
 * with the header's shape but never repeat the key.
 */
export function authenticate(header: string | undefined, prefix: string, keysByDigest: ReadonlyMap<string, ApiKeyRecord>): AuthResult {
  if (header === undefined || header.trim() === "") {
    return { ok: false, detail: "Missing API key: send the header `Authorization: Bearer <API_KEY>`." };
  }
  const credential = bearerCredential(header);
  if (credential === "") {
    return { ok: false, detail: "The Authorization header must use the Bearer scheme: `Authorization: Bearer <API_KEY>`." };
  }
  const key = credential ?? "";
  const keyStart = `${prefix}_key_`;
  if (!isApiKeyShaped(key, prefix)) {
    return {
      ok: false,
      detail: `The API key is malformed: expected \`${keyStart}\` followed by ${API_KEY_SECRET_LENGTH} letters and digits.`,
    };
  }
  const digest = digestApiKey(key);
  const record = keysByDigest.get(digest);
  const candidate = Buffer.from(digest, "hex");
  // The map narrows to one candidate; the final comparison runs in constant time all the same,
  // against a dummy digest when nothing matched, so both paths do the same work.
  const stored = Buffer.from(record?.digest ?? "0".repeat(64), "hex");
  if (!timingSafeEqual(stored, candidate) || record === undefined) {
    return { ok: false, detail: "The API key is not valid." };
  }
  return { ok: true, userName: record.userName };
}
