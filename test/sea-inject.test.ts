/**
 * tools/lib/sea-inject.js on small files: an ELF executable of this machine (`/bin/true`, which
 * must still run), and a PE32+ file made here with a resource tree and a signature. The release's
 * own single files, each Node.js with the blob found and run (Linux x64 here, arm64 under qemu,
 * Windows under Wine), are test/release/'s.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SEA_FUSE, injectSeaBlob, seaBlobOf } from "../tools/lib/sea-inject.js";
import { peChecksum, peResources } from "../tools/lib/sea-pe.js";

const BLOB = Buffer.from("a single-executable blob, odd in length: 12345");
const FUSE_OFF = Buffer.from(`${SEA_FUSE}:0`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sea-inject-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `/bin/true` with the fuse appended (bytes past the section headers, which no loader reads). */
function elfWithFuse(): Buffer {
  return Buffer.concat([fs.readFileSync("/bin/true"), FUSE_OFF]);
}

describe("an ELF executable", () => {
  const injected = injectSeaBlob(elfWithFuse(), BLOB);

  it("runs after the injection, its blob found in a PT_NOTE that a PT_LOAD maps, its fuse set", () => {
    const file = path.join(dir, "true");
    fs.writeFileSync(file, injected, { mode: 0o755 });
    expect(spawnSync(file).status).toBe(0);
    expect(seaBlobOf(injected)?.equals(BLOB)).toBe(true);
    expect(injected.includes(`${SEA_FUSE}:1`)).toBe(true);
    expect(injected.includes(FUSE_OFF)).toBe(false);
    const segments = execFileSync("readelf", ["-lW", file], { encoding: "utf8" });
    const count = (type: string) => segments.split("\n").filter((line) => line.trim().startsWith(`${type} `)).length;
    const before = execFileSync("readelf", ["-lW", "/bin/true"], { encoding: "utf8" });
    const countBefore = (type: string) => before.split("\n").filter((line) => line.trim().startsWith(`${type} `)).length;
    expect([count("LOAD"), count("NOTE"), count("PHDR")]).toEqual([countBefore("LOAD") + 1, countBefore("NOTE") + 1, countBefore("PHDR")]);
  });

  it("is the same bytes from the same inputs", () => {
    expect(injectSeaBlob(elfWithFuse(), BLOB).equals(injected)).toBe(true);
  });

  it("is refused with the blob already in, or without the fuse, saying so", () => {
    expect(() => injectSeaBlob(injected, BLOB, "node")).toThrow("node already holds a single-executable blob (its fuse is set)");
    expect(() => injectSeaBlob(fs.readFileSync("/bin/true"), BLOB, "true")).toThrow(`true has no ${SEA_FUSE} fuse: it is not a Node.js that runs single-executable blobs`);
    expect(() => injectSeaBlob(Buffer.concat([elfWithFuse(), FUSE_OFF]), BLOB, "twice")).toThrow(`twice has the ${SEA_FUSE} fuse more than once`);
    expect(() => injectSeaBlob(Buffer.from("#!/bin/sh\n"), BLOB, "script")).toThrow("script is neither an ELF nor a PE file");
  });
});

/** A resource tree of one entry, `type`/`name id`/`language` → `data`, laid out at RVA `rva`. */
function resourceTree(rva: number, type: number, id: number, language: number, data: Buffer): Buffer {
  const dir = (entryId: number, target: number) => {
    const out = Buffer.alloc(24);
    out.writeUInt16LE(1, 14);
    out.writeUInt32LE(entryId, 16);
    out.writeUInt32LE(target >>> 0, 20);
    return out;
  };
  const entry = Buffer.alloc(16);
  entry.writeUInt32LE(rva + 88, 0);
  entry.writeUInt32LE(data.length, 4);
  return Buffer.concat([dir(type, 0x80000000 | 24), dir(id, 0x80000000 | 48), dir(language, 72), entry, data]);
}

/**
 * A PE32+ file as a linker lays it out: headers in 0x400 bytes, `.text` with the fuse, `.rsrc`
 * with a version resource, and an Authenticode certificate table at the end. `sections` fills
 * the section table so that no header fits beside it.
 */
