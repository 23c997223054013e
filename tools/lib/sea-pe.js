// @ts-check
/**
 * The PE half of tools/lib/sea-inject.js: a PE32+ executable (Windows x64) with a Node.js
 * single-executable blob as a resource of type RT_RCDATA named {@link RESOURCE}, which Node.js finds
 * with FindResource at run time. A new last section holds the resource tree again with that entry
 * added (the other entries' data stays where it is, in `.rsrc`), then the blob; the resource
 * directory points at it. The Authenticode signature, which any change voids, is taken off, and the
 * header's checksum is computed again.
 */
"use strict";
const { RESOURCE, SeaInjectError, alignUp } = require("./sea-format.js");

const RT_RCDATA = 10;
const DIR_RESOURCE = 2;
const DIR_SECURITY = 4;
const SECTION_HEADER = 40;
/** Initialized data, readable. */
const SECTION_FLAGS = 0x40000040;
const SECTION_NAME = ".sea";

/**
 * A resource directory and its entries (named ones first, each group in order), and a data entry.
 * @typedef {{ characteristics: number, timeDateStamp: number, major: number, minor: number, entries: ResourceEntry[] }} ResourceDirectory
 * @typedef {{ rva: number, size: number, codePage: number }} ResourceData
 * @typedef {{ id?: number, name?: string, child: ResourceDirectory | ResourceData }} ResourceEntry
 */

/** The headers' offsets and the sections of a PE32+ file. @param {Buffer} file @param {string} name */
function peLayout(file, name) {
  if (file.toString("latin1", 0, 2) !== "MZ") throw new SeaInjectError(`${name} is not a PE file`);
  const pe = file.readUInt32LE(0x3c);
  const opt = pe + 24;
  if (file.toString("latin1", pe, pe + 4) !== "PE\0\0" || file.readUInt16LE(opt) !== 0x20b) throw new SeaInjectError(`${name} is not a PE32+ file`);
  const count = file.readUInt16LE(pe + 6);
  const sectionTable = opt + file.readUInt16LE(pe + 20);
  const sections = Array.from({ length: count }, (_, i) => {
    const at = sectionTable + i * SECTION_HEADER;
    return { va: file.readUInt32LE(at + 12), virtualSize: file.readUInt32LE(at + 8), rawSize: file.readUInt32LE(at + 16), rawPointer: file.readUInt32LE(at + 20) };
  });
  const directory = (/** @type {number} */ i) => ({ at: opt + 112 + 8 * i, va: file.readUInt32LE(opt + 112 + 8 * i), size: file.readUInt32LE(opt + 116 + 8 * i) });
  return { pe, opt, sectionTable, sections, directory, sectionAlign: file.readUInt32LE(opt + 32), fileAlign: file.readUInt32LE(opt + 36), headersSize: file.readUInt32LE(opt + 60) };
}

/** The file offset of an RVA. @param {ReturnType<typeof peLayout>} layout @param {number} rva */
function fileOffset(layout, rva) {
  const section = layout.sections.find((s) => rva >= s.va && rva < s.va + Math.max(s.virtualSize, s.rawSize));
  if (!section) throw new SeaInjectError(`RVA 0x${rva.toString(16)} lies in no section`);
  return section.rawPointer + rva - section.va;
}

/** The resource tree at file offset `root`, the directory at `offset` from it. @param {Buffer} file @param {number} root @param {number} [offset] @returns {ResourceDirectory} */
function readDirectory(file, root, offset = 0) {
  const at = root + offset;
  const count = file.readUInt16LE(at + 12) + file.readUInt16LE(at + 14);
  const entries = Array.from({ length: count }, (_, i) => {
    const [nameField, target] = [file.readUInt32LE(at + 16 + 8 * i), file.readUInt32LE(at + 20 + 8 * i)];
    const label = nameField & 0x80000000 ? { name: readName(file, root + (nameField & 0x7fffffff)) } : { id: nameField };
    const child = target & 0x80000000 ? readDirectory(file, root, target & 0x7fffffff) : readData(file, root + target);
    return { ...label, child };
  });
  return { characteristics: file.readUInt32LE(at), timeDateStamp: file.readUInt32LE(at + 4), major: file.readUInt16LE(at + 8), minor: file.readUInt16LE(at + 10), entries };
}

/** @param {Buffer} file @param {number} at */
const readName = (file, at) => file.toString("utf16le", at + 2, at + 2 + 2 * file.readUInt16LE(at));
/** @param {Buffer} file @param {number} at @returns {ResourceData} */
const readData = (file, at) => ({ rva: file.readUInt32LE(at), size: file.readUInt32LE(at + 4), codePage: file.readUInt32LE(at + 8) });

/** A directory with no entries. @returns {ResourceDirectory} */
const emptyDirectory = () => ({ characteristics: 0, timeDateStamp: 0, major: 0, minor: 0, entries: [] });

