#!/usr/bin/env node
// @ts-check
// Adds lock entries for platform packages that the registry this lock was resolved against did
// not serve (rollup's optional binaries for other systems). Without them `npm ci` refuses the lock
// as out of sync; with them it skips each one that does not match the machine, as usual.
// Run after any `npm install` that rewrote package-lock.json: `node tools/complete-lock.js`.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const LOCK = path.join(__dirname, "..", "package-lock.json");
/** Packages whose optional per-platform binaries follow `@scope/name-<os>-<cpu>[-<abi>]`. */
const PLATFORM_PARENTS = { "node_modules/rollup": "@rollup/rollup-" };

/**
 * What the lock records of a package that this script reads or writes.
 * @typedef {{ version?: string, dev?: boolean | undefined, license?: string | undefined, optionalDependencies?: Record<string, string> }} LockPackage
 */

/**
 * The lock entry of a platform package, its `os`, `cpu` and `libc` read from its name; keys in npm's order.
 * @param {string} version @param {string} suffix @param {LockPackage} parent
 */
function entryOf(version, suffix, parent) {
  const [os, cpu, abi = ""] = suffix.split("-");
  const libc = os !== "linux" ? undefined : abi.includes("musl") ? "musl" : "glibc";
  return { version, cpu: [cpu], dev: parent.dev, ...(libc ? { libc: [libc] } : {}), license: parent.license, optional: true, os: [os] };
}

/** @type {{ packages: Record<string, LockPackage> }} */
const lock = JSON.parse(fs.readFileSync(LOCK, "utf8"));
let added = 0;
for (const [parentKey, prefix] of Object.entries(PLATFORM_PARENTS)) {
  const parent = lock.packages[parentKey];
  for (const [name, version] of Object.entries(parent?.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (!name.startsWith(prefix) || lock.packages[key]) continue;
    lock.packages[key] = entryOf(version, name.slice(prefix.length), parent);
    added++;
  }
}
const keys = Object.keys(lock.packages).sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0));
lock.packages = Object.fromEntries(keys.map((key) => [key, lock.packages[key]]));
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform entr${added === 1 ? "y" : "ies"} added\n`);
