#!/usr/bin/env node
// @ts-check
/**
 * Change control of the package schema: what in a new schema breaks programs or stacks written
 * against an older one, and whether the new version may do so. Pulumi's own schema-tools
 * (`schema-tools compare`) is not served by the Go module proxy here, so this covers the same
 * ground for what this schema has: resources, functions, types, the provider and its config.
 *
 * Breaking: a resource, function, type or config variable removed; an input or output property
 * removed; an input that becomes required (or a new required one); an input whose type no longer
 * takes every value it took (a plain string may widen to a string-or-enum union, never the other
 * way); an output whose type changes at all; an output that is no longer always set; an enum
 * value removed. Descriptions, new optional inputs, new outputs, new types and language
 * sections never break. A breaking change is allowed only with a new major version.
 *
 * test/schema-compat.test.ts compares src/native/schema.json with the last release's
 * (test/fixtures/released-schema/, {@link RELEASED_DIR}) in `npm test`, and proves each rule with a table of changes.
 * Usage: node tools/schema-compat.js <old schema.json> <new schema.json>   (exit 1 on a refused change)
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** Where the schema of each release is kept, as `<name>-<version>.json`. */
const RELEASED_DIR = path.join(__dirname, "..", "test", "fixtures", "released-schema");

/** @typedef {{ type?: string, $ref?: string, items?: TypeSpec, additionalProperties?: TypeSpec, oneOf?: TypeSpec[] }} TypeSpec */
/**
 * The inputs and outputs of a resource, a function or the provider, as far as the rules read them.
 * @typedef {object} ObjectSpec
 * @property {Record<string, TypeSpec> | undefined} [inputProperties]
 * @property {string[] | undefined} [requiredInputs]
 * @property {Record<string, TypeSpec> | undefined} [properties]
 * @property {string[] | undefined} [required]
 */
/** @typedef {{ properties?: Record<string, TypeSpec>, required?: string[], enum?: { value: unknown }[] }} TypeDefinition An enum or object type of `types`. */
/**
 * A package schema, as far as the rules read it.
 * @typedef {object} Schema
 * @property {string} version
 * @property {Record<string, ObjectSpec>} [resources]
 * @property {Record<string, unknown>} [functions]
 * @property {{ variables?: Record<string, unknown> }} [config]
 * @property {ObjectSpec} [provider]
 * @property {Record<string, TypeDefinition>} [types]
 */

/** A single type's identity: its primitive, its `$ref`, or its element type's, recursively. @returns {string} */
function typeKey(/** @type {TypeSpec} */ spec) {
  if (spec.$ref !== undefined) return `ref:${spec.$ref}`;
  if (spec.type === "array" && spec.items) return `array<${typeKey(spec.items)}>`;
  if (spec.type === "object" && spec.additionalProperties) return `map<${typeKey(spec.additionalProperties)}>`;
  return String(spec.type);
}

/** The types a property accepts: each member of a `oneOf`, or its one type. */
const acceptedTypes = (/** @type {TypeSpec} */ spec) => (spec.oneOf ?? [spec]).map(typeKey);

/** Whether an input's new type takes every value its old type took. */
const inputWidened = (/** @type {TypeSpec} */ before, /** @type {TypeSpec} */ after) => acceptedTypes(before).every((t) => acceptedTypes(after).includes(t));

/** Whether an output keeps its type exactly. */
const outputKept = (/** @type {TypeSpec} */ before, /** @type {TypeSpec} */ after) => acceptedTypes(before).join("|") === acceptedTypes(after).join("|");

/**
 * The breaking changes between the inputs of one object (resource, provider, function).
 * @param {string} where @param {ObjectSpec} before @param {ObjectSpec} after
 */
function inputChanges(where, before, after) {
  const changes = [];
  const oldInputs = before.inputProperties ?? {};
  const newInputs = after.inputProperties ?? {};
  for (const [name, spec] of Object.entries(oldInputs)) {
    if (!(name in newInputs)) changes.push(`${where}: input "${name}" removed`);
    else if (!inputWidened(spec, newInputs[name]))
      changes.push(`${where}: input "${name}" no longer takes ${acceptedTypes(spec).join(" | ")} (now ${acceptedTypes(newInputs[name]).join(" | ")})`);
  }
  const wasRequired = new Set(before.requiredInputs ?? []);
  for (const name of after.requiredInputs ?? []) if (!wasRequired.has(name)) changes.push(`${where}: input "${name}" is now required`);
  return changes;
}

