/**
 * The demo stack (root Pulumi.yaml): one organization and one Postgres data source, pointed by
 * `npm run demo` at the embedded reference server and demo warehouse.
 */
import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

const warehouse = new pulumi.Config("warehouse");

const organization = new Organization("demo-org", { name: "Demo Analytics" });

const dataSource = new DataSource("demo-warehouse", {
  orgId: organization.id,
  type: "direct",
  dialect: "POSTGRES",
  displayName: warehouse.get("displayName") ?? "Demo warehouse",
  host: warehouse.require("host"),
  port: warehouse.requireNumber("port"),
  databaseName: warehouse.require("databaseName"),
  username: warehouse.require("username"),
  password: warehouse.requireSecret("password"),
  sslEnabled: false,
});

/** Id of the organization. */
export const organizationId = organization.id;
/** URL-style short name the service derived. */
export const organizationSlug = organization.slug;
/** Id of the data source. */
export const dataSourceId = dataSource.id;
/** Schema sync state the API reported at creation. */
export const lastSyncStatus = dataSource.lastSyncStatus;
/** Health state the API reported at creation. */
export const lastHealthStatus = dataSource.lastHealthStatus;
