import { randomBytes, randomFillSync } from "node:crypto";

/** Letters and digits: the alphabet of API key secrets and resource ids. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Bytes at or above this are rejected so `byte % 62` stays uniform (248 = 4 × 62). */
export const REJECTION_THRESHOLD = 256 - (256 % BASE62_ALPHABET.length);

/** The character code a random byte stands for, or -1 for the bytes dropped because they would bias the modulo. */
function base62Code(byte: number): number {
  return byte < REJECTION_THRESHOLD ? BASE62_ALPHABET.charCodeAt(byte % BASE62_ALPHABET.length) : -1;
}

/** Maps random bytes to base62 characters, dropping the bytes that would bias the modulo. */
export function base62FromBytes(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) {
    const code = base62Code(byte);
    if (code >= 0) out += String.fromCharCode(code);
  }
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

/** Base62 characters of an id: 20 make collisions negligible. */
const ID_LENGTH = 20;

/**
 * CSPRNG bytes for ids, filled a pool at a time: each `randomBytes` call makes a native object
 * the garbage collector must then process, once per create. Ids are not secrets; API keys still
 * draw their own bytes.
 */
const idPool = Buffer.alloc(4096);
let idPoolUsed = idPool.length;

function idByte(): number {
  if (idPoolUsed === idPool.length) {
    randomFillSync(idPool);
    idPoolUsed = 0;
  }
  return idPool[idPoolUsed++]!;
}

/** Where ids are assembled: prefixes are short constants (`org`, `ds`). */
const idChars = Buffer.alloc(64);

/** A new opaque id such as `org_3kTq…`, built as one flat string (stored ids take no more memory than their characters). */
export function newId(prefix: string): string {
  let length = idChars.write(prefix, "latin1");
  idChars[length++] = 0x5f; // "_"
  const end = length + ID_LENGTH;
  while (length < end) {
    const code = base62Code(idByte());
    if (code >= 0) idChars[length++] = code;
  }
  return idChars.toString("latin1", 0, end);
}
