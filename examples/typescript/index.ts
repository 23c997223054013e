import * as pulumi from "@pulumi/pulumi";
import * as analytics from "@pulumi-analytics/analytics";

const config = new pulumi.Config();
const dbHost = config.require("dbHost");
const dbUser = config.require("dbUser");
const dbPassword = config.require("dbPassword");
const acme = new analytics.Organization("acme", {name: "Acme"});
const warehouse = new analytics.DataSource("warehouse", {
    orgId: acme.id,
    type: analytics.DataSourceType.Direct,
    dialect: analytics.DataSourceDialect.Postgres,
    displayName: "Warehouse",
    host: dbHost,
    port: 5432,
    databaseName: "analytics",
    username: dbUser,
    password: dbPassword,
});
export const orgId = acme.id;
export const dataSourceId = warehouse.id;
export const lastSyncStatus = warehouse.lastSyncStatus;
