#!/usr/bin/env node
// @ts-check
/**
 * Runs Verdaccio, the npm registry of the publish rehearsal, on 127.0.0.1 at a port the system
 * picks, and prints `listening <port>` once it answers. Verdaccio is the one installed by `npm ci`
 * from this folder's package.json and lock into `<install dir>` (test/support/registries.ts does,
 * in the project cache). It keeps its packages and users under `<data dir>`; anyone may read, a
 * registered user may publish, one user may register (the rehearsal's), and it proxies nothing.
 * Usage: node serve.js <install dir> <data dir>
 */
"use strict";
const path = require("node:path");

/** Verdaccio's configuration for a registry whose files are under `dir`. @param {string} dir */
function config(dir) {
  return {
    self_path: path.join(dir, "config.yaml"),
    storage: path.join(dir, "storage"),
    auth: { htpasswd: { file: path.join(dir, "htpasswd"), max_users: 1 } },
    uplinks: {},
    packages: { "**": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" } },
    web: { enable: false },
    log: { type: "stdout", format: "pretty", level: "warn" },
  };
}

async function main() {
  const [installDir, dataDir] = process.argv.slice(2);
  if (!installDir || !dataDir) throw new Error("usage: node serve.js <install dir> <data dir>");
  const { runServer } = require(require.resolve("verdaccio", { paths: [installDir] }));
  const app = await runServer(config(path.resolve(dataDir)));
  const server = app.listen(0, "127.0.0.1", () => process.stdout.write(`listening ${server.address().port}\n`));
}

main().catch((error) => {
  process.stderr.write(`error: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
