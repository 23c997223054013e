/**
 * The dynamic providers' entry point, `pulumi-analytics/dynamic-provider`: the serialized
 * `__provider` of every stack, 0.1.0's included, loads this module by name (older text also by
 * its path, `dist/resources/provider-impl`) and calls `dispatch`. Its name, path and signature
 * never change (docs/maintainers/upgrades.md); what each method does is the provider core's (src/provider-core).
 */
import { check, create, diff, remove } from "../provider-core/operations";
import { asDynamicInitFailure, recordedOutputs } from "../provider-core/partial-create";
import { settingsFromConfig, type ProviderSettings } from "../provider-core/settings";
import type { ResourceKind } from "../kinds";

/** Settings holder shared by one provider object's methods in the provider process. */
export interface ProviderState {
  /** Filled by `configure`. */
  settings: ProviderSettings;
}

/** Entry point of the serialized providers: routes a provider method to the provider core, notices to stderr. */
export async function dispatch(kind: ResourceKind, method: string, state: ProviderState, args: unknown[]): Promise<unknown> {
  switch (method) {
    case "configure":
      state.settings = settingsFromConfig((args[0] as { config: { get(key: string): string | undefined } }).config);
      return undefined;
    case "check":
      return check(kind, args[1] as Record<string, unknown>);
    case "diff":
      return diff(kind, args[0] as string, args[1] as Record<string, unknown>, args[2] as Record<string, unknown>);
    case "create": {
      // A create whose object exists but whose outputs could not all be recorded rejects with its
      // id and outputs, so the engine keeps it in the state (see src/provider-core/partial-create.ts).
      const inputs = args[0] as Record<string, unknown>;
      return create(kind, inputs, state.settings).catch((error: unknown) => {
        throw asDynamicInitFailure(error, inputs);
      });
    }
    case "update":
      // Asked only after a partial create (every declared change is a replace): nothing to send.
      return { outs: recordedOutputs(args[1] as Record<string, unknown>) };
    case "delete":
      return remove(kind, args[0] as string, args[1] as Record<string, unknown>);
    default:
      throw new Error(`The analytics provider has no method ${method}.`);
  }
}