/** Named entries first, in ordinal order of their names; then IDs, ascending: the order the loader's search needs. @param {ResourceEntry} a @param {ResourceEntry} b */
function entryOrder(a, b) {
  if (a.name !== undefined && b.name !== undefined) return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  if (a.name !== undefined || b.name !== undefined) return a.name !== undefined ? -1 : 1;
  return (a.id ?? 0) - (b.id ?? 0);
}

/** `tree` with RT_RCDATA / {@link RESOURCE} / language 0 → `data`; throws when that resource is there already. @param {ResourceDirectory} tree @param {ResourceData} data @param {string} name */
function withBlobEntry(tree, data, name) {
  let rcdata = tree.entries.find((e) => e.id === RT_RCDATA);
  if (!rcdata) {
    rcdata = { id: RT_RCDATA, child: emptyDirectory() };
    tree.entries = [...tree.entries, rcdata].sort(entryOrder);
  }
  const types = /** @type {ResourceDirectory} */ (rcdata.child);
  if (types.entries.some((e) => e.name === RESOURCE)) throw new SeaInjectError(`${name} already has a ${RESOURCE} resource`);
  const languages = { ...emptyDirectory(), entries: [{ id: 0, child: data }] };
  types.entries = [...types.entries, { name: RESOURCE, child: languages }].sort(entryOrder);
  return tree;
}

/**
 * The bytes of `tree`, offsets from its start: every directory (breadth first), then the names,
 * then the data entries, the way resource compilers lay them out.
 * @param {ResourceDirectory} tree
 */
function treeBytes(tree) {
  /** @type {ResourceDirectory[]} */
  const directories = [];
  /** @type {string[]} */
  const names = [];
  /** @type {ResourceData[]} */
  const data = [];
  for (let i = 0, queue = [tree]; i < queue.length; i++) {
    const dir = /** @type {ResourceDirectory} */ (queue[i]);
    directories.push(dir);
    for (const entry of dir.entries) {
      if (entry.name !== undefined) names.push(entry.name);
      if ("entries" in entry.child) queue.push(entry.child);
      else data.push(entry.child);
    }
  }
  const dirOffsets = new Map();
  let size = 0;
  for (const dir of directories) dirOffsets.set(dir, size), (size += 16 + 8 * dir.entries.length);
  const nameOffsets = new Map();
  for (const name of names) nameOffsets.set(name, size), (size += 2 + 2 * name.length);
  size = alignUp(size, 4);
  const dataOffsets = new Map();
  for (const entry of data) dataOffsets.set(entry, size), (size += 16);
  const out = Buffer.alloc(size);
  for (const dir of directories) writeDirectory(out, dir, dirOffsets, nameOffsets, dataOffsets);
  for (const [name, at] of nameOffsets) out.writeUInt16LE(name.length, at), out.write(name, at + 2, "utf16le");
  for (const [entry, at] of dataOffsets) out.writeUInt32LE(entry.rva, at), out.writeUInt32LE(entry.size, at + 4), out.writeUInt32LE(entry.codePage, at + 8);
  return out;
}

/**
 * @param {Buffer} out @param {ResourceDirectory} dir
 * @param {Map<ResourceDirectory, number>} dirs @param {Map<string, number>} names @param {Map<ResourceData, number>} data
 */
function writeDirectory(out, dir, dirs, names, data) {
  const at = /** @type {number} */ (dirs.get(dir));
  out.writeUInt32LE(dir.characteristics, at);
  out.writeUInt32LE(dir.timeDateStamp, at + 4);
  out.writeUInt16LE(dir.major, at + 8);
  out.writeUInt16LE(dir.minor, at + 10);
  out.writeUInt16LE(dir.entries.filter((e) => e.name !== undefined).length, at + 12);
  out.writeUInt16LE(dir.entries.filter((e) => e.name === undefined).length, at + 14);
  dir.entries.forEach((entry, i) => {
    const label = entry.name !== undefined ? (0x80000000 | /** @type {number} */ (names.get(entry.name))) >>> 0 : /** @type {number} */ (entry.id);
    const target = "entries" in entry.child ? (0x80000000 | /** @type {number} */ (dirs.get(entry.child))) >>> 0 : /** @type {number} */ (data.get(entry.child));
    out.writeUInt32LE(label, at + 16 + 8 * i);
    out.writeUInt32LE(target, at + 20 + 8 * i);
  });
}

/** `file` without its Authenticode signature, which must be its end (it is no section's). @param {Buffer} file @param {ReturnType<typeof peLayout>} layout @param {string} name */
function unsigned(file, layout, name) {
  const { at, va: offset, size } = layout.directory(DIR_SECURITY);
  if (size === 0) return Buffer.from(file);
  if (alignUp(offset + size, 8) < file.length) throw new SeaInjectError(`${name}'s signature is not at the end of the file`);
  const out = Buffer.from(file.subarray(0, offset));
  out.writeUInt32LE(0, at);
  out.writeUInt32LE(0, at + 4);
  return out;
}

