import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

/** The stack: one organization and its Postgres warehouse, from the `db` config namespace. */
export async function analyticsProgram() {
  const db = new pulumi.Config("db");

  const org = new Organization("acme", { name: "Acme Analytics" });

  const warehouse = new DataSource("warehouse", {
    orgId: org.id,
    type: "direct",
    dialect: "POSTGRES",
    displayName: "Production warehouse",
    host: db.require("host"),
    port: 5432,
    databaseName: "analytics",
    username: db.require("user"),
    password: db.requireSecret("password"),
  });

  return { orgId: org.id, dataSourceId: warehouse.id, syncStatus: warehouse.lastSyncStatus };
}
