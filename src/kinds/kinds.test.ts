import { describe, expect, it } from "vitest";
import {
  KINDS,
  bodyFieldNames,
  dataSourceSpec,
  defaultsOf,
  describeObject,
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
});
