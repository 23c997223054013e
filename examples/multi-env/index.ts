import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

/** One database of the environment, as listed in stack config. */
interface DatabaseConfig {
  name: string;
  host: string;
  port?: number;
  database: string;
  user: string;
}

const config = new pulumi.Config();
const environment = config.require("environment");
const databases = config.requireObject<DatabaseConfig[]>("databases");

const org = new Organization("org", { name: `Acme ${environment}` });

// Passwords live in one secret map per stack: `pulumi config set --secret --path 'passwords.orders' ...`.
const passwords = config.requireSecretObject<Record<string, string>>("passwords");

const dataSources = databases.map(
  (db) =>
    new DataSource(db.name, {
      orgId: org.id,
      type: "direct",
      dialect: "POSTGRES",
      displayName: `${db.name} (${environment})`,
      host: db.host,
      port: db.port ?? 5432,
      databaseName: db.database,
      username: db.user,
      password: passwords.apply((all) => {
        const password = all[db.name];
        if (!password) throw new Error(`No password for database ${db.name}: run pulumi config set --secret --path 'passwords.${db.name}' <password>`);
        return password;
      }),
    }),
);

export const orgSlug = org.slug;
export const dataSourceIds = Object.fromEntries(databases.map((db, i) => [db.name, dataSources[i]!.id]));