/** The PE checksum of `file`, whose checksum field is at `field` (read as zero). @param {Buffer} file @param {number} field */
function peChecksum(file, field) {
  let sum = 0;
  for (let i = 0; i + 1 < file.length; i += 2) {
    if (i === field || i === field + 2) continue;
    sum += file.readUInt16LE(i);
    sum = (sum & 0xffff) + (sum >>> 16);
  }
  if (file.length % 2 === 1) sum += file[file.length - 1] ?? 0;
  sum = (sum & 0xffff) + (sum >>> 16);
  return (sum + file.length) >>> 0;
}

/** The section header of {@link SECTION_NAME}. @param {{ va: number, virtualSize: number, rawPointer: number, rawSize: number }} s */
function sectionHeaderBytes(s) {
  const out = Buffer.alloc(SECTION_HEADER);
  out.write(SECTION_NAME, 0, "latin1");
  out.writeUInt32LE(s.virtualSize, 8);
  out.writeUInt32LE(s.va, 12);
  out.writeUInt32LE(s.rawSize, 16);
  out.writeUInt32LE(s.rawPointer, 20);
  out.writeUInt32LE(SECTION_FLAGS, 36);
  return out;
}

/**
 * `file` (a PE32+ executable) with `blob` as the resource RT_RCDATA / {@link RESOURCE}, in a new last section.
 * @param {Buffer} file @param {Buffer} blob @param {string} name
 */
function injectPe(file, blob, name) {
  const layout = peLayout(file, name);
  const resources = layout.directory(DIR_RESOURCE);
  const tree = resources.size === 0 ? emptyDirectory() : readDirectory(file, fileOffset(layout, resources.va));
  const header = layout.sectionTable + layout.sections.length * SECTION_HEADER;
  const firstRaw = Math.min(...layout.sections.map((s) => s.rawPointer).filter((p) => p > 0));
  if (header + SECTION_HEADER > Math.min(layout.headersSize, firstRaw) || file.subarray(header, header + SECTION_HEADER).some((b) => b !== 0)) {
    throw new SeaInjectError(`${name} has no room for another section header`);
  }
  const base = unsigned(file, layout, name);
  const va = alignUp(Math.max(...layout.sections.map((s) => s.va + Math.max(s.virtualSize, s.rawSize))), layout.sectionAlign);
  // The tree's size does not depend on the blob's address: lay it out once to learn where the blob goes.
  const blobOffset = alignUp(treeBytes(withBlobEntry(structuredClone(tree), { rva: 0, size: 0, codePage: 0 }, name)).length, 8);
  const treePart = treeBytes(withBlobEntry(tree, { rva: va + blobOffset, size: blob.length, codePage: 0 }, name));
  const virtualSize = blobOffset + blob.length;
  const section = { va, virtualSize, rawPointer: alignUp(base.length, layout.fileAlign), rawSize: alignUp(virtualSize, layout.fileAlign) };
  const out = Buffer.alloc(section.rawPointer + section.rawSize);
  base.copy(out);
  treePart.copy(out, section.rawPointer);
  blob.copy(out, section.rawPointer + blobOffset);
  sectionHeaderBytes(section).copy(out, header);
  out.writeUInt16LE(layout.sections.length + 1, layout.pe + 6);
  out.writeUInt32LE(out.readUInt32LE(layout.opt + 8) + section.rawSize, layout.opt + 8);
  out.writeUInt32LE(alignUp(va + virtualSize, layout.sectionAlign), layout.opt + 56);
  out.writeUInt32LE(va, resources.at);
  out.writeUInt32LE(virtualSize, resources.at + 4);
  out.writeUInt32LE(peChecksum(out, layout.opt + 64), layout.opt + 64);
  return out;
}

/**
 * Every resource of a PE file, by its path of type, name and language (`10/NODE_SEA_BLOB/0`), with its bytes.
 * @param {Buffer} file
 * @returns {Map<string, Buffer>}
 */
function peResources(file) {
  const layout = peLayout(file, "the file");
  const resources = layout.directory(DIR_RESOURCE);
  const found = new Map();
  /** @param {ResourceDirectory} dir @param {string[]} path */
  const walk = (dir, path) => {
    for (const entry of dir.entries) {
      const here = [...path, entry.name ?? String(entry.id)];
      if ("entries" in entry.child) walk(entry.child, here);
      else found.set(here.join("/"), file.subarray(fileOffset(layout, entry.child.rva), fileOffset(layout, entry.child.rva) + entry.child.size));
    }
  };
  if (resources.size > 0) walk(readDirectory(file, fileOffset(layout, resources.va)), []);
  return found;
}

/** The blob of a PE file, found as FindResource finds it: RT_RCDATA / {@link RESOURCE} / its first language. @param {Buffer} file */
function peBlob(file) {
  return [...peResources(file)].find(([path]) => path.startsWith(`${RT_RCDATA}/${RESOURCE}/`))?.[1];
}

module.exports = { injectPe, peBlob, peChecksum, peResources };
