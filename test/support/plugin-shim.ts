/**
 * The native plugin as Pulumi.yaml `plugins: providers: path` finds it: a shim running this
 * repository's build; and the settings every example program of the native provider reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { configSetAllArgs } from "./pulumi-workspace";

const PLUGIN_BIN = path.resolve(__dirname, "..", "..", "dist", "native", "bin.js");

/** Writes an executable `pulumi-resource-analytics` into `dir` (created if missing) and returns `dir`. */
export function writePluginShim(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "pulumi-resource-analytics"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN_BIN}" "$@"\n`, { mode: 0o755 });
  return dir;
}

/** Writes the shim into `<programDir>/plugin-bin` and points the project's Pulumi.yaml at it. */
export function usePluginShim(programDir: string): void {
  writePluginShim(path.join(programDir, "plugin-bin"));
  fs.appendFileSync(path.join(programDir, "Pulumi.yaml"), "plugins:\n  providers:\n    - name: analytics\n      path: ./plugin-bin\n");
}

/** Runs `pulumi` in a project; what {@link configureExample} needs of a workspace. */
interface ConfigurableProject {
  pulumi(args: string[]): Promise<unknown>;
}

/** The stack config the example programs read, in one `config set-all`: the provider's endpoint and key (secret), and the database's host, user and password (secret). */
export async function configureExample(project: ConfigurableProject, settings: { baseUrl: string; apiKey: string; dbPassword: string }): Promise<void> {
  await project.pulumi(
    configSetAllArgs(
      { "analytics:baseUrl": settings.baseUrl, dbHost: "db.example.com", dbUser: "reader" },
      { "analytics:apiKey": settings.apiKey, dbPassword: settings.dbPassword },
    ),
  );
}