function peFile(options: { fullTable?: boolean } = {}): Buffer {
  const file = Buffer.alloc(0xa00);
  file.write("MZ", 0, "latin1");
  file.writeUInt32LE(0x80, 0x3c);
  file.write("PE\0\0", 0x80, "latin1");
  const sectionCount = options.fullTable ? 15 : 2;
  file.writeUInt16LE(0x8664, 0x84);
  file.writeUInt16LE(sectionCount, 0x86);
  file.writeUInt16LE(240, 0x94);
  const opt = 0x98;
  file.writeUInt16LE(0x20b, opt);
  file.writeUInt32LE(0x1000, opt + 32);
  file.writeUInt32LE(0x200, opt + 36);
  file.writeUInt32LE(0x3000, opt + 56);
  file.writeUInt32LE(0x400, opt + 60);
  file.writeUInt32LE(16, opt + 108);
  file.writeUInt32LE(0x2000, opt + 112 + 8 * 2);
  file.writeUInt32LE(0x100, opt + 116 + 8 * 2);
  const section = (i: number, name: string, va: number, raw: number) => {
    const at = opt + 240 + 40 * i;
    file.write(name, at, "latin1");
    file.writeUInt32LE(0x200, at + 8);
    file.writeUInt32LE(va, at + 12);
    file.writeUInt32LE(0x200, at + 16);
    file.writeUInt32LE(raw, at + 20);
  };
  section(0, ".text", 0x1000, 0x400);
  section(1, ".rsrc", 0x2000, 0x600);
  for (let i = 2; i < sectionCount; i++) section(i, ".pad", 0x3000 + i * 0x1000, 0);
  FUSE_OFF.copy(file, 0x410);
  resourceTree(0x2000, 16, 1, 1033, Buffer.from("version info")).copy(file, 0x600);
  // The certificate table: its offset is a file offset; it ends the file.
  file.writeUInt32LE(0x800, opt + 112 + 8 * 4);
  file.writeUInt32LE(0x200, opt + 116 + 8 * 4);
  file.write("certificate", 0x800, "latin1");
  return file;
}

describe("a PE32+ executable", () => {
  const original = peFile();
  const injected = injectSeaBlob(original, BLOB);
  const opt = 0x98;

  it("has the blob as RT_RCDATA/NODE_SEA_BLOB, beside its resources as they were, its fuse set", () => {
    expect(seaBlobOf(injected)?.equals(BLOB)).toBe(true);
    expect([...peResources(injected)].map(([key, data]) => [key, data.toString()])).toEqual([
      ["10/NODE_SEA_BLOB/0", BLOB.toString()],
      ["16/1/1033", "version info"],
    ]);
    expect(injected.includes(`${SEA_FUSE}:1`)).toBe(true);
  });

  it("has one more section, an image that covers it, no signature, and a checksum that holds", () => {
    expect(injected.readUInt16LE(0x86)).toBe(3);
    expect(injected.toString("latin1", opt + 240 + 80, opt + 240 + 84)).toBe(".sea");
    const [va, virtualSize] = [injected.readUInt32LE(opt + 240 + 80 + 12), injected.readUInt32LE(opt + 240 + 80 + 8)];
    expect(va).toBe(0x3000);
    expect(injected.readUInt32LE(opt + 56)).toBeGreaterThanOrEqual(va + virtualSize);
    expect([injected.readUInt32LE(opt + 112 + 8 * 4), injected.readUInt32LE(opt + 116 + 8 * 4)]).toEqual([0, 0]);
    expect(injected.includes("certificate")).toBe(false);
    expect(injected.readUInt32LE(opt + 64)).toBe(peChecksum(injected, opt + 64));
    expect(injected.readUInt32LE(opt + 64)).not.toBe(0);
  });

  it("is the same bytes from the same inputs, and refuses a second blob", () => {
    expect(injectSeaBlob(peFile(), BLOB).equals(injected)).toBe(true);
    expect(() => injectSeaBlob(injected, BLOB, "node.exe")).toThrow("node.exe already holds a single-executable blob");
  });

  it("is refused, unchanged, when its headers have no room for another section", () => {
    const full = peFile({ fullTable: true });
    const before = Buffer.from(full);
    expect(() => injectSeaBlob(full, BLOB, "node.exe")).toThrow("node.exe has no room for another section header");
    expect(full.equals(before)).toBe(true);
  });
});
