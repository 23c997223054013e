// @ts-check
/**
 * Makes a Python sdist's bytes depend only on its files: setuptools dates each entry with the
 * build's time (it does not honour SOURCE_DATE_EPOCH, which the wheel does) and names the
 * building user. {@link normalizeSdist} writes the archive again with the entries sorted by name,
 * each dated `mtime`, owner 0:0 with no user or group name, modes 0755 (directories and
 * executables) or 0644, and a gzip header without a timestamp or file name. Python's tarfile
 * reads and writes it (PAX, as setuptools writes it), so long names and directories stay as
 * they are.
 */
"use strict";
const { execFileSync } = require("node:child_process");

/** Reads the archive (argv[1]), writes it back normalised, dated argv[2] (seconds since the epoch). */
const NORMALIZE = `
import gzip, io, sys, tarfile
archive, mtime = sys.argv[1], int(sys.argv[2])
with tarfile.open(archive, "r:gz") as source:
    members = sorted(source.getmembers(), key=lambda m: m.name)
    contents = {m.name: source.extractfile(m).read() for m in members if m.isfile()}
tar = io.BytesIO()
with tarfile.open(fileobj=tar, mode="w", format=tarfile.PAX_FORMAT) as target:
    for m in members:
        m.mtime, m.uid, m.gid, m.uname, m.gname, m.pax_headers = mtime, 0, 0, "", "", {}
        m.mode = 0o755 if m.isdir() or m.mode & 0o100 else 0o644
        target.addfile(m, io.BytesIO(contents[m.name]) if m.isfile() else None)
with open(archive, "wb") as file:
    with gzip.GzipFile(filename="", mode="wb", fileobj=file, mtime=0, compresslevel=9) as compressed:
        compressed.write(tar.getvalue())
`;

/**
 * Rewrites the sdist `archive` in place so that two builds of the same sources give the same bytes.
 * @param {string} python the interpreter to run @param {string} archive @param {number} mtime seconds since the epoch
 */
function normalizeSdist(python, archive, mtime) {
  execFileSync(python, ["-c", NORMALIZE, archive, String(mtime)], { stdio: ["ignore", "ignore", "inherit"] });
}

module.exports = { normalizeSdist };
