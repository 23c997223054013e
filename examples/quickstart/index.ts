import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

const db = new pulumi.Config("db");

const org = new Organization("acme", { name: "Acme Analytics" });

const warehouse = new DataSource("warehouse", {
  orgId: org.id,
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Production warehouse",
  host: db.require("host"),
  port: db.getNumber("port") ?? 5432,
  databaseName: db.get("name") ?? "analytics",
  username: db.require("user"),
  password: db.requireSecret("password"),
});

export const orgId = org.id;
export const orgSlug = org.slug;
export const dataSourceId = warehouse.id;
export const syncStatus = warehouse.lastSyncStatus;
export const healthStatus = warehouse.lastHealthStatus;
