import { describe, expect, it } from "vitest";
import { dataSourceSpec } from "../kinds";
import {
  DEFAULT_NAME_PATTERN,
  DEFAULT_PRODUCTION_STACKS,
  credentialsInPlainFields,
  hostViolation,
  isProductionStack,
  nameViolation,
  nonPublicHost,
  sshAuthViolation,
  sslViolation,
  stackOfUrn,
} from "./checks";

describe("sslViolation", () => {
  it.each([
    [{ sslEnabled: false }, true],
    [{ sslEnabled: true }, false],
    [{}, false], // omitted: the API's default is true
  ])("%j violates: %s", (props, violates) => {
    expect(sslViolation(props) !== undefined).toBe(violates);
  });
});

describe("sshAuthViolation", () => {
  it.each([
    [{ sshEnabled: false, sshPassword: "p" }, undefined],
    [{ sshEnabled: true, sshPrivateKey: "k" }, undefined],
    [{ sshEnabled: true, sshPassword: "p", sshPrivateKey: "k" }, /sshPassword/],
    [{ sshEnabled: true, sshPassword: "p" }, /sshPassword/],
    [{ sshEnabled: true }, /no sshPrivateKey/],
  ])("%j", (props, expected) => {
    const reason = sshAuthViolation(props);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });
});

describe("credentialsInPlainFields", () => {
  it.each([
    [{ password: "hunter22", username: "hunter22" }, ["password (in username)"]],
    [{ password: "hunter22", host: "db.example.com", displayName: "pw hunter22 here" }, ["password (in displayName)"]],
    [{ sshPrivateKey: "KEYDATA", sshUsername: "KEYDATA", databaseName: "x-KEYDATA" }, ["sshPrivateKey (in databaseName, sshUsername)"]],
    [{ password: "hunter22", username: "analyst" }, []],
    [{ bigQueryJsonKey: "{KEYJSON}", bigQueryProjectId: "p-{KEYJSON}" }, ["bigQueryJsonKey (in bigQueryProjectId)"]],
    [{ password: "direct", type: "direct" }, []], // fixed-value fields cannot carry a pasted credential
    [{ password: "abc", username: "abc" }, []], // too short to be told from an ordinary word
    [{ username: "analyst" }, []],
  ])("%j", (props, expected) => {
    expect(credentialsInPlainFields(dataSourceSpec, props)).toEqual(expected);
  });

  it("never returns the credential's value", () => {
    expect(credentialsInPlainFields(dataSourceSpec, { password: "s3cr3t-value", username: "s3cr3t-value" }).join()).not.toContain("s3cr3t-value");
  });
});

describe("stackOfUrn and isProductionStack", () => {
  it("reads the stack from a URN", () => {
    expect(stackOfUrn("urn:pulumi:prod-eu::analytics::pulumi-nodejs:dynamic/analytics:DataSource::warehouse")).toBe("prod-eu");
    expect(stackOfUrn("not a urn")).toBe("");
  });

  it.each([
    ["prod", true],
    ["production", true],
    ["PROD", true],
    ["prod-eu", true],
    ["acme/production", true],
    ["eu.prod", true],
    ["staging", false],
    ["product-demo", false],
    ["preprod", false],
    ["dev", false],
  ])("with the default patterns, %s is production: %s", (stack, expected) => {
    expect(isProductionStack(stack, DEFAULT_PRODUCTION_STACKS)).toBe(expected);
  });

  it("uses the configured patterns instead", () => {
    expect(isProductionStack("live", ["^live$"])).toBe(true);
    expect(isProductionStack("production", ["^live$"])).toBe(false);
  });
});

describe("nonPublicHost", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["localhost", "loopback"],
    ["db.localhost", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fd12:3456::1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["0.0.0.0", "private"],
    ["172.32.0.1", undefined],
    ["8.8.8.8", undefined],
    ["2001:4860::8888", undefined],
    ["db.example.com", undefined], // names are not resolved
  ])("%s → %s", (host, kind) => {
    expect(nonPublicHost(host)).toBe(kind);
  });
});

describe("hostViolation", () => {
  it("checks host without a tunnel and sshHost with one", () => {
    expect(hostViolation({ host: "10.0.0.1" })).toMatch(/^host 10\.0\.0\.1 is a private address/);
    expect(hostViolation({ host: "10.0.0.1", sshEnabled: true, sshHost: "bastion.example.com" })).toBeUndefined();
    expect(hostViolation({ host: "db.example.com", sshEnabled: true, sshHost: "192.168.0.9" })).toMatch(/^sshHost 192\.168\.0\.9 is a private address/);
    expect(hostViolation({})).toBeUndefined();
  });
});

describe("nameViolation", () => {
  it.each([
    ["Analytics Org", DEFAULT_NAME_PATTERN, false],
    ["-leading-dash", DEFAULT_NAME_PATTERN, true],
    ["x".repeat(101), DEFAULT_NAME_PATTERN, true],
    ["Analytics Org", "^[a-z-]+$", true],
    ["analytics-org", "^[a-z-]+$", false],
  ])("%s against /%s/ violates: %s", (name, pattern, violates) => {
    expect(nameViolation("name", name, pattern) !== undefined).toBe(violates);
  });
});
