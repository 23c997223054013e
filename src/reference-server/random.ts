import { randomBytes } from "node:crypto";

/** Letters and digits: the alphabet of API key secrets and resource ids. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Bytes at or above this are rejected so `byte % 62` stays uniform (248 = 4 × 62). */
export const REJECTION_THRESHOLD = 256 - (256 % BASE62_ALPHABET.length);

/** Maps random bytes to base62 characters, dropping the bytes that would bias the modulo. */
export function base62FromBytes(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) if (byte < REJECTION_THRESHOLD) out += BASE62_ALPHABET[byte % BASE62_ALPHABET.length];
  return out;
}

/** A string of `length` characters drawn uniformly from {@link BASE62_ALPHABET} with the CSPRNG. */
export function randomBase62(length: number): string {
  if (!Number.isInteger(length) || length < 0) throw new RangeError("length must be a non-negative integer");
  let out = "";
  // About 3% of bytes are rejected; ask for a few spare ones and loop in the rare case they run out.
  while (out.length < length) out += base62FromBytes(randomBytes(length - out.length + 8));
  return out.slice(0, length);
}

/** A new opaque id such as `org_3kTq…`; 20 base62 characters make collisions negligible. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
