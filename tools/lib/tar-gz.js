// @ts-check
/**
 * Writes tar and .tar.gz archives whose bytes depend only on the entries given: entries in the
 * order given, each with one fixed mtime, an owner of the entry's own (0:0 unless given) and no
 * user or group name, and a gzip header without a timestamp or file name, its OS byte fixed to
 * Unix. Two builds of the same inputs give the same archive on any platform, which no tar command
 * does on all of Linux, macOS and Windows alike. Besides regular files, an entry may be a
 * directory or a symbolic link, as a container image's file system has them.
 */
"use strict";
const fs = require("node:fs");
const zlib = require("node:zlib");

const BLOCK = 512;

/**
 * One entry of an archive: its name in the archive and its mode; a regular file's content from the
 * path `source` or the bytes `data`, a directory when `type` is "directory", a symbolic link to
 * `target` when `type` is "symlink"; owned by `uid`:`gid` (default 0:0).
 * @typedef {{ name: string, mode: number, uid?: number, gid?: number } & ({ type?: "file", source: string } | { type?: "file", data: Buffer } | { type: "directory" } | { type: "symlink", target: string })} TarEntry
 */

/** The ustar type flag of each kind of entry. */
const TYPE_FLAG = { file: "0", symlink: "2", directory: "5" };

/**
 * One ustar header block.
 * @param {{ name: string, mode: number, size: number, mtime: number, type: keyof typeof TYPE_FLAG, target?: string | undefined, uid?: number | undefined, gid?: number | undefined }} fields
 * @returns {Buffer}
 */
function header({ name, mode, size, mtime, type, target = "", uid = 0, gid = 0 }) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  if (Buffer.byteLength(target) > 100) throw new Error(`tar link target too long: ${target}`);
  const block = Buffer.alloc(BLOCK);
  /** @type {(offset: number, length: number, value: string) => number} */
  const field = (offset, length, value) => block.write(value, offset, length, "utf8");
  /** @type {(offset: number, length: number, value: number) => number} */
  const octal = (offset, length, value) => field(offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
  field(0, 100, name);
  octal(100, 8, mode);
  octal(108, 8, uid);
  octal(116, 8, gid);
  octal(124, 12, size);
  octal(136, 12, mtime);
  field(148, 8, " ".repeat(8));
  field(156, 1, TYPE_FLAG[type]);
  field(157, 100, target);
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

/**
 * A tar archive (uncompressed) of `entries`, in the order given, every mtime `mtime` (seconds since the epoch).
 * @param {readonly TarEntry[]} entries @param {number} mtime
 * @returns {Buffer}
 */
function tarBytes(entries, mtime) {
  const parts = [];
  for (const entry of entries) {
    const { name, mode, uid, gid } = entry;
    if (entry.type === "directory" || entry.type === "symlink") {
      const target = entry.type === "symlink" ? entry.target : undefined;
      parts.push(header({ name: entry.type === "directory" && !name.endsWith("/") ? `${name}/` : name, mode, size: 0, mtime, type: entry.type, target, uid, gid }));
      continue;
    }
    const data = "data" in entry ? entry.data : fs.readFileSync(entry.source);
    parts.push(header({ name, mode, size: data.length, mtime, type: "file", uid, gid }), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** The compression level of every archive and image layer the release writes. */
const GZIP_LEVEL = 6;

/**
 * `data` gzipped at zlib's default level (6, as `gzip` and `tar -z` use) with no timestamp or file
 * name in the header, the OS byte Unix. Level 9 made a Node.js single file's archive 0.35% smaller
 * for three times the CPU (45,550,476 against 45,707,746 bytes; 15.8 against 4.9 s).
 * @param {Buffer} data
 */
function gzipReproducible(data) {
  const gzip = zlib.gzipSync(data, { level: GZIP_LEVEL });
  gzip[9] = 3; // OS: Unix, whatever zlib was built for.
  return gzip;
}

/**
 * Writes a tar archive of `entries` to `archive`, every mtime `mtime` (seconds since the epoch).
 * @param {string} archive @param {readonly TarEntry[]} entries @param {number} mtime
 */
function writeTar(archive, entries, mtime) {
  fs.writeFileSync(archive, tarBytes(entries, mtime));
}

/**
 * Writes `archive` holding `entries` with every mtime set to `mtime` (seconds since the epoch), gzipped.
 * @param {string} archive @param {readonly TarEntry[]} entries @param {number} mtime
 */
function writeTarGz(archive, entries, mtime) {
  fs.writeFileSync(archive, gzipReproducible(tarBytes(entries, mtime)));
}

module.exports = { gzipReproducible, tarBytes, writeTar, writeTarGz };
