import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../reference-server";
import type { NoticeLevel } from "./notices";

const PASSWORD = "pw-never-shown-7f3a";

/** The provider core loaded afresh: what it has said once per command starts empty, as in a new provider process. */
async function freshCore(): Promise<typeof import("./operations")> {
  vi.resetModules();
  return import("./operations");
}

/** A create's notices, heard in order. */
function listener(): { heard: Array<[NoticeLevel, string]>; notify: (level: NoticeLevel, message: string) => void } {
  const heard: Array<[NoticeLevel, string]> = [];
  return { heard, notify: (level, message) => void heard.push([level, message]) };
}

describe("a create's answer read tolerantly, against the reference server's answer profiles", () => {
  let server: ReferenceServer;
  let settings: { baseUrl: string; apiKey: string };
  beforeAll(async () => {
    server = await startReferenceServer({ bootstrapUsers: ["alice"], syncSchema: () => new Promise(() => undefined) });
    settings = { baseUrl: server.url, apiKey: server.apiKeys.alice! };
  });
  afterAll(() => server.close());

  const dsInputs = (orgId: string, displayName: string) => ({
    orgId,
    type: "direct",
    dialect: "POSTGRES",
    displayName,
    host: "db",
    port: 5432,
    password: PASSWORD,
  });

  it("records numeric ids as text, decimal strings as integers, and booleans sent as 0 and 1 as null with a warning under each object", async () => {
    server.faults.set({ answerProfile: "other-types" });
    const core = await freshCore();
    const org = listener();
    const created = await core.create("organization", { name: "Acme" }, settings, org.notify);
    expect(created.id).toMatch(/^\d+$/);
    expect(org.heard).toEqual([
      [
        "info",
        "The API answered an organization id as a number (the spec has a string; recorded as a string). Nothing was lost; each field is said once per command.",
      ],
    ]);

    const first = listener();
    const ds = await core.create("dataSource", dsInputs(created.id, "WH"), settings, first.notify);
    expect(ds.outs).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      port: 5432,
      isDemo: null,
      sslEnabled: null,
      createdAt: expect.stringMatching(/^\d{13}$/),
    });
    const warnings = first.heard.filter(([level]) => level === "warning").map(([, message]) => message);
    expect(warnings).toContain(
      `DataSource "WH" (id ${ds.id}): the API answered isDemo as a number (0), where the spec has a boolean; the state records null. If the service answers this way, report it to the provider's maintainers with this warning's text (docs/spec-gaps.md).`,
    );
    const infos = first.heard.filter(([level]) => level === "info").map(([, message]) => message);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatch(
      /^The API answered a data source id as a number \(the spec has a string; recorded as a string\); .*createdAt as a number \(the spec has a string; recorded as a string\)/,
    );

    // A second object: the same lossy fields warn again under it; what lost nothing is not said again.
    const second = listener();
    await core.create("dataSource", dsInputs(created.id, "WH2"), settings, second.notify);
    expect(second.heard.filter(([level]) => level === "info")).toEqual([]);
    expect(second.heard.filter(([level]) => level === "warning")).toHaveLength(warnings.length);
    expect(JSON.stringify([first.heard, second.heard])).not.toContain(PASSWORD);
    // The service holds one organization and two data sources: nothing was created twice.
    expect(server.inspect.dataSources()).toHaveLength(2);
  });

  it("says the fields an answer left out in one line per create, each field once per command", async () => {
    server.faults.set({ answerProfile: "absent-unset" });
    const core = await freshCore();
    const heard = listener();
    const org = await core.create("organization", { name: "Left out" }, settings, heard.notify);
    await core.create("dataSource", dsInputs(org.id, "WH"), settings, heard.notify);
    await core.create("dataSource", dsInputs(org.id, "WH2"), settings, heard.notify);
    expect(heard.heard).toEqual([
      ["info", "The API answered an organization without customAiContext (recorded as null). Nothing was lost; each field is said once per command."],
      [
        "info",
        expect.stringMatching(
          /^The API answered a data source without description, databaseName, username, sshHost, .*lastHealthCheckAttemptAt \(recorded as null\)\. Nothing was lost; each field is said once per command\.$/,
        ),
      ],
    ]);
  });

  it.each(["absent-unset", "status-200", "extra-fields", "new-status-values"] as const)("records every create under %s, with no warning", async (profile) => {
    server.faults.set({ answerProfile: profile });
    const core = await freshCore();
    const heard = listener();
    const org = await core.create("organization", { name: `Acme ${profile}` }, settings, heard.notify);
    const ds = await core.create("dataSource", dsInputs(org.id, "WH"), settings, heard.notify);
    expect(ds.id).toMatch(/^ds_/);
    expect(ds.outs).toMatchObject({ orgId: org.id, displayName: "WH", password: PASSWORD, sshHost: null });
    expect(heard.heard.filter(([level]) => level === "warning")).toEqual([]);
    if (profile === "extra-fields") expect(ds.outs).toMatchObject({ region: "local", workspace: { id: "ws_reference", plan: "trial" } });
    if (profile === "new-status-values") expect(ds.outs).toMatchObject({ lastSyncStatus: "QUEUED", lastHealthStatus: "UNKNOWN" });
  });

  it("reports a partial create, with the id and every output that can be recorded, when the answer cannot be recorded whole", async () => {
    server.faults.set({ unrecordableAnswerNext: 1 });
    const core = await freshCore();
    const failure = await core.create("organization", { name: "Deep" }, settings, () => undefined).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "AnalyticsError", code: "ANALYTICS_PARTIAL_CREATE", id: expect.stringMatching(/^org_/) });
    const partial = failure as import("./partial-create").PartialCreateError;
    expect(partial.outputs).toMatchObject({ id: partial.id, name: "Deep", slug: "deep", statusObservedAt: expect.any(String) });
    expect(partial.outputs).not.toHaveProperty("nested");
    expect(partial.message).toBe(
      `Organization "Deep" (id ${partial.id}) was created in the analytics service, but not all of its outputs could be recorded ` +
        "(the answer's field nested is nested more than 1000 levels deep, deeper than Pulumi's property values reliably carry, so it was left out). " +
        "The stack's state records the object with its id, so no second create is sent for it: run `pulumi up` again to finish.",
    );
    // The engine shows a partial create's reasons and keeps them as initErrors: they name the object too.
    expect(partial.reasons).toEqual([partial.message]);
    expect(server.inspect.organizations().filter((o) => o.name === "Deep")).toHaveLength(1);
  });
});

describe("a differing value quoted in a warning", () => {
  it("never quotes a credential the create sent, even when the service echoes it", async () => {
    const echo = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const sent = JSON.parse(body) as { password: string; displayName: string };
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: { id: "ds_echo", displayName: sent.displayName, port: sent.password, isDemo: false } }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const heard = listener();
    try {
      const core = await freshCore();
      const settings = { baseUrl: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`, apiKey: "analytics_key_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345" };
      const created = await core.create(
        "dataSource",
        { orgId: "org_1", type: "direct", dialect: "POSTGRES", displayName: "WH", password: PASSWORD },
        settings,
        heard.notify,
      );
      expect(created.outs).toMatchObject({ id: "ds_echo", port: null, password: PASSWORD });
    } finally {
      echo.close();
    }
    expect(heard.heard).toContainEqual([
      "warning",
      expect.stringContaining('the API answered port as a string ("[redacted]"), where the spec has an integer or null; the state records null.'),
    ]);
    expect(JSON.stringify(heard.heard)).not.toContain(PASSWORD);
  });
});
