import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceSpec, organizationSpec } from "../../kinds";
import { startReferenceServer, type ReferenceServer } from "../server";
import { ANSWER_PROFILE_NAMES, EXTRA_FIELDS, NumericIds, PROFILE_HEADER, shapeAnswer, type AnswerProfile } from "./answer-profiles";

const org = { id: "org_a", name: "Acme", slug: "acme", customAiContext: null, onboardingStatus: "STARTED" };
const ds = {
  id: "ds_a",
  port: 5432,
  sshPort: null,
  sslEnabled: true,
  isDemo: false,
  createdAt: "2026-12-07T00:00:00.000Z",
  lastSyncStatus: "PENDING",
  lastHealthStatus: "HEALTHY",
  sshHost: null,
};

describe("shapeAnswer", () => {
  it.each<[AnswerProfile, object, { status: number; data: object }]>([
    ["spec", org, { status: 201, data: org }],
    ["status-200", org, { status: 200, data: org }],
    ["absent-unset", org, { status: 201, data: { id: "org_a", name: "Acme", slug: "acme", onboardingStatus: "STARTED" } }],
    ["extra-fields", org, { status: 201, data: { ...org, ...EXTRA_FIELDS } }],
    ["new-status-values", org, { status: 201, data: { ...org, onboardingStatus: "IN_PROGRESS" } }],
    ["new-status-values", ds, { status: 201, data: { ...ds, lastSyncStatus: "QUEUED", lastHealthStatus: "UNKNOWN" } }],
    ["other-types", ds, { status: 201, data: { ...ds, id: 1, port: "5432", sslEnabled: 1, isDemo: 0, createdAt: Date.parse(ds.createdAt) } }],
  ])("%s shapes %j", (profile, data, expected) => {
    const spec = "slug" in data ? organizationSpec : dataSourceSpec;
    expect(shapeAnswer(profile, spec, data as Record<string, unknown>, new NumericIds())).toEqual(expected);
  });

  it("gives each id one number, and a path naming the number reaches the id", () => {
    const ids = new NumericIds();
    expect([ids.numberOf("org_a"), ids.numberOf("org_b"), ids.numberOf("org_a")]).toEqual([1, 2, 1]);
    expect([ids.resolve("2"), ids.resolve("org_a"), ids.resolve("3")]).toEqual(["org_b", "org_a", "3"]);
  });
});

describe("the reference server under an answer profile", () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ bootstrapUsers: ["alice"], inspection: true, syncSchema: () => new Promise(() => undefined) });
  });
  afterAll(() => server.close());

  const post = (path: string, body: object) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKeys.alice!}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("names the profile that shaped a create's answer, and none under the default", async () => {
    const plain = await post("/api/public/organizations", { name: "Plain" });
    expect([plain.status, plain.headers.get(PROFILE_HEADER)]).toEqual([201, null]);
    for (const profile of ANSWER_PROFILE_NAMES.filter((name) => name !== "spec")) {
      const set = await fetch(`${server.url}/_reference/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ answerProfile: profile }),
      });
      expect((await set.json()) as unknown).toMatchObject({ data: { settings: { answerProfile: profile } } });
      const answer = await post("/api/public/organizations", { name: `Org ${profile}` });
      expect([answer.status, answer.headers.get(PROFILE_HEADER)]).toEqual([profile === "status-200" ? 200 : 201, profile]);
    }
  });

  it("takes a numeric id it answered in the data source path, and stores the data source under that organization", async () => {
    server.faults.set({ answerProfile: "other-types" });
    const created = (await (await post("/api/public/organizations", { name: "Numbered" })).json()) as { data: { id: number } };
    expect(typeof created.data.id).toBe("number");
    const answer = await post(`/api/public/organizations/${created.data.id}/data-sources`, {
      type: "direct",
      dialect: "POSTGRES",
      displayName: "WH",
      port: 5432,
    });
    const data = ((await answer.json()) as { data: Record<string, unknown> }).data;
    expect([answer.status, typeof data.id, data.port]).toEqual([201, "number", "5432"]);
    const stored = server.inspect.organizations().find((o) => o.name === "Numbered")!;
    expect(server.inspect.dataSources().filter((d) => d.organizationId === stored.id)).toHaveLength(1);
  });

  it("refuses an unknown profile, naming the ones there are", async () => {
    expect(() => server.faults.set({ answerProfile: "typo" as AnswerProfile })).toThrow(/answerProfile/);
    expect(() => server.faults.set({ answerProfile: "typo" as AnswerProfile })).toThrow(/absent-unset/);
  });
});
