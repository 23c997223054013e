// @ts-check
/**
 * Lays a Go module out as a module proxy serves it, so `GOPROXY=file://<dir>` fetches it:
 * `<module>/@v/list`, `<version>.info`, `<version>.mod` and `<version>.zip`. The zip follows
 * golang.org/x/mod/zip's rules: every file of the module's directory under `<module>@<version>/`,
 * except nested modules and version-control folders; here the files git tracks, as a proxy
 * serving a tag would have them. Entries are sorted with one fixed time, so the bytes repeat.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const zlib = require("node:zlib");

/** The module path declared in `<dir>/go.mod`. @param {string} dir @returns {string} */
function modulePath(dir) {
  const match = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(dir, "go.mod"), "utf8"));
  if (!match) throw new Error(`${path.join(dir, "go.mod")} declares no module`);
  return match[1];
}

/**
 * The files of the module in `dir` (relative, sorted): tracked by git, outside nested modules.
 * @param {string} root @param {string} dir
 */
function moduleFiles(root, dir) {
  const rel = path.relative(root, dir);
  const tracked = execFileSync("git", ["ls-files", "-z", "--", rel], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
  const inside = tracked.map((file) => path.relative(rel, file).split(path.sep).join("/"));
  const nested = inside.filter((file) => file.endsWith("/go.mod")).map((file) => file.slice(0, -"go.mod".length));
  return inside.filter((file) => !nested.some((prefix) => file.startsWith(prefix)) && !/(^|\/)(\.git|\.hg|\.svn|\.bzr|vendor)\//.test(file)).sort();
}

/**
 * A zip archive of `entries` (name, data), deflated, each stamped 1980-01-01 00:00.
 * @param {{ name: string, data: Buffer }[]} entries
 */
function zip(entries) {
  /** @type {Buffer[]} */
  const locals = [];
  /** @type {Buffer[]} */
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, "utf8");
    const deflated = zlib.deflateRawSync(data, { level: 9 });
    const crc = zlib.crc32(data);
    /** @type {(b: Buffer, at: number) => void} */
    const common = (b, at) => {
      b.writeUInt16LE(20, at); // version needed
      b.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      b.writeUInt16LE(8, at + 4); // deflate
      b.writeUInt16LE(0, at + 6); // time 00:00
      b.writeUInt16LE(0x21, at + 8); // date 1980-01-01
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(deflated.length, at + 14);
      b.writeUInt32LE(data.length, at + 18);
      b.writeUInt16LE(nameBytes.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    common(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, deflated);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Writes the module in `dir` (inside the git work tree `root`) at `version` (e.g. v0.1.0) under
 * `outDir` in the proxy layout; `time` is the .info's Time. Returns the files written.
 * @param {{ root: string, dir: string, version: string, time: Date, outDir: string }} module
 * @returns {string[]}
 */
function writeGoModuleProxy({ root, dir, version, time, outDir }) {
  const module = modulePath(dir);
  // The proxy escapes capital letters as "!" and the lower-case letter.
  const vDir = path.join(outDir, ...module.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`).split("/"), "@v");
  fs.mkdirSync(vDir, { recursive: true });
  const entries = moduleFiles(root, dir).map((file) => ({ name: `${module}@${version}/${file}`, data: fs.readFileSync(path.join(dir, file)) }));
  const written = {
    list: `${version}\n`,
    [`${version}.info`]: JSON.stringify({ Version: version, Time: time.toISOString().replace(/\.\d{3}Z$/, "Z") }),
    [`${version}.mod`]: fs.readFileSync(path.join(dir, "go.mod")),
    [`${version}.zip`]: zip(entries),
  };
  return Object.entries(written).map(([name, data]) => {
    fs.writeFileSync(path.join(vDir, name), data);
    return path.join(vDir, name);
  });
}

module.exports = { modulePath, writeGoModuleProxy };
