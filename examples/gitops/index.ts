import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

const db = new pulumi.Config("db");

const org = new Organization("analytics", { name: "Acme Analytics" });

const warehouse = new DataSource("warehouse", {
  orgId: org.id,
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Warehouse",
  host: db.require("host"),
  port: 5432,
  databaseName: "analytics",
  username: db.require("user"),
  password: db.requireSecret("password"),
});

export const orgId = org.id;
export const dataSourceId = warehouse.id;
export const syncStatus = warehouse.lastSyncStatus;
