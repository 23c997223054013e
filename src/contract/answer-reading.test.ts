import { describe, expect, it } from "vitest";
import { dataSourceSpec, organizationSpec, type OutputFieldSpec } from "../kinds";
import { readAnswer, readField, readId, shortQuote } from "./answer-reading";

const text: OutputFieldSpec = { type: "string" };
const nullableText: OutputFieldSpec = { type: "string", nullable: true };
const integer: OutputFieldSpec = { type: "integer", nullable: true };
const flag: OutputFieldSpec = { type: "boolean" };

describe("readField", () => {
  it.each<[string, OutputFieldSpec, unknown, unknown, { received: string; lossless: boolean } | undefined]>([
    ["a string as it is", text, "acme", "acme", undefined],
    ["null where the spec allows it", nullableText, null, null, undefined],
    ["absent as null", nullableText, undefined, null, { received: "absent", lossless: true }],
    ["absent where the spec has no null, as null", text, undefined, null, { received: "absent", lossless: true }],
    ["null where the spec has no null", flag, null, null, { received: "null", lossless: true }],
    ["a number as its text", text, 1733600000000, "1733600000000", { received: "a number", lossless: true }],
    ["a boolean as its text", text, true, "true", { received: "a boolean", lossless: true }],
    ["an object for a string, as null", text, { a: 1 }, null, { received: "an object", lossless: false }],
    ["an integer as it is", integer, 5432, 5432, undefined],
    ["a decimal string as the integer it spells", integer, "5432", 5432, { received: "a string", lossless: true }],
    ["a negative decimal string", integer, "-1", -1, { received: "a string", lossless: true }],
    ["a fraction for an integer, as null", integer, 54.5, null, { received: "a number (54.5)", lossless: false }],
    ["a word for an integer, as null", integer, "port", null, { received: 'a string ("port")', lossless: false }],
    ["digits too many to be exact, as null", integer, "123456789012345678", null, { received: 'a string ("123456789012345678")', lossless: false }],
    ["a boolean as it is", flag, false, false, undefined],
    ["the string true as a boolean", flag, "true", true, { received: "a string", lossless: true }],
    ["the string false as a boolean", flag, "false", false, { received: "a string", lossless: true }],
    ["0 for a boolean, as null: 0 and 1 are not guessed at", flag, 0, null, { received: "a number (0)", lossless: false }],
    [
      "a long string quoted whole, to be redacted before it is cut",
      flag,
      "x".repeat(60),
      null,
      { received: `a string ("${"x".repeat(60)}")`, lossless: false },
    ],
  ])("reads %s", (_what, field, value, recorded, difference) => {
    expect(readField(field, value)).toEqual(difference === undefined ? { value: recorded } : { value: recorded, difference });
  });
});

describe("shortQuote", () => {
  it.each([
    [`a string ("${"x".repeat(60)}")`, `a string ("${"x".repeat(39)}…)`],
    ['a string ("5432")', 'a string ("5432")'],
    ["absent", "absent"],
    ["an object", "an object"],
  ])("%s -> %s", (received, short) => {
    expect(shortQuote(received)).toBe(short);
  });
});

describe("readId", () => {
  it.each([
    [{ id: "ds_1" }, { id: "ds_1", converted: false }],
    [{ id: 17 }, { id: "17", converted: true }],
    [{ id: 0 }, { id: "0", converted: true }],
    [{ id: "  " }, { id: undefined, why: "data.id is an empty string" }],
    [{ id: 1.5 }, { id: undefined, why: "data.id is a number that cannot be read exactly (1.5)" }],
    [{ id: null }, { id: undefined, why: "data.id is null" }],
    [{ id: true }, { id: undefined, why: "data.id is a boolean" }],
    [{}, { id: undefined, why: "data has no id" }],
  ])("%j", (data, expected) => {
    expect(readId(data)).toEqual(expected);
  });
});

describe("readAnswer", () => {
  it("reads every output of the kind, in the spec's order, then keeps the fields the spec does not list", () => {
    const reading = readAnswer(organizationSpec, { workspace: { id: "ws_1" }, onboardingStatus: "IN_PROGRESS", id: "org_1", name: "Acme" });
    expect(reading.id).toBe("org_1");
    if (reading.id === undefined) return;
    expect(Object.keys(reading.values)).toEqual(["id", "name", "slug", "customAiContext", "onboardingStatus", "workspace"]);
    expect(reading.values).toMatchObject({ slug: null, customAiContext: null, onboardingStatus: "IN_PROGRESS", workspace: { id: "ws_1" } });
    expect(reading.differences).toEqual([
      { field: "slug", received: "absent", recorded: null, lossless: true },
      { field: "customAiContext", received: "absent", recorded: null, lossless: true },
    ]);
  });

  it("records every data source output for the answers the issue found lost: absent sshHost, isDemo null, port as text, a numeric timestamp and id", () => {
    const reading = readAnswer(dataSourceSpec, { id: 7, port: "5432", isDemo: null, createdAt: 1733600000000, lastSyncStatus: "QUEUED" });
    expect(reading.id).toBe("7");
    if (reading.id === undefined) return;
    expect(reading.values).toMatchObject({ id: "7", port: 5432, isDemo: null, createdAt: "1733600000000", sshHost: null, lastSyncStatus: "QUEUED" });
    expect(reading.differences.every((d) => d.lossless)).toBe(true);
    expect(reading.differences.map((d) => d.field)).toEqual(expect.arrayContaining(["id", "port", "isDemo", "createdAt", "sshHost"]));
  });

  it.each([
    [undefined, "the body has no data"],
    [null, "data is null, not an object"],
    [["org_1"], "data is an array, not an object"],
    [{ name: "Acme" }, "data has no id"],
  ])("has no id for %j", (data, why) => {
    expect(readAnswer(organizationSpec, data)).toEqual({ id: undefined, why });
  });
});
