// @ts-check
/**
 * Who publishes the project and where it lives, all derived from package.json's `repository`
 * (the one place it is written): the schema's publisher, homepage, logo URL and category, the
 * Java SDK's Maven coordinates and package, and the Registry pages' links. tools/generate-schema.js,
 * tools/generate-sdks.js and tools/registry-docs.js read it; nothing else restates these names.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");

/** The repository's logo, whose raw GitHub address the schema names (tools/logo.js writes it). */
const LOGO_FILE = "assets/logo.svg";

/** The branch the logo's address points at: the repository's default branch. */
const DEFAULT_BRANCH = "main";

/**
 * The Pulumi Registry's category (one of Cloud, Infrastructure, Network, Database, Monitoring,
 * Utility): the package manages the service's connections to databases.
 */
const CATEGORY = "database";

/** package.json, parsed. */
function readManifest() {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
}

/**
 * @typedef {object} ProjectIdentity
 * @property {string} repository the repository's web address, `https://github.com/<owner>/<name>`
 * @property {string} goRepository the same without the scheme, the Go modules' prefix
 * @property {string} owner the GitHub organization: the publisher
 * @property {string} name the repository's name
 * @property {string} publisher who publishes the packages (the schema's `publisher`, the .NET authors, the npm author, the POM's developer)
 * @property {string} homepage the project's web page
 * @property {string} logoUrl where the schema's `logoUrl` points: {@link LOGO_FILE} on the default branch
 * @property {string} categoryKeyword the schema keyword naming the Registry's category
 * @property {string} javaGroupId the Maven groupId, in the `io.github.<owner>` namespace Maven Central grants a GitHub organization
 * @property {string} javaBasePackage the Java package prefix of the SDK (the groupId, with `_` for `-`)
 */

/**
 * The project's identity, from `manifest` (package.json by default).
 * @param {{ repository: { url: string } }} [manifest]
 * @returns {ProjectIdentity}
 */
function projectIdentity(manifest = readManifest()) {
  const repository = manifest.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
  const match = /^https:\/\/github\.com\/([^/]+)\/([^/]+)$/.exec(repository);
  if (!match) throw new Error(`package.json repository.url must be a GitHub repository, got ${manifest.repository.url}`);
  const [, owner, name] = match;
  return {
    repository,
    goRepository: repository.replace(/^https:\/\//, ""),
    owner,
    name,
    publisher: owner,
    homepage: repository,
    logoUrl: `https://raw.githubusercontent.com/${owner}/${name}/${DEFAULT_BRANCH}/${LOGO_FILE}`,
    categoryKeyword: `category/${CATEGORY}`,
    javaGroupId: `io.github.${owner}`,
    javaBasePackage: `io.github.${owner.replace(/-/g, "_")}`,
  };
}

module.exports = { LOGO_FILE, ROOT, projectIdentity, readManifest };