/** The breaking changes between the outputs of one object. @param {string} where @param {ObjectSpec} before @param {ObjectSpec} after */
function outputChanges(where, before, after) {
  const changes = [];
  const newOutputs = after.properties ?? {};
  for (const [name, spec] of Object.entries(before.properties ?? {})) {
    if (!(name in newOutputs)) changes.push(`${where}: output "${name}" removed`);
    else if (!outputKept(spec, newOutputs[name]))
      changes.push(`${where}: output "${name}" changed type from ${acceptedTypes(spec).join(" | ")} to ${acceptedTypes(newOutputs[name]).join(" | ")}`);
  }
  const required = new Set(after.required ?? []);
  for (const name of before.required ?? []) if (name in newOutputs && !required.has(name)) changes.push(`${where}: output "${name}" is no longer always set`);
  return changes;
}

/** The breaking changes between the types (enums and objects) of two schemas. @param {Schema} before @param {Schema} after */
function typeChanges(before, after) {
  const changes = [];
  for (const [token, spec] of Object.entries(before.types ?? {})) {
    const next = after.types?.[token];
    if (next === undefined) changes.push(`type "${token}" removed`);
    else if (spec.enum) {
      const values = new Set((next.enum ?? []).map((/** @type {{ value: unknown }} */ e) => e.value));
      for (const { value } of spec.enum) if (!values.has(value)) changes.push(`type "${token}": enum value ${JSON.stringify(value)} removed`);
    } else
      changes.push(
        ...inputChanges(
          `type "${token}"`,
          { inputProperties: spec.properties, requiredInputs: spec.required },
          { inputProperties: next.properties ?? {}, requiredInputs: next.required },
        ),
      );
  }
  return changes;
}

/** Every breaking change from `before` to `after`, as sentences; none means `after` may replace `before` in any version. */
function breakingChanges(/** @type {Schema} */ before, /** @type {Schema} */ after) {
  const changes = [];
  for (const [token, resource] of Object.entries(before.resources ?? {})) {
    const next = after.resources?.[token];
    if (next === undefined) changes.push(`resource "${token}" removed`);
    else changes.push(...inputChanges(`resource "${token}"`, resource, next), ...outputChanges(`resource "${token}"`, resource, next));
  }
  for (const token of Object.keys(before.functions ?? {})) if (!(token in (after.functions ?? {}))) changes.push(`function "${token}" removed`);
  for (const name of Object.keys(before.config?.variables ?? {}))
    if (!(name in (after.config?.variables ?? {}))) changes.push(`config variable "${name}" removed`);
  changes.push(...inputChanges("provider", before.provider ?? {}, after.provider ?? {}), ...typeChanges(before, after));
  return changes;
}

/** The major version of a semver string. */
const major = (/** @type {string} */ version) => Number(/^v?(\d+)\./.exec(version)?.[1] ?? NaN);

/**
 * The verdict on releasing `after` as the successor of `before`: its breaking changes, and
 * whether they are allowed (there are none, or the major version grew).
 * @returns {{ breaking: string[], allowed: boolean }}
 */
function compareSchemas(/** @type {Schema} */ before, /** @type {Schema} */ after) {
  const breaking = breakingChanges(before, after);
  return { breaking, allowed: breaking.length === 0 || major(after.version) > major(before.version) };
}

/**
 * The last release's schema: the file of {@link RELEASED_DIR} with the highest version.
 * @returns {{ file: string, schema: Schema }}
 */
function lastReleasedSchema(dir = RELEASED_DIR) {
  const versionOf = (/** @type {string} */ file) => (/-(\d+)\.(\d+)\.(\d+)\.json$/.exec(file) ?? []).slice(1).map(Number);
  const files = fs.readdirSync(dir).filter((f) => versionOf(f).length === 3);
  files.sort((a, b) => versionOf(a).reduce((order, n, i) => order || n - /** @type {number} */ (versionOf(b)[i]), 0));
  const last = files.at(-1);
  if (last === undefined) throw new Error(`no released schema in ${dir}`);
  return { file: path.join(dir, last), schema: JSON.parse(fs.readFileSync(path.join(dir, last), "utf8")) };
}

module.exports = { RELEASED_DIR, breakingChanges, compareSchemas, lastReleasedSchema };

if (require.main === module) {
  const [oldFile, newFile] = process.argv.slice(2);
  if (!oldFile || !newFile) {
    process.stderr.write("usage: node tools/schema-compat.js <old schema.json> <new schema.json>\n");
    process.exit(2);
  }
  const read = (/** @type {string} */ file) => JSON.parse(fs.readFileSync(file, "utf8"));
  const { breaking, allowed } = compareSchemas(read(oldFile), read(newFile));
  for (const change of breaking) process.stdout.write(`breaking: ${change}\n`);
  process.stdout.write(allowed ? `allowed (${breaking.length} breaking change(s))\n` : "refused: a breaking change needs a new major version\n");
  process.exit(allowed ? 0 : 1);
}
