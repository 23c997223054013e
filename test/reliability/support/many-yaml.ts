/**
 * The `many` fixture (test/fixtures/many: one organization and `count` data sources named
 * "Warehouse <i>", the same resource names) as a Pulumi YAML program on the native plugin, which
 * Pulumi.yaml finds at `./plugin-bin` (see writePluginShim).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The project config key of the data sources' password (the `many` fixture's `fixture:password`). */
export const YAML_PASSWORD_KEY = "password";

/** One data source of the program, as the `many` fixture declares it. */
function dataSource(i: number): string[] {
  return [
    `  warehouse-${i}:`,
    "    type: analytics:DataSource",
    "    properties:",
    "      orgId: ${org.id}",
    "      type: direct",
    "      dialect: POSTGRES",
    `      displayName: Warehouse ${i}`,
    "      host: 127.0.0.1",
    "      port: 5432",
    "      databaseName: postgres",
    "      username: postgres",
    `      password: \${${YAML_PASSWORD_KEY}}`,
    "      sslEnabled: false",
  ];
}

/** Writes the program of `count` data sources into `dir` (created if missing); returns `dir`. */
export function writeManyYaml(dir: string, count: number): string {
  const lines = [
    "name: many-yaml",
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
    "      name: Reliability Org",
    ...Array.from({ length: count }, (_, i) => dataSource(i)).flat(),
  ];
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${lines.join("\n")}\n`);
  return dir;
}
