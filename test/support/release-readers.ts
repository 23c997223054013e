/**
 * Which test files read the release folder (test/support/release-folder.ts), directly or through
 * the project modules they import: pure file reading, for test/support/release-last-sequencer.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { importSpecifiers } from "./import-graph";

/** The module every reader of the release folder imports, directly or not. */
export const RELEASE_FOLDER_MODULE = path.join(__dirname, "release-folder.ts");

/** The file a relative specifier names (`./x`, `../x.js`, `./x/index`), or undefined when it is not a project source. */
function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), path.join(base, "index.ts")];
  return candidates.find((file) => /\.(ts|js)$/.test(file) && fs.existsSync(file) && fs.statSync(file).isFile());
}

/**
 * Whether `file` imports `target`, directly or through the project files it imports (test/,
 * src/, tools/, …; packages are not followed). `seen` holds each file's answer, so a graph is
 * read once however many files share it.
 */
export function importsTransitively(file: string, target: string, seen = new Map<string, boolean>()): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false); // a cycle back to `file` adds nothing
  const imported = importSpecifiers(fs.readFileSync(file, "utf8"), file)
    .map((specifier) => resolveRelative(file, specifier))
    .filter((resolved): resolved is string => resolved !== undefined);
  const answer = imported.some((next) => next === target || importsTransitively(next, target, seen));
  seen.set(file, answer);
  return answer;
}

/** `files` split into the readers of the release folder and the others, each group in the order given. */
export function releaseReaders<T>(files: readonly T[], moduleId: (file: T) => string, target = RELEASE_FOLDER_MODULE): { others: T[]; readers: T[] } {
  const seen = new Map<string, boolean>();
  const readers = files.filter((file) => importsTransitively(moduleId(file), target, seen));
  return { others: files.filter((file) => !readers.includes(file)), readers };
}
