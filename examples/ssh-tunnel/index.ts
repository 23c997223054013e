import * as pulumi from "@pulumi/pulumi";
import { DataSource, Organization } from "pulumi-analytics";

const db = new pulumi.Config("db");
const ssh = new pulumi.Config("ssh");

const org = new Organization("acme", { name: "Acme Analytics" });

// The database is only reachable from the bastion; the service opens the tunnel itself.
const warehouse = new DataSource("private-warehouse", {
  orgId: org.id,
  type: "direct",
  dialect: "POSTGRES",
  displayName: "Private warehouse (via bastion)",
  host: db.require("host"),
  port: 5432,
  databaseName: "analytics",
  username: db.require("user"),
  password: db.requireSecret("password"),
  sslEnabled: true,
  sshEnabled: true,
  sshHost: ssh.require("host"),
  sshPort: ssh.getNumber("port") ?? 22,
  sshUsername: ssh.require("user"),
  sshPrivateKey: ssh.requireSecret("privateKey"),
  sshPrivateKeyPassphrase: ssh.getSecret("privateKeyPassphrase"),
});

export const dataSourceId = warehouse.id;
export const sshEnabled = warehouse.sshEnabled;
