/**
 * The functions of a source longer than a screen, for test/function-length.test.ts. Pure (source
 * in, findings out) so a table test can prove the check can fail. Read from the TypeScript syntax
 * tree: every function, method, constructor, accessor and arrow function counts, nested ones on
 * their own too.
 */
import ts from "typescript";

/** A function must be shorter than this, in lines from its first to its last (what fits on a screen). */
export const FUNCTION_LINE_LIMIT = 80;

/** A function at or over the limit. */
export interface LongFunction {
  /** Its name, or `<anonymous>` with the line it starts on. */
  name: string;
  /** 1-based line it starts on. */
  line: number;
  /** Lines from its first to its last. */
  lines: number;
}

const isFunctionLike = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

/** The name a reader would look for: the declaration's own, or the variable or property it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name !== undefined && ts.isIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return "<anonymous>";
}

/** Every function of `source` of `limit` lines or more. */
export function longFunctions(source: string, fileName = "module.ts", limit = FUNCTION_LINE_LIMIT): LongFunction[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines >= limit) found.push({ name: nameOf(node), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
