/**
 * Moves a stack's state from the dynamic classes to the native provider plugin, as a rewrite of
 * `pulumi stack export` output for `pulumi stack import`: no object is created, replaced or left
 * behind, because the engine finds each resource under the URN, type and provider the native
 * program registers. Pure: deployment JSON in, deployment JSON out, plus what changed.
 *
 * Imports nothing of the project but `kinds`. Never decrypts, compares or prints a value of
 * inputs or outputs: secrets stay the ciphertext objects the export holds.
 */
import { randomUUID } from "node:crypto";
import { PULUMI_MODULE, allKindSpecs, dynamicTypeToken, nativeTypeToken, type KindSpec } from "../kinds";
import { AnalyticsError } from "../errors";

/** The input was not a stack export this rewrite understands, or rewriting it would not be safe; nothing was written. */
export class MigrationRefusedError extends AnalyticsError {
  override readonly code = "ANALYTICS_MIGRATION_REFUSED" as const;
}

/** Options of {@link migrateDynamicToNative}. */
export interface MigrationOptions {
  /**
   * Version of the native provider the program will use, when it pins one (a generated SDK does):
   * the default provider is then named `default_<version with underscores>` and records `version`,
   * as the engine does. Without it, `default`, as for a program that registers by type token.
   */
  providerVersion?: string | undefined;
  /** Id of the provider resource added (the engine's form: a UUID); a random one by default. */
  providerId?: string | undefined;
}

/** One resource moved to its native type. */
export interface MovedResource {
  /** The kind's type name, `Organization` or `DataSource`. */
  typeName: string;
  /** Its id in the service (unchanged). */
  id: string;
  /** URN before. */
  from: string;
  /** URN after. */
  to: string;
}

/** What {@link migrateDynamicToNative} changed. */
export interface MigrationSummary {
  /** Every analytics resource moved (pending deletes included), in state order. */
  moved: MovedResource[];
  /** Other resources whose URN changed: children of a moved resource, their type path holding its type. */
  renamedChildren: Array<{ from: string; to: string }>;
  /** The native default provider every moved resource now points at. */
  provider: { urn: string; id: string; added: boolean; settings: string[] };
  /** The dynamic default provider removed because nothing refers to it any more, if so. */
  removedProviders: string[];
  /** References to a changed URN rewritten (parent, dependencies, propertyDependencies, deletedWith, aliases, provider…). */
  referencesRewritten: number;
  /** Things a user should know; never a value. */
  warnings: string[];
}

/** The rewritten export and what changed. */
export interface MigrationResult {
  /** The whole export, ready for `pulumi stack import`. */
  exported: StackExportJson;
  summary: MigrationSummary;
}

