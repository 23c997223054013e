import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { SECRET_DATA_SOURCE_FIELDS } from "../contract";
import { UNKNOWN, checkInputs, diffInputs, requestBody, secretInputs } from "./inputs";

const valid = { orgId: "org_1", type: "direct", dialect: "POSTGRES", displayName: "Warehouse", host: "db", port: 5432 };

describe("UNKNOWN", () => {
  it("is the engine's placeholder for values not known during preview", () => {
    expect(UNKNOWN).toBe(pulumi.runtime.unknownValue);
  });
});

describe("checkInputs of a data source", () => {
  it("applies the spec's defaults and nulls an absent databaseName", () => {
    const { inputs, failures } = checkInputs("dataSource", { ...valid, __provider: "serialized" });
    expect(failures).toEqual([]);
    expect(inputs).toEqual({ ...valid, sslEnabled: true, sshEnabled: false, databaseName: null });
    expect(inputs).not.toHaveProperty("__provider");
  });

  it("keeps explicit values over defaults", () => {
    const { inputs } = checkInputs("dataSource", { ...valid, sslEnabled: false, sshEnabled: true, databaseName: "analytics" });
    expect(inputs).toMatchObject({ sslEnabled: false, sshEnabled: true, databaseName: "analytics" });
  });

  it.each([
    [{ displayName: "" }, "displayName", /at least 1 character/],
    [{ port: 70000 }, "port", /integer from 0 to 65535, got 70000/],
    [{ port: -1 }, "port", /integer from 0 to 65535, got -1/],
    [{ port: 1.5 }, "port", /integer from 0 to 65535, got 1.5/],
    [{ port: "80" }, "port", /integer from 0 to 65535, got "80"/],
    [{ sshPort: 65536 }, "sshPort", /integer from 0 to 65535/],
    [{ dialect: "MYSQL" }, "dialect", /must be "POSTGRES".*got "MYSQL"/],
    [{ type: "ssh" }, "type", /must be "direct"/],
    [{ databaseName: 7 }, "databaseName", /string or null/],
    [{ sslEnabled: "yes" }, "sslEnabled", /boolean/],
    [{ hostname: "typo" }, "hostname", /^is not an input of DataSource; its inputs are orgId, type, dialect, displayName,/],
    [{ toString: UNKNOWN }, "toString", /^is not an input of DataSource/],
    [{ orgId: "" }, "orgId", /non-empty string \(an organization id\), got an empty string/],
  ])("fails %j on %s with a readable reason", (patch, property, reason) => {
    const { failures, inputs } = checkInputs("dataSource", { ...valid, ...patch });
    expect(failures).toHaveLength(1);
    expect(failures[0]?.property).toBe(property);
    expect(failures[0]?.reason).toMatch(reason);
    expect(inputs).toMatchObject(patch);
  });

  it("reports every offending field at once", () => {
    const { failures } = checkInputs("dataSource", { orgId: "org_1", type: "direct", dialect: "MYSQL", displayName: "", port: 70000 });
    expect(failures.map((f) => f.property)).toEqual(["dialect", "displayName", "port"]);
  });

  it("names a missing orgId and how to pass it", () => {
    const { orgId: _orgId, ...rest } = valid;
    expect(checkInputs("dataSource", rest).failures).toEqual([{ property: "orgId", reason: expect.stringMatching(/orgId: org\.id/) }]);
  });

  it("does not fail values that are still unknown during preview", () => {
    const { inputs, failures } = checkInputs("dataSource", { ...valid, orgId: UNKNOWN, displayName: UNKNOWN, port: UNKNOWN, sslEnabled: UNKNOWN });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ orgId: UNKNOWN, displayName: UNKNOWN, port: UNKNOWN, sslEnabled: UNKNOWN, sshEnabled: false });
  });

  it("still fails known bad values next to unknown ones", () => {
    const { failures } = checkInputs("dataSource", { ...valid, orgId: UNKNOWN, port: 99999 });
    expect(failures.map((f) => f.property)).toEqual(["port"]);
  });
});

describe("checkInputs of an organization", () => {
  it.each([
    [{ name: "Acme" }, []],
    [{ name: "" }, ["name"]],
    [{}, ["name"]],
    [{ name: 5 }, ["name"]],
    [{ name: "Acme", slug: "x" }, ["slug"]],
    [{ name: UNKNOWN }, []],
  ])("%j fails on %j", (news, properties) => {
    expect(checkInputs("organization", news).failures.map((f) => f.property)).toEqual(properties);
  });
});

describe("preview checks the spec's constraints only", () => {
  it("passes a 300-character organization name, which the spec does not limit", () => {
    expect(checkInputs("organization", { name: "n".repeat(300) })).toEqual({ inputs: { name: "n".repeat(300) }, failures: [] });
  });
});

describe("diffInputs", () => {
  const olds = {
    ...valid,
    sslEnabled: true,
    sshEnabled: false,
    databaseName: null,
    password: "old-pw",
    id: "ds_1",
    lastSyncStatus: "PENDING",
    __provider: "a",
  };

  it.each([
    ["nothing", {}, []],
    ["only __provider", { __provider: "b" }, []],
    ["a default written explicitly", { sslEnabled: true, sshEnabled: false }, []],
    ["a default omitted", { sslEnabled: undefined, sshEnabled: undefined }, []],
    ["null vs absent databaseName", { databaseName: undefined }, []],
    ["displayName", { displayName: "Renamed" }, ["displayName"]],
    ["a rotated password", { password: "new-pw" }, ["password"]],
    ["orgId", { orgId: "org_2" }, ["orgId"]],
    ["port and host", { port: 5433, host: "db2" }, ["host", "port"]],
    ["sslEnabled turned off", { sslEnabled: false }, ["sslEnabled"]],
    ["an unknown displayName", { displayName: UNKNOWN }, ["displayName"]],
  ])("%s", (_name, patch, replaces) => {
    const news: Record<string, unknown> = { ...valid, sslEnabled: true, sshEnabled: false, databaseName: null, password: "old-pw", __provider: "a", ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete news[k];
    const result = diffInputs("dataSource", olds, news);
    expect(result).toEqual({ changes: replaces.length > 0, replaces, deleteBeforeReplace: false });
  });

  it("ignores output-only fields such as sync status", () => {
    expect(diffInputs("dataSource", { ...olds, lastSyncStatus: "SUCCEEDED" }, { ...valid, password: "old-pw" }).changes).toBe(false);
  });

  it("replaces an organization whose name changed, and only then", () => {
    const old = { name: "Acme", slug: "acme", onboardingStatus: "STARTED" };
    expect(diffInputs("organization", old, { name: "Acme" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(diffInputs("organization", old, { name: "Acme 2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  });
});

describe("requestBody", () => {
  it("is the checked inputs without orgId or undefined fields", () => {
    expect(requestBody("dataSource", { ...valid, password: "pw", username: undefined })).toEqual({
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Warehouse",
      host: "db",
      port: 5432,
      password: "pw",
    });
  });
});

describe("secretInputs", () => {
  it("are the contract's secret fields for data sources and none for organizations", () => {
    expect(secretInputs("dataSource")).toEqual(SECRET_DATA_SOURCE_FIELDS);
    expect(secretInputs("organization")).toEqual([]);
  });
});
