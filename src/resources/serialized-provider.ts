import type * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "../kinds";

/**
 * Builds the object Pulumi serializes into state as `__provider`. It captures only the kind and a
 * small settings holder: the implementation, the HTTP client and the API key are loaded inside
 * the provider process, by the package's name from the program's directory, never serialized by
 * this code (stack config, where `analytics:apiKey` may live, is recorded by Pulumi itself,
 * encrypted), and nothing derived from the machine or the program's directory is either. Every
 * method goes through one dispatcher to keep the serialized text small (function bodies are
 * serialized verbatim, so they hold no comments). There is no `read`: the API cannot read
 * objects, so refresh keeps the state as it is.
 */
function makeProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const state = { settings: {} };
  const run = (method: string, args: unknown[]): Promise<never> => {
    const impl: typeof import("./provider-impl") = require("pulumi-analytics/dynamic-provider");
    return impl.dispatch(kind, method, state, args) as Promise<never>;
  };
  return {
    configure: (...args) => run("configure", args),
    check: (...args) => run("check", args),
    diff: (...args) => run("diff", args),
    create: (...args) => run("create", args),
    update: (...args) => run("update", args),
    delete: (...args) => run("delete", args),
  };
}

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/** The one provider object for every resource of `kind` (serialized once per run). */
export function providerFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(kind);
  if (provider === undefined) providers.set(kind, (provider = makeProvider(kind)));
  return provider;
}
