#!/usr/bin/env node
// @ts-check
/**
 * `prepack`/`postpack` hook: the packed package.json leaves out the `prepare` script.
 *
 * `prepare` builds dist/ for git installs and clones, but npm 11 lists a tarball's `prepare` as an
 * install script awaiting approval, although npm never runs it for a tarball. `strip` keeps the
 * original beside package.json and writes a copy without `prepare`; `restore` puts the original
 * back. A leftover original from an interrupted pack is restored before stripping again.
 * Usage: node tools/pack-manifest.js strip|restore
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const manifest = path.join(__dirname, "..", "package.json");
const original = `${manifest}.original`;

/** Replaces `file` with `text` by rename, so a reader never sees half a file. @param {string} file @param {string} text */
function writeAtomically(file, text) {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
}

function restore() {
  if (fs.existsSync(original)) fs.renameSync(original, manifest);
}

function strip() {
  restore();
  const text = fs.readFileSync(manifest, "utf8");
  const parsed = JSON.parse(text);
  if (!parsed.scripts || parsed.scripts.prepare === undefined) return;
  fs.writeFileSync(original, text);
  delete parsed.scripts.prepare;
  writeAtomically(manifest, `${JSON.stringify(parsed, null, 2)}\n`);
}

const command = process.argv[2];
if (command === "strip") strip();
else if (command === "restore") restore();
else {
  process.stderr.write("usage: node tools/pack-manifest.js strip|restore\n");
  process.exit(2);
}
