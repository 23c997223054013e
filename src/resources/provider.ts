import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "./inputs";

/**
 * Where provider-impl lives relative to the program's directory: the fallback for programs that
 * cannot resolve `pulumi-analytics` by name (this repository's own demo stack). Relative, so the
 * state stays valid on another machine with the same project layout.
 */
const IMPLEMENTATION_FALLBACK = path.relative(process.cwd(), path.join(__dirname, "provider-impl"));

/**
 * Builds the object Pulumi serializes into state as `__provider`. It captures only the kind, a
 * relative path and a small mutable settings holder: the implementation, the HTTP client and the
 * API key are loaded inside the provider process, never serialized.
 */
function makeProvider(kind: ResourceKind, fallback: string): pulumi.dynamic.ResourceProvider {
  const state: { settings: Record<string, string> } = { settings: {} };
  const load = (): typeof import("./provider-impl") => {
    try {
      return require("pulumi-analytics/dynamic-provider");
    } catch (error) {
      if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
      return require(require("node:path").resolve(fallback));
    }
  };
  return {
    async configure(req) {
      state.settings = load().settingsFromConfig(req.config) as Record<string, string>;
    },
    async check(_olds, news) {
      return load().check(kind, news);
    },
    async diff(_id, olds, news) {
      return load().diff(kind, olds, news);
    },
    async create(inputs) {
      return load().create(kind, inputs, state.settings);
    },
    async read(id, props) {
      return load().read(kind, id, props);
    },
    async delete(id, props) {
      load().remove(kind, id, props);
    },
  };
}

/** The one provider object for every Organization (serialized once per run). */
export const organizationProvider = makeProvider("organization", IMPLEMENTATION_FALLBACK);

/** The one provider object for every DataSource (serialized once per run). */
export const dataSourceProvider = makeProvider("dataSource", IMPLEMENTATION_FALLBACK);
