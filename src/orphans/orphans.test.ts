import { describe, expect, it } from "vitest";
import { findOrphans, formatOrphans, type Snapshot, type SnapshotResource } from "./orphans";

const ORG = "pulumi-nodejs:dynamic/analytics:Organization";
const DS = "pulumi-nodejs:dynamic/analytics:DataSource";

const org = (id: string, name = "Acme"): SnapshotResource => ({ urn: `urn:pulumi:dev::p::${ORG}::org`, type: ORG, id, outputs: { name } });
const ds = (id: string, displayName = "WH", resource = "wh"): SnapshotResource => ({
  urn: `urn:pulumi:dev::p::${DS}::${resource}`,
  type: DS,
  id,
  outputs: { displayName, password: { ciphertext: "v1:abc" } },
});
const stackResource: SnapshotResource = { urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack" };
const at = (minute: number, ...resources: SnapshotResource[]): Snapshot => ({
  time: `2026-01-01T00:0${minute}:00.000000001Z`,
  resources: [stackResource, ...resources],
});

describe("findOrphans", () => {
  it("reads the native provider's type tokens too, and a stack moved from one to the other", () => {
    const native = (id: string): SnapshotResource => ({
      urn: "urn:pulumi:dev::p::analytics:index:DataSource::wh",
      type: "analytics:index:DataSource",
      id,
      outputs: { displayName: "WH" },
    });
    const orphans = findOrphans([at(1, ds("ds_1")), at(2, native("ds_2")), at(3)]);
    expect(orphans.map((o) => [o.id, o.type, o.name])).toEqual([
      ["ds_1", "DataSource", "WH"],
      ["ds_2", "DataSource", "WH"],
    ]);
  });

  it.each<[string, Snapshot[], Array<[string, string, string]>]>([
    ["no history", [], []],
    ["nothing ever left", [at(1, org("org_1"), ds("ds_1")), at(2, org("org_1"), ds("ds_1"))], []],
    [
      "a replace leaves the old object",
      [at(1, org("org_1"), ds("ds_1")), at(2, org("org_1"), ds("ds_2"))],
      [["ds_1", "DataSource", "2026-01-01T00:02:00.000000001Z"]],
    ],
    [
      "a destroy leaves everything, each dated by the update that let it go",
      [at(1, org("org_1"), ds("ds_1")), at(2, org("org_1"), ds("ds_2")), at(3)],
      [
        ["ds_1", "DataSource", "2026-01-01T00:02:00.000000001Z"],
        ["ds_2", "DataSource", "2026-01-01T00:03:00.000000001Z"],
        ["org_1", "Organization", "2026-01-01T00:03:00.000000001Z"],
      ],
    ],
    ["snapshots out of order are sorted by time", [at(3), at(1, org("org_1"))], [["org_1", "Organization", "2026-01-01T00:03:00.000000001Z"]]],
    ["other resource types are ignored", [at(1, { urn: "u::x", type: "aws:s3/bucket:Bucket", id: "b" }), at(2)], []],
  ])("%s", (_what, snapshots, expected) => {
    expect(findOrphans(snapshots).map((o) => [o.id, o.type, o.leftAt])).toEqual(expected);
  });

  it("names each object by its service name and program resource name, never reading secrets", () => {
    const [orphan] = findOrphans([at(1, ds("ds_1", "Warehouse", "warehouse")), at(2)]);
    expect(orphan).toEqual({ type: "DataSource", id: "ds_1", name: "Warehouse", resourceName: "warehouse", leftAt: "2026-01-01T00:02:00.000000001Z" });
    expect(JSON.stringify(orphan)).not.toContain("ciphertext");
  });
});

describe("formatOrphans", () => {
  it("prints one tab-separated line per object under a header", () => {
    const text = formatOrphans(findOrphans([at(1, org("org_1", "Acme Inc"), ds("ds_1")), at(2)]));
    expect(text.split("\n")).toEqual([
      expect.stringMatching(/^2 analytics objects left in the service by this stack/),
      "TYPE\tID\tNAME\tRESOURCE\tLEFT AT",
      'DataSource\tds_1\t"WH"\twh\t2026-01-01T00:02:00.000000001Z',
      'Organization\torg_1\t"Acme Inc"\torg\t2026-01-01T00:02:00.000000001Z',
      "",
    ]);
  });

  it("says so when nothing was left", () => {
    expect(formatOrphans([])).toBe("This stack has left no analytics objects in the service.\n");
  });
});
