/** Marker in a route's methods meaning every method is handled. */
export const ANY_METHOD = "*";

/** A path pattern with `{name}` parameters (a kind's `endpoint.pattern`, say) and the methods it serves. */
export interface RouteDefinition<Id extends string> {
  /** Stable name used by handlers, fault settings and the request log. */
  id: Id;
  /** Literal segments and `{param}` segments, matched segment by segment. */
  pattern: string;
  /** Methods served, or [{@link ANY_METHOD}]. */
  methods: readonly string[];
}

/** Result of {@link Router.match}. */
export type RouteMatch<Id extends string> =
  | { kind: "found"; route: RouteDefinition<Id>; params: ReadonlyMap<string, string> }
  | { kind: "method-not-allowed"; route: RouteDefinition<Id>; allow: readonly string[] }
  | { kind: "not-found" };

type Segment = { literal: string } | { param: string };

interface CompiledRoute<Id extends string> {
  definition: RouteDefinition<Id>;
  segments: Segment[];
}

function compile(pattern: string): Segment[] {
  return pattern
    .split("/")
    .slice(1)
    .map((part) => (/^\{\w+\}$/.test(part) ? { param: part.slice(1, -1) } : { literal: part }));
}

/**
 * Exact, segment-wise path matching: no trailing-slash or case folding, so each resource has
 * one address. Path parameters are percent-decoded; undecodable ones do not match.
 */
export class Router<Id extends string> {
  private readonly routes: CompiledRoute<Id>[];

  constructor(routes: readonly RouteDefinition<Id>[]) {
    this.routes = routes.map((definition) => ({ definition, segments: compile(definition.pattern) }));
  }

  /** Finds the route for `pathname` (no query string) and checks `method` against it. */
  match(method: string, pathname: string): RouteMatch<Id> {
    if (!pathname.startsWith("/")) return { kind: "not-found" };
    const parts = pathname.split("/").slice(1);
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (params === undefined) continue;
      const { methods } = route.definition;
      if (methods.includes(ANY_METHOD) || methods.includes(method)) return { kind: "found", route: route.definition, params };
      return { kind: "method-not-allowed", route: route.definition, allow: methods };
    }
    return { kind: "not-found" };
  }
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Map<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params = new Map<string, string>();
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined;
      continue;
    }
    if (part === "") return undefined;
    try {
      params.set(segment.param, decodeURIComponent(part));
    } catch {
      return undefined;
    }
  }
  return params;
}