/** A stack export (`pulumi stack export`), as far as this rewrite reads it; every other field is kept as is. */
export interface StackExportJson {
  version: number;
  deployment: { resources?: ResourceJson[]; pending_operations?: unknown[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** One resource of a stack export. */
export interface ResourceJson {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  delete?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  provider?: string;
  propertyDependencies?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The deployment versions whose resource shape this rewrite knows (3: Pulumi 3.x; 4: the same with `features`). */
const KNOWN_VERSIONS = [3, 4];
/** The key under which the dynamic provider host keeps its serialized provider. */
const SERIALIZED_PROVIDER = "__provider";
/** Type of the dynamic providers' default provider. */
const DYNAMIC_PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
/** Type of the native plugin's provider. */
const NATIVE_PROVIDER_TYPE = `pulumi:providers:${PULUMI_MODULE}`;
/** Config keys of the provider settings as the dynamic default provider records them, e.g. `analytics:apiKey`. */
const SETTING_PREFIX = `${PULUMI_MODULE}:`;
/** The dynamic type tokens' common prefix, to tell an unknown analytics kind from another package's dynamic resource. */
const DYNAMIC_ANALYTICS_PREFIX = `pulumi-nodejs:dynamic/${PULUMI_MODULE}:`;

/** A URN's parts: `urn:pulumi:<stack>::<project>::<type path, $-joined>::<name>` (the name may itself hold `::`). */
interface UrnParts {
  prefix: string;
  types: string[];
  name: string;
}

function parseUrn(urn: string): UrnParts | undefined {
  const parts = urn.split("::");
  if (parts.length < 4 || !parts[0]!.startsWith("urn:pulumi:")) return undefined;
  return { prefix: `${parts[0]}::${parts[1]}`, types: parts[2]!.split("$"), name: parts.slice(3).join("::") };
}

const formatUrn = ({ prefix, types, name }: UrnParts): string => `${prefix}::${types.join("$")}::${name}`;

/** A provider reference, `<provider urn>::<id>`. */
function parseProviderRef(ref: string): { urn: string; id: string } | undefined {
  const at = ref.lastIndexOf("::");
  return at <= 0 ? undefined : { urn: ref.slice(0, at), id: ref.slice(at + 2) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether a value is a secret the export shows in plain text (`--show-secrets`), without looking at the value. */
const isPlaintextSecret = (value: unknown): boolean => isRecord(value) && "4dabf18193072939515e22adb298388d" in value && "plaintext" in value;

/** The kind whose dynamic type token is `token`; refuses an analytics token of no known kind. */
function dynamicKind(token: string, specs: readonly KindSpec[]): KindSpec | undefined {
  const spec = specs.find((candidate) => dynamicTypeToken(candidate) === token);
  if (spec === undefined && token.startsWith(DYNAMIC_ANALYTICS_PREFIX)) {
    throw new MigrationRefusedError(
      `The export has a resource of type ${token}, which this release does not know: install the release that created it, then migrate.`,
    );
  }
  return spec;
}

/** Checks the export's outer shape; returns its resources. */
function resourcesOf(input: unknown): ResourceJson[] {
  if (!isRecord(input) || !isRecord(input.deployment) || typeof input.version !== "number") {
    throw new MigrationRefusedError(
      "The input is not a stack export: expected the JSON `pulumi stack export` writes ({ version, deployment: { resources } }).",
    );
  }
  if (!KNOWN_VERSIONS.includes(input.version)) {
    throw new MigrationRefusedError(
      `The export is of deployment version ${input.version}; this tool knows versions ${KNOWN_VERSIONS.join(" and ")}. Export with a Pulumi 3.x CLI.`,
    );
  }
  const resources = input.deployment.resources ?? [];
  if (!Array.isArray(resources)) throw new MigrationRefusedError("The export's deployment.resources is not a list.");
  resources.forEach((resource, index) => {
    if (!isRecord(resource) || typeof resource.urn !== "string" || typeof resource.type !== "string" || parseUrn(resource.urn) === undefined) {
      throw new MigrationRefusedError(`Resource #${index} of the export has no valid urn and type.`);
    }
  });
  const pending = input.deployment.pending_operations;
  if (Array.isArray(pending) && pending.length > 0) {
    throw new MigrationRefusedError(
      `The stack has ${pending.length} pending operation(s) from an interrupted update: run \`pulumi refresh\` (or \`pulumi cancel\`) and resolve them, then export again.`,
    );
  }
  return resources as ResourceJson[];
}

/** Which resources move, and the URN each changed URN takes (children of a moved resource too). */
function planRenames(resources: ResourceJson[], specs: readonly KindSpec[]): { targets: ResourceJson[]; renamed: Map<string, string> } {
  const targets = resources.filter((resource) => dynamicKind(resource.type, specs) !== undefined);
  if (targets.length === 0) {
    const native = resources.some((resource) => specs.some((spec) => nativeTypeToken(spec) === resource.type));
    throw new MigrationRefusedError(
      native
        ? "The export has no resource of the dynamic classes: the stack is already on the native provider."
        : "The export has no analytics resource of the dynamic classes: nothing to migrate.",
    );
  }
  const renamed = new Map<string, string>();
  for (const resource of resources) {
    const parts = parseUrn(resource.urn)!;
    const types = parts.types.map((type) => {
      const spec = dynamicKind(type, specs);
      return spec === undefined ? type : nativeTypeToken(spec);
    });
    if (types.some((type, i) => type !== parts.types[i])) renamed.set(resource.urn, formatUrn({ ...parts, types }));
  }
  const existing = new Set(resources.map((resource) => resource.urn));
  for (const [from, to] of renamed) {
    if (existing.has(to) && !renamed.has(to)) throw new MigrationRefusedError(`Cannot move ${from}: the stack already has a resource ${to}.`);
  }
  return { targets, renamed };
}

/** The dynamic default provider(s) the moved resources use, by provider reference; refuses any other provider. */
function dynamicProvidersOf(targets: ResourceJson[], resources: ResourceJson[]): Map<string, ResourceJson> {
  const providers = new Map<string, ResourceJson>();
  for (const resource of targets) {
    const ref = typeof resource.provider === "string" ? parseProviderRef(resource.provider) : undefined;
    const provider = ref && resources.find((candidate) => candidate.urn === ref.urn && candidate.id === ref.id);
    if (!ref || !provider) throw new MigrationRefusedError(`${resource.urn} has no provider the export holds; export the stack again with the same CLI.`);
    if (provider.type !== DYNAMIC_PROVIDER_TYPE || parseUrn(provider.urn)?.name !== "default") {
      throw new MigrationRefusedError(
        `${resource.urn} uses the provider ${ref.urn}, not the dynamic default provider: this tool moves only resources of the dynamic classes.`,
      );
    }
    providers.set(resource.provider!, provider);
  }
  return providers;
}

/** A dynamic default provider's analytics settings, `[name, value]`, values untouched. */
const settingsOf = (provider: ResourceJson): Array<[string, unknown]> =>
  Object.entries(provider.inputs ?? {})
    .filter(([key]) => key.startsWith(SETTING_PREFIX))
    .map(([key, value]) => [key.slice(SETTING_PREFIX.length), value]);

/** The settings all old providers share; refuses providers whose settings differ. */
function sharedSettings(oldProviders: Map<string, ResourceJson>, warnings: string[]): Array<[string, unknown]> {
  const [firstOld, ...otherOlds] = [...oldProviders.values()];
  const settings = settingsOf(firstOld!);
  for (const other of otherOlds) {
    if (JSON.stringify(settingsOf(other)) !== JSON.stringify(settings)) {
      throw new MigrationRefusedError(
        `The moved resources use dynamic default providers with different analytics settings (${firstOld!.urn}, ${other.urn}); migrate from one of them only.`,
      );
    }
  }
  if (settings.some(([, value]) => isPlaintextSecret(value)))
    warnings.push("The export holds secrets in plain text (exported with --show-secrets); they are kept as they are and the import encrypts them again.");
  return settings;
}

/** The native default provider the moved resources will use: the one the export holds, or a new one. */
interface NativeProvider {
  resource: ResourceJson;
  urn: string;
  id: string;
  ref: string;
  /** Whether the export already held it. */
  present: boolean;
}

function nativeProvider(
  resources: ResourceJson[],
  targets: ResourceJson[],
  settings: Array<[string, unknown]>,
  firstOld: ResourceJson,
  options: MigrationOptions,
): NativeProvider {
  const version = options.providerVersion;
  const providerName = version === undefined ? "default" : `default_${version.replace(/[.\-+]/g, "_")}`;
  const urn = `${parseUrn(targets[0]!.urn)!.prefix}::${NATIVE_PROVIDER_TYPE}::${providerName}`;
  const present = resources.find((resource) => resource.urn === urn && resource.delete !== true);
  if (present !== undefined && present.type !== NATIVE_PROVIDER_TYPE) throw new MigrationRefusedError(`${urn} is in the export with the type ${present.type}.`);
  const id = present?.id ?? options.providerId ?? randomUUID();
  const inputs: Record<string, unknown> = Object.fromEntries(settings);
  if (version !== undefined) inputs.version = version;
  const resource: ResourceJson = present ?? {
    urn,
    custom: true,
    id,
    type: NATIVE_PROVIDER_TYPE,
    inputs,
    outputs: { ...inputs },
    ...(firstOld.created === undefined ? {} : { created: firstOld.created, modified: firstOld.modified }),
  };
  return { resource, urn, id, ref: `${urn}::${id}`, present: present !== undefined };
}

/** Replaces every string equal to a changed URN, counting each replacement. */
class UrnRewriter {
  count = 0;
  constructor(private readonly renamed: Map<string, string>) {}

  rewrite(value: unknown): unknown {
    if (typeof value === "string") {
      const exact = this.renamed.get(value);
      if (exact === undefined) return value;
      this.count++;
      return exact;
    }
    if (Array.isArray(value)) return value.map((item) => this.rewrite(item));
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, this.rewrite(inner)]));
    return value;
  }
}

/** One moved resource under its native type and provider, `__provider` dropped. */
function movedResource(resource: ResourceJson, next: ResourceJson, spec: KindSpec, providerRef: string): void {
  next.type = nativeTypeToken(spec);
  next.provider = providerRef;
  if (resource.inputs) next.inputs = withoutSerializedProvider(resource.inputs);
  if (resource.outputs) next.outputs = withoutSerializedProvider(resource.outputs);
  if (isRecord(next.propertyDependencies)) next.propertyDependencies = withoutSerializedProvider(next.propertyDependencies);
}

/**
 * Every resource rewritten: a changed URN, or a reference to one, in every field but the inputs and
 * outputs (parent, dependencies, propertyDependencies, deletedWith, aliases…); moved resources take
 * their native type and the native provider, which goes right before the first of them (a state
 * lists providers before their users).
 */
function rewriteResources(
  resources: ResourceJson[],
  targets: ResourceJson[],
  renamed: Map<string, string>,
  provider: NativeProvider,
  specs: readonly KindSpec[],
) {
  const rewriter = new UrnRewriter(renamed);
  const moved: MovedResource[] = [];
  const out: ResourceJson[] = [];
  for (const resource of resources) {
    const next: ResourceJson = { ...resource };
    for (const [key, value] of Object.entries(resource)) {
      if (key !== "urn" && key !== "inputs" && key !== "outputs") next[key] = rewriter.rewrite(value);
    }
    next.urn = renamed.get(resource.urn) ?? resource.urn;
    if (targets.includes(resource)) {
      const spec = dynamicKind(resource.type, specs)!;
      movedResource(resource, next, spec, provider.ref);
      moved.push({ typeName: spec.typeName, id: resource.id ?? "", from: resource.urn, to: next.urn });
      if (!provider.present && !out.includes(provider.resource)) out.push(provider.resource);
    }
    out.push(next);
  }
  return { out, moved, referencesRewritten: rewriter.count };
}

/** Drops each dynamic default provider nothing refers to any more (the engine would delete it, a change in preview); returns their URNs. */
function dropUnusedProviders(out: ResourceJson[], oldProviders: Map<string, ResourceJson>): string[] {
  const removed: string[] = [];
  for (const [ref, old] of oldProviders) {
    const itself = (resource: ResourceJson): boolean => resource.urn === old.urn && resource.id === old.id;
    const mentions = JSON.stringify(out.filter((resource) => !itself(resource)).map(({ inputs: _i, outputs: _o, ...rest }) => rest));
    if (!mentions.includes(JSON.stringify(ref).slice(1, -1)) && !mentions.includes(`"${old.urn}"`)) {
      out.splice(out.findIndex(itself), 1);
      removed.push(old.urn);
    }
  }
  return removed;
}

/** Warnings about what the rewrite leaves for the next `pulumi up` or `pulumi refresh`. */
function leftoverWarnings(out: ResourceJson[], moved: MovedResource[], renamed: Map<string, string>): string[] {
  const warnings: string[] = [];
  if (moved.some((entry) => entry.id === ""))
    warnings.push("A moved resource has no id (an unfinished create); check it with `pulumi refresh` after the import.");
  const stale = out.filter((resource) =>
    JSON.stringify([resource.inputs, resource.outputs])
      .split('"')
      .some((text) => renamed.has(text)),
  );
  for (const resource of stale)
    warnings.push(`${resource.urn} holds a moved resource's old URN in its inputs or outputs (a program value); the next \`pulumi up\` records the new one.`);
  return warnings;
}

/**
 * Rewrites an export so every `Organization` and `DataSource` of the dynamic classes becomes the
 * native provider's resource, with the same id, inputs and outputs (less the serialized
 * `__provider`), under the native type and URN, owned by the native default provider (added, with
 * the settings the dynamic default provider recorded from the stack's `analytics:` config, their
 * ciphertext untouched). Every reference to a changed URN is rewritten; the dynamic default
 * provider is dropped once nothing refers to it. Refuses (throws {@link MigrationRefusedError})
 * what it cannot rewrite safely. The input is not modified.
 */
export function migrateDynamicToNative(input: unknown, options: MigrationOptions = {}): MigrationResult {
  const resources = resourcesOf(input);
  const exported = input as StackExportJson;
  const specs = allKindSpecs();
  const warnings: string[] = [];
  const { targets, renamed } = planRenames(resources, specs);
  const oldProviders = dynamicProvidersOf(targets, resources);
  const settings = sharedSettings(oldProviders, warnings);
  const provider = nativeProvider(resources, targets, settings, [...oldProviders.values()][0]!, options);
  const { out, moved, referencesRewritten } = rewriteResources(resources, targets, renamed, provider, specs);
  const removedProviders = dropUnusedProviders(out, oldProviders);
  warnings.push(...leftoverWarnings(out, moved, renamed));
  const renamedChildren = [...renamed].filter(([from]) => !moved.some((entry) => entry.from === from)).map(([from, to]) => ({ from, to }));
  return {
    exported: { ...exported, deployment: { ...exported.deployment, resources: out } },
    summary: {
      moved,
      renamedChildren,
      provider: { urn: provider.urn, id: provider.id, added: !provider.present, settings: settings.map(([key]) => key) },
      removedProviders,
      referencesRewritten,
      warnings,
    },
  };
}

function withoutSerializedProvider<T extends Record<string, unknown>>(values: T): T {
  const { [SERIALIZED_PROVIDER]: _dropped, ...rest } = values;
  return rest as T;
}

/** The summary for people: URNs, ids and setting names only, never a value. */
export function formatSummary(summary: MigrationSummary): string {
  const lines = [`Moved ${summary.moved.length} resource(s) to the native provider (same ids, nothing created or deleted in the service):`];
  for (const entry of summary.moved) lines.push(`  ${entry.typeName} ${entry.id}: ${entry.from} -> ${entry.to}`);
  for (const entry of summary.renamedChildren) lines.push(`  child: ${entry.from} -> ${entry.to}`);
  const settings = summary.provider.settings.length === 0 ? "no settings" : `settings ${summary.provider.settings.join(", ")} copied encrypted`;
  lines.push(`${summary.provider.added ? "Added" : "Reused"} the default provider ${summary.provider.urn} (id ${summary.provider.id}; ${settings}).`);
  for (const urn of summary.removedProviders) lines.push(`Removed the dynamic default provider ${urn}: nothing refers to it any more.`);
  lines.push(`Rewrote ${summary.referencesRewritten} reference(s) to a changed URN.`);
  for (const warning of summary.warnings) lines.push(`warning: ${warning}`);
  return `${lines.join("\n")}\n`;
}
