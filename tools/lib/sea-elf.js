// @ts-check
/**
 * The ELF half of tools/lib/sea-inject.js: a 64-bit little-endian ELF executable (Linux x64 and
 * arm64) with a Node.js single-executable blob as a PT_NOTE named {@link RESOURCE}, which Node.js
 * finds among its program headers at run time. The file's end gets a new read-only PT_LOAD holding
 * the program header table (moved there, longer by that segment and by the note) and the note. Its
 * address is the file offset plus the first segment's base, so the kernel's and qemu's two ways of
 * finding the table (PT_PHDR, or the first segment's base plus e_phoff) agree, and it lies above
 * every other segment.
 */
"use strict";
const { RESOURCE, SeaInjectError, alignUp } = require("./sea-format.js");

const PT_LOAD = 1;
const PT_NOTE = 4;
const PT_PHDR = 6;
const PF_R = 4;
const PHDR_SIZE = 56;
/** The new segment's alignment: the largest page size of the platforms (64 KiB on arm64). */
const SEGMENT_ALIGN = 0x10000;

/**
 * @typedef {{ type: number, flags: number, offset: number, vaddr: number, paddr: number, filesz: number, memsz: number, align: number }} ProgramHeader
 */

/** @param {Buffer} file @param {number} at @returns {ProgramHeader} */
function readProgramHeader(file, at) {
  const u64 = (/** @type {number} */ o) => Number(file.readBigUInt64LE(at + o));
  return { type: file.readUInt32LE(at), flags: file.readUInt32LE(at + 4), offset: u64(8), vaddr: u64(16), paddr: u64(24), filesz: u64(32), memsz: u64(40), align: u64(48) };
}

/** @param {ProgramHeader} h @returns {Buffer} */
function programHeaderBytes(h) {
  const out = Buffer.alloc(PHDR_SIZE);
  out.writeUInt32LE(h.type, 0);
  out.writeUInt32LE(h.flags, 4);
  [h.offset, h.vaddr, h.paddr, h.filesz, h.memsz, h.align].forEach((value, i) => out.writeBigUInt64LE(BigInt(value), 8 + 8 * i));
  return out;
}

/** An ELF note: its name (NUL-terminated, padded to 4), then `desc` (padded to 4). @param {string} name @param {Buffer} desc */
function noteBytes(name, desc) {
  const nameBytes = Buffer.from(`${name}\0`);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(nameBytes.length, 0);
  head.writeUInt32LE(desc.length, 4);
  const pad = (/** @type {number} */ n) => Buffer.alloc(alignUp(n, 4) - n);
  return Buffer.concat([head, nameBytes, pad(nameBytes.length), desc, pad(desc.length)]);
}

/** The program headers of a 64-bit little-endian ELF file. @param {Buffer} file @param {string} name */
function elfProgramHeaders(file, name) {
  if (file[4] !== 2 || file[5] !== 1) throw new SeaInjectError(`${name} is not a 64-bit little-endian ELF file`);
  if (file.readUInt16LE(0x36) !== PHDR_SIZE) throw new SeaInjectError(`${name} has program headers of an unexpected size`);
  const phoff = Number(file.readBigUInt64LE(0x20));
  return Array.from({ length: file.readUInt16LE(0x38) }, (_, i) => readProgramHeader(file, phoff + i * PHDR_SIZE));
}

/**
 * `file` (an ELF executable) with `blob` as a PT_NOTE named {@link RESOURCE}, in a new PT_LOAD at its end.
 * @param {Buffer} file @param {Buffer} blob @param {string} name
 */
function injectElf(file, blob, name) {
  const headers = elfProgramHeaders(file, name);
  const loads = headers.filter((h) => h.type === PT_LOAD);
  const first = loads.find((h) => h.offset === 0);
  if (!first) throw new SeaInjectError(`${name} has no loadable segment at the start of the file`);
  const base = first.vaddr;
  const end = Math.max(...loads.map((h) => h.vaddr + h.memsz));
  // The file offset of the new segment, page-aligned: past the file's end, and mapped past every segment.
  const offset = alignUp(Math.max(file.length, end - base), SEGMENT_ALIGN);
  const tableSize = (headers.length + 2) * PHDR_SIZE;
  const note = noteBytes(RESOURCE, blob);
  const noteOffset = offset + alignUp(tableSize, 8);
  const size = noteOffset + note.length - offset;
  const at = (/** @type {number} */ o) => ({ offset: o, vaddr: base + o, paddr: base + o });
  const segment = { type: PT_LOAD, flags: PF_R, ...at(offset), filesz: size, memsz: size, align: SEGMENT_ALIGN };
  const noteHeader = { type: PT_NOTE, flags: PF_R, ...at(noteOffset), filesz: note.length, memsz: note.length, align: 4 };
  const lastLoad = headers.lastIndexOf(loads[loads.length - 1]);
  const table = [...headers.slice(0, lastLoad + 1), segment, ...headers.slice(lastLoad + 1), noteHeader].map((h) =>
    h.type === PT_PHDR ? { ...h, ...at(offset), filesz: tableSize, memsz: tableSize } : h,
  );
  const out = Buffer.alloc(noteOffset + note.length);
  file.copy(out);
  Buffer.concat(table.map(programHeaderBytes)).copy(out, offset);
  note.copy(out, noteOffset);
  out.writeBigUInt64LE(BigInt(offset), 0x20);
  out.writeUInt16LE(table.length, 0x38);
  return out;
}

/**
 * The blob of a file {@link injectElf} wrote, found as Node.js finds it: the first PT_NOTE whose note is named {@link RESOURCE}.
 * @param {Buffer} file
 * @returns {Buffer | undefined}
 */
function elfBlob(file) {
  for (const h of elfProgramHeaders(file, "the file").filter((p) => p.type === PT_NOTE)) {
    for (let pos = h.offset; pos + 12 <= h.offset + h.filesz; ) {
      const [namesz, descsz] = [file.readUInt32LE(pos), file.readUInt32LE(pos + 4)];
      const nameAt = pos + 12;
      const descAt = nameAt + alignUp(namesz, 4);
      if (file.toString("latin1", nameAt, nameAt + namesz) === `${RESOURCE}\0`) return file.subarray(descAt, descAt + descsz);
      pos = descAt + alignUp(descsz, 4);
    }
  }
  return undefined;
}

module.exports = { elfBlob, injectElf };
