import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  checkpointObjects,
  historyPrefixes,
  parseS3BackendUrl,
  readObjectStoreHistory,
  readStackHistory,
  type ObjectStore,
  type PulumiRunner,
} from "./history";

const DS = "pulumi-nodejs:dynamic/analytics:DataSource";
const deployment = (time: string, ...ids: string[]) => ({
  deployment: { manifest: { time }, resources: ids.map((id) => ({ urn: `urn:pulumi:s::p::${DS}::${id}`, type: DS, id, outputs: { displayName: id } })) },
});

/** A runner answering from a table of `args joined by spaces` → stdout (or an Error to reject with). */
function fakeRunner(answers: Record<string, unknown>): { run: PulumiRunner; calls: string[] } {
  const calls: string[] = [];
  const run: PulumiRunner = async (args) => {
    const key = args.join(" ");
    calls.push(key);
    const answer = answers[key];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new Error(`unexpected pulumi ${key}`);
    return typeof answer === "string" ? answer : JSON.stringify(answer);
  };
  return { run, calls };
}

describe("readStackHistory", () => {
  it("exports every numbered version where the backend keeps them, then the current state", async () => {
    const { run, calls } = fakeRunner({
      "stack export": deployment("2026-01-01T00:03:00Z"),
      "whoami --verbose --json": { url: "https://api.pulumi.com" },
      "stack history --json --page-size 100 --page 1": [
        { version: 2, endTime: "2026-01-01T00:02:00Z" },
        { version: 1, endTime: "2026-01-01T00:01:00Z" },
      ],
      "stack export --version 2": deployment("2026-01-01T00:02:00Z", "ds_2"),
      "stack export --version 1": deployment("2026-01-01T00:01:00Z", "ds_1"),
    });
    const snapshots = await readStackHistory(run, undefined, "/nowhere");
    expect(snapshots.map((s) => [s.time, s.resources.map((r) => r.id)])).toEqual([
      ["2026-01-01T00:02:00Z", ["ds_2"]],
      ["2026-01-01T00:01:00Z", ["ds_1"]],
      ["2026-01-01T00:03:00Z", []],
    ]);
    expect(calls).toContain("stack export --version 1");
  });

  it.each([
    ["numbers no versions (self-managed)", { "stack history --json --page-size 100 --page 1": [{ version: 0 }] }],
    [
      "cannot export them",
      {
        "stack history --json --page-size 100 --page 1": [{ version: 1 }],
        "stack export --version 1": new Error("error: the current backend (postgres) does not provide the ability to export previous deployments"),
      },
    ],
  ])("refuses, in words, a backend that %s instead of listing nothing", async (_what, extra) => {
    const { run } = fakeRunner({ "stack export": deployment("2026-01-01T00:03:00Z"), "whoami --verbose --json": { url: "postgres://db/state" }, ...extra });
    await expect(readStackHistory(run, undefined, "/nowhere")).rejects.toThrow(
      "The backend postgres://db/state keeps no earlier versions of the stack's state that the pulumi CLI can export",
    );
  });
});

describe("gs:// and azblob:// backends", () => {
  it.each([
    ["gs://bucket", "gs:// needs Google Cloud Storage's client"],
    ["azblob://container", "azblob:// needs Azure Blob Storage's client"],
  ])("%s is refused with the reason and the way around it, before any version is asked for", async (url, reason) => {
    const { run, calls } = fakeRunner({ "stack export": deployment("2026-01-01T00:03:00Z"), "whoami --verbose --json": { url } });
    const refused = readStackHistory(run, undefined, "/nowhere");
    await expect(refused).rejects.toThrow(`analytics-orphans reads history from file:// and s3:// backends; ${reason}`);
    await expect(refused).rejects.toThrow("pulumi login file://");
    expect(calls).toEqual(["stack export", "whoami --verbose --json"]);
  });
});

describe("parseS3BackendUrl", () => {
  it.each([
    ["s3://state", { bucket: "state", prefix: "", client: {} }],
    ["s3://state/", { bucket: "state", prefix: "", client: {} }],
    ["s3://state/team/ci?region=eu-west-1", { bucket: "state", prefix: "team/ci/", client: { region: "eu-west-1" } }],
    [
      "s3://state?endpoint=127.0.0.1:9000&disableSSL=true&s3ForcePathStyle=true&region=us-east-1",
      { bucket: "state", prefix: "", client: { endpoint: "http://127.0.0.1:9000", forcePathStyle: true, region: "us-east-1" } },
    ],
    ["s3://state?endpoint=minio.internal:9000", { bucket: "state", prefix: "", client: { endpoint: "https://minio.internal:9000" } }],
    ["s3://state?endpoint=https://s3.example.com&disableSSL=true", { bucket: "state", prefix: "", client: { endpoint: "https://s3.example.com" } }],
    [
      "s3://state/p?awssdk=v2&endpoint=host:1&disable_https=true&use_path_style=true&profile=ci",
      { bucket: "state", prefix: "p/", client: { endpoint: "http://host:1", forcePathStyle: true, profile: "ci" } },
    ],
    ["s3://state?s3ForcePathStyle=false", { bucket: "state", prefix: "", client: { forcePathStyle: false } }],
  ])("%s", (url, expected) => {
    expect(parseS3BackendUrl(url)).toEqual(expected);
  });

  it.each(["gs://state", "s3://", "not a url"])("refuses %s", (url) => {
    expect(() => parseS3BackendUrl(url)).toThrow(TypeError);
  });
});

