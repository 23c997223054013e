/**
 * What installing the package costs a user, measured as docs/packaging.md reports it: the
 * tarball's packed and unpacked bytes, and what `npm install <tarball>` adds to a fresh app that
 * already depends on its own `@pulumi/pulumi` (packages, and disk bytes of node_modules as
 * `du -sB1` counts them); and the figures that page documents, read back from its table.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { npm, type PackedTarball } from "./packed-app";

/** The figures of one package state, as the "now" column of docs/packaging.md's size table holds them. */
export interface InstallFigures {
  /** Bytes of the .tgz. */
  packedBytes: number;
  /** Bytes of the tarball's files, unpacked. */
  unpackedBytes: number;
  /** Packages the install adds to the app's node_modules (pulumi-analytics itself included). */
  packagesAdded: number;
  /** Disk bytes the install adds to the app's node_modules. */
  diskBytesAdded: number;
}

/** The size table's row labels, one per figure: the docs and this measurement share them. */
export const FIGURE_ROWS: Record<keyof InstallFigures, string> = {
  packedBytes: "Tarball, packed (bytes)",
  unpackedBytes: "Tarball, unpacked (bytes)",
  packagesAdded: "Packages added to the app",
  diskBytesAdded: "Disk bytes added to the app's node_modules",
};

/** Every package folder under `modules` (scoped and nested ones included). */
export function packageCount(modules: string): number {
  if (!fs.existsSync(modules)) return 0;
  let count = 0;
  for (const entry of fs.readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const names = entry.name.startsWith("@") ? fs.readdirSync(path.join(modules, entry.name)).map((n) => path.join(entry.name, n)) : [entry.name];
    for (const name of names) {
      const dir = path.join(modules, name);
      if (fs.existsSync(path.join(dir, "package.json"))) count += 1 + packageCount(path.join(dir, "node_modules"));
    }
  }
  return count;
}

/** Disk bytes of `dir` as `du -sB1` counts them (allocated blocks, each hard link once). */
export function diskBytes(dir: string): number {
  return Number(execFileSync("du", ["-sB1", dir], { encoding: "utf8" }).split("\t")[0]);
}

/** Installs `dependencies` into a new app folder `dir` from the test cache and returns its node_modules. */
async function installInto(dir: string, dependencies: Record<string, string>): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: path.basename(dir), private: true, dependencies }, null, 2)}\n`);
  await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  return path.join(dir, "node_modules");
}

/** Measures `tarball` as docs/packaging.md reports it: two fresh apps under `work` on `@pulumi/pulumi` `sdk`, one without the package and one with it. */
export async function measureInstall(work: string, tarball: PackedTarball, sdk: string): Promise<InstallFigures> {
  const without = await installInto(path.join(work, "size-sdk-only"), { "@pulumi/pulumi": sdk });
  const withPackage = await installInto(path.join(work, "size-with-package"), { "@pulumi/pulumi": sdk, "pulumi-analytics": `file:${tarball.file}` });
  return {
    packedBytes: tarball.size,
    unpackedBytes: tarball.unpackedSize,
    packagesAdded: packageCount(withPackage) - packageCount(without),
    diskBytesAdded: diskBytes(withPackage) - diskBytes(without),
  };
}

/** The "now" column (the last) of docs/packaging.md's size table, by {@link FIGURE_ROWS}; throws naming a row it cannot find. */
export function documentedFigures(markdown: string): InstallFigures {
  const figure = (label: string): number => {
    const row = markdown.split("\n").find((line) => line.startsWith(`| ${label} |`));
    const cells = row
      ?.split("|")
      .map((cell) => cell.trim())
      .filter((cell) => cell !== "");
    const value = Number(cells?.at(-1)?.replace(/[+,]/g, ""));
    if (!Number.isFinite(value)) throw new Error(`docs/packaging.md has no figure for "${label}" in its size table`);
    return value;
  };
  return Object.fromEntries(Object.entries(FIGURE_ROWS).map(([key, label]) => [key, figure(label)])) as unknown as InstallFigures;
}
