/**
 * The project's module graph, for test/imports.test.ts: which file imports which, its cycles, and
 * the edges that break a layering. Pure (sources in, findings out) so a table test can feed it a
 * tiny fake project and prove each check can fail.
 *
 * Specifiers are read from the TypeScript syntax tree, not with a regular expression: comments,
 * strings and regex literals cannot fake or hide an import.
 */
import * as path from "node:path";
import ts from "typescript";

/** File (a posix path, e.g. `src/kinds/index.ts`) → the project files it imports, in source order. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Every module specifier a source names: `import` (`import type` too: it still couples the two
 * modules), `export … from`, `import x = require()`, `require()`, `import()` and `typeof import()`.
 */
export function importSpecifiers(source: string, fileName = "module.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined): void => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) literal(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) literal(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The project file a relative specifier names (`./x` as `x.ts` or `x/index.ts`); undefined when none, or when the specifier is a package. */
export function resolveImport(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => files.has(candidate));
}

/** The graph of `sources` (file → text), and the relative specifiers that name no file among them. */
export function buildImportGraph(sources: ReadonlyMap<string, string>): { graph: ImportGraph; unresolved: string[] } {
  const files = new Set(sources.keys());
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const [file, text] of sources) {
    const targets: string[] = [];
    for (const specifier of importSpecifiers(text, file)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveImport(file, specifier, files);
      if (target === undefined) unresolved.push(`${file}: "${specifier}"`);
      else if (!targets.includes(target)) targets.push(target);
    }
    graph.set(file, targets);
  }
  return { graph, unresolved };
}

/**
 * One cycle per strongly connected component that has one (Tarjan's algorithm), each written
 * as the path walked and closed on its first file: `[a, b, a]`. Sorted, so the output is stable.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  const cycles: string[][] = [];
  for (const component of components) {
    const start = [...component].sort()[0]!;
    if (component.length === 1 && !(graph.get(start) ?? []).includes(start)) continue;
    cycles.push(shortestCycle(graph, start, new Set(component)));
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest way from `start` back to itself inside `within` (breadth first), as `[start, …, start]`. */
function shortestCycle(graph: ImportGraph, start: string, within: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of graph.get(node) ?? []) {
      if (!within.has(next)) continue;
      if (next === start) {
        const walk: string[] = [];
        for (let at = node; at !== start; at = cameFrom.get(at)!) walk.unshift(at);
        return [start, ...walk, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  throw new Error(`${start} is on no cycle`);
}

/** A cycle as a test failure prints it: `a.ts → b.ts → a.ts`. */
export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(" → ");
}

/** An import that breaks a rule: who imports whom. */
export interface Violation {
  /** The importing file. */
  from: string;
  /** The imported file. */
  to: string;
}

/**
 * Imports that point backwards through ordered rooms: `roomOf` ranks a file (undefined: the file is
 * in no room and is not checked), and a file may import only files of its own rank or lower.
 */
export function backArrows(graph: ImportGraph, roomOf: (file: string) => number | undefined): Violation[] {
  const found: Violation[] = [];
  for (const [from, targets] of graph) {
    const own = roomOf(from);
    if (own === undefined) continue;
    for (const to of targets) {
      const theirs = roomOf(to);
      if (theirs !== undefined && theirs > own) found.push({ from, to });
    }
  }
  return found;
}

/** Imports of files matching `from` that name a file `allowed` rejects. */
export function forbiddenImports(graph: ImportGraph, from: (file: string) => boolean, allowed: (target: string) => boolean): Violation[] {
  const found: Violation[] = [];
  for (const [file, targets] of graph) {
    if (!from(file)) continue;
    for (const to of targets) if (!allowed(to)) found.push({ from: file, to });
  }
  return found;
}