describe("history keys", () => {
  it("looks in the project's folder first, then the older stack-only one, under the URL's prefix, by the stack's short name", () => {
    expect(historyPrefixes("team/", "edges", "organization/edges/dev")).toEqual(["team/.pulumi/history/edges/dev/", "team/.pulumi/history/dev/"]);
  });

  it("keeps checkpoints only (plain or gzipped), oldest first by the nanoseconds in their names", () => {
    const keys = [
      "h/dev-1700000000000000000.checkpoint.json",
      "h/dev-1700000000000000000.history.json",
      "h/dev-999999999999999999.checkpoint.json.gz",
      "h/dev-1800000000000000000.checkpoint.json",
      "h/dev.json.bak",
    ];
    expect(checkpointObjects(keys.map((key) => ({ key }))).map((o) => o.key)).toEqual([
      "h/dev-999999999999999999.checkpoint.json.gz",
      "h/dev-1700000000000000000.checkpoint.json",
      "h/dev-1800000000000000000.checkpoint.json",
    ]);
  });
});

/** An object store of a few keys, answering listings a page of `pageSize` at a time, direct children only. */
function fakeStore(objects: Record<string, Uint8Array>, pageSize = 2): { store: ObjectStore; lists: string[] } {
  const lists: string[] = [];
  const store: ObjectStore = {
    async list(prefix, token) {
      lists.push(`${prefix}@${token ?? ""}`);
      const keys = Object.keys(objects)
        .filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes("/"))
        .sort();
      const start = token ? Number(token) : 0;
      const page = keys.slice(start, start + pageSize).map((key) => ({ key, lastModified: new Date(Date.UTC(2026, 0, 1, 0, start)) }));
      return start + pageSize < keys.length ? { objects: page, next: String(start + pageSize) } : { objects: page };
    },
    async get(key) {
      const bytes = objects[key];
      if (!bytes) throw new Error(`no ${key}`);
      return bytes;
    },
  };
  return { store, lists };
}

const checkpoint = (time: string | undefined, ...ids: string[]) =>
  Buffer.from(
    JSON.stringify({
      version: 3,
      checkpoint: {
        stack: "dev",
        latest: { ...(time ? { manifest: { time } } : {}), resources: ids.map((id) => ({ urn: `urn:pulumi:dev::p::${DS}::${id}`, type: DS, id })) },
      },
    }),
  );

describe("readObjectStoreHistory", () => {
  it("reads every page of the project's folder, plain and gzipped checkpoints, oldest first", async () => {
    const { store, lists } = fakeStore({
      "ci/.pulumi/history/p/dev/dev-3.checkpoint.json.gz": gzipSync(checkpoint("2026-01-01T00:03:00Z", "ds_3")),
      "ci/.pulumi/history/p/dev/dev-1.checkpoint.json": checkpoint("2026-01-01T00:01:00Z", "ds_1"),
      "ci/.pulumi/history/p/dev/dev-1.history.json": Buffer.from("{}"),
      "ci/.pulumi/history/p/dev/dev-2.checkpoint.json": checkpoint("2026-01-01T00:02:00Z", "ds_2"),
      "ci/.pulumi/history/p/other/other-1.checkpoint.json": checkpoint("2026-01-01T00:00:00Z", "nope"),
    });
    const snapshots = await readObjectStoreHistory(store, "ci/", "p", "dev");
    expect(snapshots.map((s) => [s.time, s.resources.map((r) => r.id)])).toEqual([
      ["2026-01-01T00:01:00Z", ["ds_1"]],
      ["2026-01-01T00:02:00Z", ["ds_2"]],
      ["2026-01-01T00:03:00Z", ["ds_3"]],
    ]);
    expect(lists).toEqual(["ci/.pulumi/history/p/dev/@", "ci/.pulumi/history/p/dev/@2"]);
  });

  it("falls back to the older .pulumi/history/<stack>/ layout, dating a checkpoint without a manifest by its object", async () => {
    const { store } = fakeStore({ ".pulumi/history/dev/dev-1.checkpoint.json": checkpoint(undefined, "ds_old") });
    const snapshots = await readObjectStoreHistory(store, "", "p", "dev");
    expect(snapshots).toEqual([{ time: "2026-01-01T00:00:00.000Z", resources: [expect.objectContaining({ id: "ds_old" })] }]);
  });

  it("finds nothing for a stack without history", async () => {
    expect(await readObjectStoreHistory(fakeStore({}).store, "", "p", "dev")).toEqual([]);
  });
});
