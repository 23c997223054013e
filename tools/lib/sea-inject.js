// @ts-check
/**
 * Injects a Node.js single-executable blob into a copy of `node` for Linux (ELF, 64-bit little
 * endian: x64 and arm64; tools/lib/sea-elf.js) or Windows (PE32+; tools/lib/sea-pe.js), where
 * Node.js looks for it at start, and sets the fuse `NODE_SEA_FUSE_…:0` to `:1`. The result depends
 * only on the two inputs, and takes a fraction of a second: postject's WebAssembly LIEF parses the
 * whole executable and takes 6 s of CPU for an ELF file and about 25 s for a PE file. Mach-O
 * (macOS), which a build makes only on macOS, stays postject's (tools/lib/single-executable.js).
 */
"use strict";
const fs = require("node:fs");
const { elfBlob, injectElf } = require("./sea-elf.js");
const { SeaInjectError } = require("./sea-format.js");
const { injectPe, peBlob } = require("./sea-pe.js");

/** The fuse Node.js checks for an injected blob (the Node.js single-executable documentation's own). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * Sets the fuse of `file` in place: `<fuse>:0` must occur exactly once (`:1` means a blob is there already).
 * @param {Buffer} file @param {string} name What the file is, for errors.
 */
function burnFuse(file, name) {
  if (file.indexOf(`${SEA_FUSE}:1`) !== -1) throw new SeaInjectError(`${name} already holds a single-executable blob (its fuse is set)`);
  const at = file.indexOf(`${SEA_FUSE}:0`);
  if (at === -1) throw new SeaInjectError(`${name} has no ${SEA_FUSE} fuse: it is not a Node.js that runs single-executable blobs`);
  if (file.indexOf(`${SEA_FUSE}:0`, at + 1) !== -1) throw new SeaInjectError(`${name} has the ${SEA_FUSE} fuse more than once`);
  file[at + SEA_FUSE.length + 1] = "1".charCodeAt(0);
}

/** The format of an executable, by its first bytes. @param {Buffer} file @returns {"elf" | "pe" | undefined} */
function formatOf(file) {
  if (file.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) return "elf";
  if (file.toString("latin1", 0, 2) === "MZ") return "pe";
  return undefined;
}

/**
 * `node` (the bytes of a Node.js executable for Linux or Windows) with `blob` injected and its fuse set.
 * @param {Buffer} node @param {Buffer} blob @param {string} [name] What the file is, for errors.
 * @returns {Buffer}
 */
function injectSeaBlob(node, blob, name = "the executable") {
  const format = formatOf(node);
  if (!format) throw new SeaInjectError(`${name} is neither an ELF nor a PE file`);
  // The fuse first: a file that holds a blob already is refused before anything else, and the PE checksum covers the set fuse.
  const fused = Buffer.from(node);
  burnFuse(fused, name);
  return format === "elf" ? injectElf(fused, blob, name) : injectPe(fused, blob, name);
}

/** Injects `blob` into the executable `binary` in place (see {@link injectSeaBlob}). @param {string} binary @param {Buffer} blob */
function injectSeaBlobFile(binary, blob) {
  fs.writeFileSync(binary, injectSeaBlob(fs.readFileSync(binary), blob, binary));
}

/** The blob injected into an executable, found as Node.js finds it; undefined when there is none. @param {Buffer} file */
function seaBlobOf(file) {
  const format = formatOf(file);
  return format === "elf" ? elfBlob(file) : format === "pe" ? peBlob(file) : undefined;
}

module.exports = { SEA_FUSE, SeaInjectError, injectSeaBlob, injectSeaBlobFile, seaBlobOf };
