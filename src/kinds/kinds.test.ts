import { describe, expect, it } from "vitest";
import {
  KINDS,
  bodyFieldNames,
  dataSourceSpec,
  defaultsOf,
  describeObject,
  enumTypeName,
  enumValueName,
  inputRules,
  endpointPath,
  inputNames,
  organizationSpec,
  outputNames,
  ownerFieldNames,
  secretFieldNames,
} from ".";
import { widgetSpec } from "../../test/support/widget-kind";

describe("kind specs", () => {
  it("register the two kinds under the names existing stacks' providers use", () => {
    expect(Object.keys(KINDS)).toEqual(["organization", "dataSource"]);
    for (const [kind, spec] of Object.entries(KINDS)) expect(spec.kind).toBe(kind);
  });

  it("derive body fields, owners, secrets, defaults and outputs", () => {
    expect(inputNames(widgetSpec)).toEqual(["orgId", "title", "token", "pinned"]);
    expect(bodyFieldNames(widgetSpec)).toEqual(["title", "token", "pinned"]);
    expect(ownerFieldNames(widgetSpec)).toEqual(["orgId"]);
    expect(secretFieldNames(widgetSpec)).toEqual(["token"]);
    expect(defaultsOf(widgetSpec)).toEqual({ pinned: false });
    expect(outputNames(widgetSpec)).toEqual(["id", "title", "pinned"]);
  });

  it("build the create path and the words that name an object, never a secret", () => {
    expect(endpointPath(widgetSpec, { orgId: "org 1/x" })).toBe("/api/public/organizations/org%201%2Fx/widgets");
    expect(describeObject(widgetSpec, { orgId: "org_1", title: "Sales", token: "S3CRET" })).toBe('widget "Sales" in organization org_1');
    expect(endpointPath(organizationSpec)).toBe("/api/public/organizations");
  });

  it("state the data source's defaults and credentials as the spec does", () => {
    expect(defaultsOf(dataSourceSpec)).toEqual({ sslEnabled: true, sshEnabled: false });
    expect(secretFieldNames(dataSourceSpec).sort()).toEqual(
      ["bigQueryJsonKey", "password", "snowflakePrivateKey", "snowflakePrivateKeyPassphrase", "sshPassword", "sshPrivateKey", "sshPrivateKeyPassphrase"].sort(),
    );
    for (const secret of secretFieldNames(dataSourceSpec)) expect(outputNames(dataSourceSpec)).not.toContain(secret);
  });

  it("name enum types after the kind and input, and their constants after the values", () => {
    expect(enumTypeName(dataSourceSpec, "dialect")).toBe("DataSourceDialect");
    expect(enumTypeName(widgetSpec, "pinned")).toBe("WidgetPinned");
    expect(["direct", "POSTGRES", "read_only", "SNOWFLAKE-2"].map(enumValueName)).toEqual(["Direct", "Postgres", "ReadOnly", "Snowflake2"]);
  });

  it("word each input's rules from its spec, and nothing the spec does not say", () => {
    expect(inputRules(widgetSpec, "title")).toEqual([
      "Required.",
      "At least 1 character.",
      "Changing it replaces the widget; the old one stays in the service.",
    ]);
    expect(inputRules(widgetSpec, "token")).toEqual([
      "At least 12 characters.",
      "Always a secret: encrypted in the state, `[secret]` in previews.",
      "Changing it replaces the widget; the old one stays in the service.",
    ]);
    expect(inputRules(widgetSpec, "pinned")).toEqual(["Defaults to `false`.", "Changing it replaces the widget; the old one stays in the service."]);
    expect(inputRules(dataSourceSpec, "sshPort")).toEqual([
      "An integer from 0 to 65535.",
      "Changing it replaces the data source; the old one stays in the service.",
    ]);
    expect(inputRules(dataSourceSpec, "type")).toEqual([
      "Required.",
      "Allowed value: `direct`.",
      "Changing it replaces the data source; the old one stays in the service.",
    ]);
  });
});
