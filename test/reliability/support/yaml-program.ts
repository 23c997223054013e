/**
 * Pulumi YAML programs of one organization and `count` data sources on the native plugin, which
 * Pulumi.yaml finds at `./plugin-bin` (see writePluginShim): the `many` fixture's twin
 * (test/fixtures/many: "Reliability Org", data sources `warehouse-<i>` named "Warehouse <i>"),
 * and the plugin-process runs' programs.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The project config key of the data sources' password (the `many` fixture's `fixture:password`). */
export const YAML_PASSWORD_KEY = "password";

/** What a program is called and how it names its resources. */
export interface YamlProgram {
  /** The project name. */
  project: string;
  /** The organization's name (its resource is `org`). */
  orgName: string;
  /** Number of data sources. */
  count: number;
  /** Data source `i` is the resource `<resourcePrefix><i>`, named `<displayPrefix> <i>` in the service. */
  resourcePrefix: string;
  displayPrefix: string;
}

/** One data source of the program, as the `many` fixture declares it. */
function dataSource(program: YamlProgram, i: number): string[] {
  return [
    `  ${program.resourcePrefix}${i}:`,
    "    type: analytics:DataSource",
    "    properties:",
    "      orgId: ${org.id}",
    "      type: direct",
    "      dialect: POSTGRES",
    `      displayName: ${program.displayPrefix} ${i}`,
    "      host: 127.0.0.1",
    "      port: 5432",
    "      databaseName: postgres",
    "      username: postgres",
    `      password: \${${YAML_PASSWORD_KEY}}`,
    "      sslEnabled: false",
  ];
}

/** Writes the program's Pulumi.yaml into `dir` (created if missing); returns `dir`. */
export function writeYamlProgram(dir: string, program: YamlProgram): string {
  const lines = [
    `name: ${program.project}`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: analytics",
    "      path: ./plugin-bin",
    "config:",
    `  ${YAML_PASSWORD_KEY}:`,
    "    type: string",
    "    secret: true",
    "resources:",
    "  org:",
    "    type: analytics:Organization",
    "    properties:",
    `      name: ${program.orgName}`,
    ...Array.from({ length: program.count }, (_, i) => dataSource(program, i)).flat(),
  ];
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${lines.join("\n")}\n`);
  return dir;
}

/** The `many` fixture's twin with `count` data sources, written into `dir`. */
export function writeManyYaml(dir: string, count: number): string {
  return writeYamlProgram(dir, { project: "many-yaml", orgName: "Reliability Org", count, resourcePrefix: "warehouse-", displayPrefix: "Warehouse" });
}
