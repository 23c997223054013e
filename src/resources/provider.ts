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
 * relative path and a small settings holder: the implementation, the HTTP client and the API key
 * are loaded inside the provider process, never serialized by this code (stack config, where
 * `analytics:apiKey` may live, is recorded by Pulumi itself, encrypted). Every method goes through one
 * dispatcher to keep the serialized text small (function bodies are serialized verbatim, so they
 * hold no comments). When the package cannot be resolved by name from the program's directory,
 * the implementation loads by its relative path; a genuine load error surfaces again from there. There is no `read`: the API cannot read objects,
 * so refresh keeps the state as it is.
 */
function makeProvider(kind: ResourceKind, fallback: string): pulumi.dynamic.ResourceProvider {
  const state = { settings: {} };
  const run = (method: string, args: unknown[]): Promise<never> => {
    let impl: typeof import("./provider-impl");
    try {
      impl = require("pulumi-analytics/dynamic-provider");
    } catch {
      impl = require(require("node:path").resolve(fallback));
    }
    return impl.dispatch(kind, method, state, args) as Promise<never>;
  };
  return {
    configure: (...args) => run("configure", args),
    check: (...args) => run("check", args),
    diff: (...args) => run("diff", args),
    create: (...args) => run("create", args),
    delete: (...args) => run("delete", args),
  };
}

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/** The one provider object for every resource of `kind` (serialized once per run). */
export function providerFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(kind);
  if (provider === undefined) providers.set(kind, (provider = makeProvider(kind, IMPLEMENTATION_FALLBACK)));
  return provider;
}
