/**
 * State files that outlive their release: the files 0.1.0 wrote (test/fixtures/reference-server-state/)
 * load on this release, and on a later one that adds output fields to the kinds, each record
 * getting the new fields' defaults from src/kinds, in the state file and in its journal; a file of
 * a newer release is refused, naming both releases, and left as it was. The later release is this
 * code with fields added to the kinds' specs (as test/third-kind.test.ts registers a kind): the
 * layers are loaded afresh for it, and again once the fields are gone.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

type StateFileModule = typeof import("./state-file");
const FIXTURES = path.resolve(__dirname, "..", "..", "..", "test", "fixtures", "reference-server-state");
const now = new Date("2026-06-01T00:00:00.000Z");

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the fixture folder `name` (a state file, with its journal when it has one), as a volume holds it. */
function volumeOf(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reference-state-upgrade-"));
  temps.push(dir);
  for (const file of fs.readdirSync(path.join(FIXTURES, name))) fs.copyFileSync(path.join(FIXTURES, name, file), path.join(dir, file));
  return path.join(dir, "state.json");
}

/** The files of a volume, by name, as bytes. */
function filesOf(file: string): Record<string, string> {
  const dir = path.dirname(file);
  return Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name), "base64")]));
}

/** What both fixtures hold: two users, Acme (a trial, three data sources, one synced) and Beta Labs. */
function expectFixtureRecords(store: Awaited<ReturnType<StateFileModule["loadState"]>>): void {
  expect(store.userNames()).toEqual(["alice", "bob"]);
  expect([...store.organizations.values()].map((o) => [o.name, o.trial === null])).toEqual([
    ["Acme Analytics", false],
    ["Beta Labs", true],
  ]);
  const dataSources = [...store.dataSources.values()];
  expect(dataSources.map((d) => d.fields.displayName)).toEqual(["Warehouse", "Reporting replica", "Through SSH"]);
  expect(dataSources[0]!.tables?.map((t) => `${t.schema}.${t.name}`)).toEqual([
    "analytics.daily_revenue",
    "public.customers",
    "public.order_items",
    "public.orders",
  ]);
  expect(dataSources[2]!.fields).toMatchObject({ sshEnabled: true, sshUsername: "tunnel", host: "10.0.0.5" });
  expect(dataSources.map((d) => d.providedSecretFields)).toEqual([["password"], ["password"], ["sshPassword"]]);
}

// A field added to the kinds that is neither nullable nor given a storedDefault fails these, naming it.
describe("the state files of 0.1.0, on this release", () => {
  it.each([
    ["the npm package's (layout version 1, closed cleanly)", "0.1.0-npm"],
    ["this server's at 0.1.0 (a state file and the journal of a server killed mid-run)", "0.1.0"],
  ])("load %s", async (_, fixture) => {
    const { loadState } = await import("./state-file");
    expectFixtureRecords(await loadState(volumeOf(fixture), now));
  });
});

describe("a later release that adds output fields to the kinds", () => {
  /** The added fields: one with a default, one nullable; and one with neither, added only where a test says. */
  const ADDED = {
    dataSource: { archived: { type: "boolean", storedDefault: false }, archivedAt: { type: "string", nullable: true } },
    organization: { region: { type: "string", storedDefault: "eu-west" } },
  } as const;
  let later: StateFileModule;
  let format: typeof import("./state-format");
  let kinds: typeof import("../../kinds");

  beforeAll(async () => {
    vi.resetModules();
    kinds = await import("../../kinds");
    Object.assign(kinds.dataSourceSpec.outputs, ADDED.dataSource);
    Object.assign(kinds.organizationSpec.outputs, ADDED.organization);
    later = await import("./state-file");
    format = await import("./state-format");
  });
  afterAll(() => {
    for (const name of Object.keys(ADDED.dataSource)) delete (kinds.dataSourceSpec.outputs as Record<string, unknown>)[name];
    for (const name of Object.keys(ADDED.organization)) delete (kinds.organizationSpec.outputs as Record<string, unknown>)[name];
    vi.resetModules();
  });

  it.each([
    ["the npm package's 0.1.0 file: records of the state file", "0.1.0-npm"],
    ["this server's 0.1.0 file and journal: records replayed from the journal", "0.1.0"],
  ])("loads %s, each with the new fields' stored defaults from src/kinds", async (_, fixture) => {
    const store = await later.loadState(volumeOf(fixture), now);
    expectFixtureRecords(store);
    for (const ds of store.dataSources.values()) expect(ds.fields).toMatchObject({ archived: false, archivedAt: null });
    for (const org of store.organizations.values()) expect(org).toMatchObject({ region: "eu-west" });
  });

  it("writes them on its next change, with its own release, and a newer release's file is refused by this one, naming both and changing nothing", async () => {
    const file = volumeOf("0.1.0");
    const state = await later.StateFile.open(file, now);
    state.store.createOrganization("alice", "Gamma", now);
    await state.save();
    await state.close();
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as { release: string; dataSources: Array<{ fields: Record<string, unknown> }> };
    expect(written.release).toBe(format.RELEASE);
    expect(written.dataSources.every((d) => d.fields.archived === false && d.fields.archivedAt === null)).toBe(true);

    // As the next release (these kinds, the next version) leaves it: a state file naming it, a journal line of its records.
    const next = `${format.RELEASE.split(".")[0]}.${Number(format.RELEASE.split(".")[1]) + 1}.0`;
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(`"release":"${format.RELEASE}"`, `"release":"${next}"`));
    const record = { ...written.dataSources[0], fields: { ...written.dataSources[0]!.fields, archived: true } };
    fs.writeFileSync(later.journalPathOf(file), `${JSON.stringify({ seq: 1, op: "dataSource", record })}\n{"seq":2,"op":"organiz`);
    const before = filesOf(file);

    vi.resetModules(); // this release again: the kinds without the added fields
    const current = await import("./state-file");
    const message = `written by pulumi-analytics ${next}, a newer release than this reference server (${format.RELEASE})`;
    await expect(current.StateFile.open(file, now)).rejects.toThrow(message);
    await expect(current.loadState(file, now)).rejects.toThrow(file);
    expect(filesOf(file)).toEqual(before); // the torn journal line is still there: nothing was cut or rewritten
  });

  it("refuses a 0.1.0 record when an added field has neither a default nor null, naming the field", async () => {
    vi.resetModules(); // the later release once more, with a third field that has neither
    Object.assign((await import("../../kinds")).dataSourceSpec.outputs, ADDED.dataSource, { ownerEmail: { type: "string" } });
    const strict = await import("./state-file");
    await expect(strict.loadState(volumeOf("0.1.0-npm"), now)).rejects.toThrow(
      "(first problem at dataSources.0.fields.ownerEmail: missing, and it has no default)",
    );
    await expect(strict.loadState(volumeOf("0.1.0"), now)).rejects.toThrow(
      /line 5: not a valid dataSource record \(first problem at fields\.ownerEmail: missing, and it has no default\)/,
    );
  });
});
