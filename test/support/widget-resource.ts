/**
 * The throwaway third kind's resource class, as src/resources/widget.ts would declare it
 * (CONTRIBUTING's "Add a kind" shows it as its third step). Load it only once the kind is
 * registered in `KINDS`, as test/third-kind.test.ts does: the class looks its spec up there.
 */
import type * as pulumi from "@pulumi/pulumi";
import { dynamicTypeToken } from "../../src/kinds";
import { KindResource, hasTypeToken, type ResourceArgs, type ResourceOutputs } from "../../src/resources/kind-resource";
import { widgetSpec } from "./widget-kind";

/** Arguments of a {@link Widget}. */
export type WidgetArgs = ResourceArgs<typeof widgetSpec>;

/** The outputs of a {@link Widget}: the API's answer, each documented by the kind's spec. */
export interface Widget extends ResourceOutputs<typeof widgetSpec> {}

/**
 * A widget of an organization in the analytics service. The API can only create: a change
 * replaces it, and destroy leaves it in the service (the CLI says so).
 */
export class Widget extends KindResource {
  /** Type token the engine records for this dynamic resource; policy packs match on it. */
  static readonly __pulumiType = dynamicTypeToken(widgetSpec);

  /** Whether `obj` is a Widget (also across copies of this package), by its type token. */
  static override isInstance(obj: unknown): obj is Widget {
    return hasTypeToken(obj, Widget.__pulumiType);
  }

  constructor(name: string, args: WidgetArgs, opts?: pulumi.CustomResourceOptions) {
    // @ts-expect-error src/kinds/index.ts does not register the widget kind: the test does, at run time.
    super("widget", name, args, opts);
  }
}
