// @ts-check
/**
 * Writes a .tar.gz whose bytes depend only on the files given: entries in the order given, each
 * with one fixed mtime, owner 0:0 and no user or group name, and a gzip header without a timestamp
 * or file name, its OS byte fixed to Unix. Two builds of the same inputs give the same archive on
 * any platform, which no tar command does on all of Linux, macOS and Windows alike.
 */
"use strict";
const fs = require("node:fs");
const zlib = require("node:zlib");

const BLOCK = 512;

/**
 * One file of an archive: its name in the archive, the path it is read from, its mode.
 * @typedef {{ name: string, source: string, mode: number }} TarEntry
 */

/**
 * One ustar header block for a regular file.
 * @param {string} name @param {number} mode @param {number} size @param {number} mtime
 * @returns {Buffer}
 */
function header(name, mode, size, mtime) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const block = Buffer.alloc(BLOCK);
  /** @type {(offset: number, length: number, value: string) => number} */
  const field = (offset, length, value) => block.write(value, offset, length, "utf8");
  /** @type {(offset: number, length: number, value: number) => number} */
  const octal = (offset, length, value) => field(offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
  field(0, 100, name);
  octal(100, 8, mode);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, mtime);
  field(148, 8, " ".repeat(8));
  field(156, 1, "0");
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

/**
 * Writes `archive` holding `entries` (archive name, source path, mode) with every mtime set to
 * `mtime` (seconds since the epoch).
 * @param {string} archive @param {readonly TarEntry[]} entries @param {number} mtime
 */
function writeTarGz(archive, entries, mtime) {
  const parts = [];
  for (const { name, source, mode } of entries) {
    const data = fs.readFileSync(source);
    parts.push(header(name, mode, data.length, mtime), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  const gzip = zlib.gzipSync(Buffer.concat(parts), { level: 9 });
  gzip[9] = 3; // OS: Unix, whatever zlib was built for.
  fs.writeFileSync(archive, gzip);
}

module.exports = { writeTarGz };
