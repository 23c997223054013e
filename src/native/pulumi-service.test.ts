/**
 * The built plugin (`dist/native/bin.js`, run `npm run build` first) driven over gRPC with the
 * engine's own bindings, against a reference server: what the engine sends, what comes back.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http2 from "node:http2";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { BinaryReader, BinaryWriter } from "google-protobuf";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dataSourceSpec, nativeTypeToken, organizationSpec } from "../kinds";
import { startReferenceServer, type ReferenceServer } from "../reference-server";
import { startFlakyServer } from "../../test/support/flaky-server";
import { PLUGIN_BIN, call, startEngine, startPlugin, struct, type Plugin } from "../../test/support/native-plugin";
import { FLUSH_GRACE_MS } from "./grpc/grpc-server";
import { startPluginServer } from "./pulumi-service";
import type { NativeProvider } from "./provider";
import { SECRET_SIG, SIG_KEY, UNKNOWN } from "./property-values";

const ORG = `urn:pulumi:test::native::${nativeTypeToken(organizationSpec)}::org`;
const DS = `urn:pulumi:test::native::${nativeTypeToken(dataSourceSpec)}::wh`;
const PASSWORD = "grpc-password-5e6f7a";
const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

/** `grpc.health.v1.Health/Check` of `service`: the status number it answers. */
function healthCheck(client: grpc.Client, service: string): Promise<number> {
  const serialize = (name: string): Buffer => {
    const writer = new BinaryWriter();
    if (name !== "") writer.writeString(1, name);
    return Buffer.from(writer.getResultBuffer());
  };
  const deserialize = (bytes: Buffer): number => {
    const reader = new BinaryReader(bytes);
    return reader.nextField() && reader.getFieldNumber() === 1 ? reader.readEnum() : 0;
  };
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest("/grpc.health.v1.Health/Check", serialize, deserialize, service, (error, status) => (error ? reject(error) : resolve(status!))),
  );
}

describe("the plugin over gRPC", () => {
  let server: ReferenceServer;
  let plugin: Plugin;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
    engine = await startEngine();
    plugin = await startPlugin(engine.address);
  });
  afterAll(async () => {
    plugin?.client.close();
    plugin?.child.kill();
    engine?.close();
    await server?.close();
  });

  it("answers plugin info and the schema, and UNIMPLEMENTED where the engine falls back", async () => {
    const info = await call<Empty, { getVersion(): string }>(plugin.client, "getPluginInfo", new Empty());
    expect(info.getVersion()).toBe((require("../../package.json") as { version: string }).version);
    const schema = await call<proto.GetSchemaRequest, proto.GetSchemaResponse>(plugin.client, "getSchema", new proto.GetSchemaRequest());
    expect(JSON.parse(schema.getSchema())).toMatchObject({ name: "analytics" });
    for (const [method, request] of [
      ["handshake", new proto.ProviderHandshakeRequest()],
      ["parameterize", new proto.ParameterizeRequest()],
      ["construct", new proto.ConstructRequest()],
      ["call", new proto.CallRequest()],
      ["invoke", new proto.InvokeRequest()],
    ] as const) {
      await expect(call(plugin.client, method, request), method).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
    }
  });

  it("checks config: the key comes back a secret", async () => {
    const request = new proto.CheckRequest()
      .setUrn("urn:pulumi:test::native::pulumi:providers:analytics::second")
      .setNews(struct({ baseUrl: server.url, apiKey: server.apiKeys.alice! }));
    const response = await call<proto.CheckRequest, proto.CheckResponse>(plugin.client, "checkConfig", request);
    expect(response.getInputs()!.toJavaScript()).toEqual({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) });
    expect(response.getFailuresList()).toHaveLength(0);
  });

  it("configures, checks, diffs, previews, creates, refuses an import, refreshes and deletes", async () => {
    const configure = new proto.ConfigureRequest().setName("second").setArgs(struct({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) }));
    const configured = await call<proto.ConfigureRequest, proto.ConfigureResponse>(plugin.client, "configure", configure);
    expect([configured.getAcceptsecrets(), configured.getSupportspreview()]).toEqual([true, true]);

    const bad = await call<proto.CheckRequest, proto.CheckResponse>(
      plugin.client,
      "check",
      new proto.CheckRequest().setUrn(DS).setNews(struct({ type: "jdbc", port: -1 })),
    );
    expect(
      bad
        .getFailuresList()
        .map((f) => f.getProperty())
        .sort(),
    ).toEqual(["dialect", "displayName", "orgId", "port", "type"]);

    const dsNews = {
      orgId: UNKNOWN,
      type: "direct",
      dialect: "POSTGRES",
      displayName: "WH",
      host: "127.0.0.1",
      port: 5432,
      password: PASSWORD,
      sslEnabled: false,
    };
    const checked = await call<proto.CheckRequest, proto.CheckResponse>(plugin.client, "check", new proto.CheckRequest().setUrn(DS).setNews(struct(dsNews)));
    expect(checked.getInputs()!.toJavaScript()).toMatchObject({ orgId: UNKNOWN, password: secret(PASSWORD), sshEnabled: false });

    const preview = await call<proto.CreateRequest, proto.CreateResponse>(
      plugin.client,
      "create",
      new proto.CreateRequest().setUrn(DS).setProperties(checked.getInputs()).setPreview(true),
    );
    expect(preview.getProperties()!.toJavaScript()).toMatchObject({ id: UNKNOWN, lastSyncStatus: UNKNOWN, password: secret(PASSWORD) });
    expect(server.inspect.requestCount()).toBe(0);

    const org = await call<proto.CreateRequest, proto.CreateResponse>(
      plugin.client,
      "create",
      new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Acme" })),
    );
    expect(org.getId()).toMatch(/^org_/);
    const dsChecked = await call<proto.CheckRequest, proto.CheckResponse>(
      plugin.client,
      "check",
      new proto.CheckRequest().setUrn(DS).setNews(struct({ ...dsNews, orgId: org.getId() })),
    );
    const ds = await call<proto.CreateRequest, proto.CreateResponse>(
      plugin.client,
      "create",
      new proto.CreateRequest().setUrn(DS).setProperties(dsChecked.getInputs()),
    );
    const state = ds.getProperties()!.toJavaScript();
    expect(state).toMatchObject({
      id: ds.getId(),
      orgId: org.getId(),
      password: secret(PASSWORD),
      lastSyncStatus: "PENDING",
      statusObservedAt: expect.any(String),
    });
    expect(server.inspect.dataSources().map((d) => d.id)).toEqual([ds.getId()]);

    const none = await call<proto.DiffRequest, proto.DiffResponse>(
      plugin.client,
      "diff",
      new proto.DiffRequest().setUrn(DS).setId(ds.getId()).setOlds(ds.getProperties()).setNews(dsChecked.getInputs()),
    );
    expect(none.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);
    const renamed = struct({ ...(dsChecked.getInputs()!.toJavaScript() as Record<string, unknown>), displayName: "WH2", password: secret("rotated") });
    const diff = await call<proto.DiffRequest, proto.DiffResponse>(
      plugin.client,
      "diff",
      new proto.DiffRequest().setUrn(DS).setId(ds.getId()).setOlds(ds.getProperties()).setNews(renamed),
    );
    expect([diff.getChanges(), diff.getReplacesList(), diff.getDeletebeforereplace()]).toEqual([
      proto.DiffResponse.DiffChanges.DIFF_SOME,
      ["displayName", "password"],
      false,
    ]);

    const imported = call(
      plugin.client,
      "read",
      new proto.ReadRequest().setUrn(`urn:pulumi:test::native::${nativeTypeToken(organizationSpec)}::x`).setId("org_1"),
    );
    await expect(imported).rejects.toMatchObject({
      code: grpc.status.UNKNOWN,
      details: expect.stringMatching(/^Organization "x" cannot be imported: the analytics API has no read endpoint/),
    });
    const error = (await imported.catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.metadata.get("analytics-error-code")).toEqual(["ANALYTICS_IMPORT_UNSUPPORTED"]);
    expect(error.details).not.toMatch(/\n\s+at /);

    const refreshed = await call<proto.ReadRequest, proto.ReadResponse>(
      plugin.client,
      "read",
      new proto.ReadRequest().setUrn(DS).setId(ds.getId()).setProperties(ds.getProperties()).setInputs(dsChecked.getInputs()),
    );
    expect([refreshed.getId(), refreshed.getProperties()!.toJavaScript()]).toEqual([ds.getId(), state]);

    await call(plugin.client, "delete", new proto.DeleteRequest().setUrn(DS).setId(ds.getId()).setProperties(ds.getProperties()));
    // An update (asked only after a partial create) sends nothing and answers the recorded outputs.
    const updated = await call<proto.UpdateRequest, proto.UpdateResponse>(
      plugin.client,
      "update",
      new proto.UpdateRequest().setUrn(DS).setId(ds.getId()).setOlds(ds.getProperties()).setNews(dsChecked.getInputs()),
    );
    expect(updated.getProperties()!.toJavaScript()).toEqual(state);
    expect(server.inspect.dataSources()).toHaveLength(1);

    // Notices go to the engine's log under the resource (the engine hides a native plugin's stderr).
    expect(engine.logs).toEqual([
      {
        severity: LogSeverity.INFO,
        urn: DS,
        message: `DataSource "WH" (id ${ds.getId()}) will be replaced because displayName, password changed: the analytics API cannot update objects.`,
      },
      {
        severity: LogSeverity.WARNING,
        urn: DS,
        message: expect.stringMatching(/^DataSource "WH" \(id ds_\w+\) was left in the analytics service: .*`npx analytics-orphans`/),
      },
    ]);
    for (const credential of [PASSWORD, "rotated", server.apiKeys.alice!]) expect(plugin.stderr() + JSON.stringify(engine.logs)).not.toContain(credential);
    expect(server.inspect.requestCount()).toBe(2);
  });

  it("sends a partial create as ErrorResourceInitFailed in the status details: the id, the outputs that can be recorded (credentials secret) and why", async () => {
    await call(
      plugin.client,
      "configure",
      new proto.ConfigureRequest().setName("partial").setArgs(struct({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) })),
    );
    const org = await call<proto.CreateRequest, proto.CreateResponse>(
      plugin.client,
      "create",
      new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Partial" })),
    );
    server.faults.set({ unrecordableAnswerNext: 1 });
    const inputs = {
      orgId: org.getId(),
      type: "direct",
      dialect: "POSTGRES",
      displayName: "Deep",
      password: secret(PASSWORD),
      sslEnabled: true,
      sshEnabled: false,
    };
    const failure = (await call(plugin.client, "create", new proto.CreateRequest().setUrn(DS).setProperties(struct(inputs))).catch(
      (error: grpc.ServiceError) => error,
    )) as grpc.ServiceError;
    const created = server.inspect.dataSources().find((d) => d.displayName === "Deep")!;
    expect(failure.details).toMatch(
      new RegExp(`^DataSource "Deep" \\(id ${created.id}\\) was created in the analytics service, but not all of its outputs could be recorded`),
    );
    expect(failure.metadata.get("analytics-error-code")).toEqual(["ANALYTICS_PARTIAL_CREATE"]);
    const [bytes] = failure.metadata.get("grpc-status-details-bin") as Buffer[];
    const status = Status.deserializeBinary(bytes!);
    expect([status.getCode(), status.getMessage()]).toEqual([grpc.status.UNKNOWN, failure.details]);
    const [detail] = status.getDetailsList();
    expect(detail!.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
    const initFailed = proto.ErrorResourceInitFailed.deserializeBinary(detail!.getValue_asU8());
    expect(initFailed.getId()).toBe(created.id);
    expect(initFailed.getProperties()!.toJavaScript()).toMatchObject({
      id: created.id,
      displayName: "Deep",
      password: secret(PASSWORD),
      lastSyncStatus: "PENDING",
      statusObservedAt: expect.any(String),
    });
    expect(initFailed.getProperties()!.toJavaScript()).not.toHaveProperty("nested");
    expect(initFailed.getReasonsList()).toEqual([failure.details]);
    expect(failure.details).toMatch(/could be recorded \(the answer's field nested is nested more than 1000 levels deep/);
    expect(JSON.stringify([failure.details, initFailed.getReasonsList()])).not.toContain(PASSWORD);
  });

  it("starts, configures and answers the schema without loading zod, undici or @grpc/grpc-js", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "native-lazy-"));
    try {
      const probe = path.join(dir, "probe.js");
      const loaded = path.join(dir, "loaded.json");
      fs.writeFileSync(
        probe,
        `process.on("exit", () => require("fs").writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));\n`,
      );
      const own = await startPlugin(engine.address, ["--require", probe], { LOADED_MODULES_FILE: loaded });
      await call(own.client, "getPluginInfo", new Empty());
      await call(own.client, "checkConfig", new proto.CheckRequest().setNews(struct({ baseUrl: server.url, apiKey: "k" })));
      await call(own.client, "configure", new proto.ConfigureRequest().setName("default").setArgs(struct({ baseUrl: server.url })));
      await call(own.client, "getSchema", new proto.GetSchemaRequest());
      own.client.close();
      own.child.stdin.end();
      expect(await own.exited).toBe(0);
      const packages = new Set(
        (JSON.parse(fs.readFileSync(loaded, "utf8")) as string[]).flatMap(
          (file) => /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1] ?? [],
        ),
      );
      expect(packages.has("google-protobuf")).toBe(true);
      expect([...packages].filter((name) => ["zod", "undici", "pg", "@grpc/grpc-js"].includes(name))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits cleanly when the engine closes its stdin", async () => {
    const own = await startPlugin(engine.address);
    await call(own.client, "cancel", new Empty());
    own.client.close();
    own.child.stdin.end();
    expect(await own.exited).toBe(0);
  });
});

describe("retries of concurrent creates over gRPC", () => {
  it("logs each create's retry to the engine under its own resource's URN, naming its own object", async () => {
    const flaky = await startFlakyServer(2);
    const engine = await startEngine();
    const plugin = await startPlugin(engine.address);
    const [alpha, beta] = ["alpha", "beta"].map((name) => `urn:pulumi:test::native::${nativeTypeToken(organizationSpec)}::${name}`) as [string, string];
    try {
      await call(
        plugin.client,
        "configure",
        new proto.ConfigureRequest().setName("second").setArgs(struct({ baseUrl: flaky.url, apiKey: secret("analytics_key_never-print-me-0123456789abcdef") })),
      );
      const create = (urn: string, name: string) =>
        call<proto.CreateRequest, proto.CreateResponse>(plugin.client, "create", new proto.CreateRequest().setUrn(urn).setProperties(struct({ name })));
      const created = await Promise.all([create(alpha, "Alpha"), create(beta, "Beta")]);
      expect(created.map((c) => c.getId())).toEqual(["org_Alpha", "org_Beta"]);
      expect(engine.logs.slice().sort((a, b) => a.message.localeCompare(b.message))).toEqual([
        { severity: LogSeverity.INFO, urn: alpha, message: 'Retrying the create of organization "Alpha" in 0 s (attempt 1 failed: HTTP 503).' },
        { severity: LogSeverity.INFO, urn: beta, message: 'Retrying the create of organization "Beta" in 0 s (attempt 1 failed: HTTP 503).' },
      ]);
    } finally {
      plugin.client.close();
      plugin.child.kill();
      engine.close();
      await flaky.close();
    }
  });
});

describe("pulumi-resource-analytics --version", () => {
  it("prints the package's version and the Node.js running it, and exits 0 without serving", () => {
    const result = spawnSync(process.execPath, [PLUGIN_BIN, "--version"], { encoding: "utf8", timeout: 60_000 });
    const { version } = require("../../package.json") as { version: string };
    expect([result.status, result.stdout, result.stderr]).toEqual([0, `${version} (Node.js ${process.version})\n`, ""]);
  });
});

describe("shutting the plugin server down", () => {
  it("answers the create in flight, refuses new calls, and closes by the flush grace after that answer although a peer holds a call open", async () => {
    let release!: () => void;
    let started!: () => void;
    const createStarted = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const provider = {
      create: async () => {
        started();
        await gate;
        return { id: "org_held", properties: { name: "Held" } };
      },
    } as unknown as NativeProvider;
    const plugin = await startPluginServer(provider);
    const client = new ResourceProviderClient(`127.0.0.1:${plugin.port}`, grpc.credentials.createInsecure());
    // A peer that opened a call and never sends its request, as a connection that does not close gracefully does.
    const peer = http2.connect(`http://127.0.0.1:${plugin.port}`);
    peer.on("error", () => undefined);
    const stalled = peer.request({
      ":method": "POST",
      ":path": "/pulumirpc.ResourceProvider/GetPluginInfo",
      "content-type": "application/grpc",
      te: "trailers",
    });
    stalled.on("error", () => undefined);
    try {
      await new Promise<void>((resolve) => peer.once("remoteSettings", () => resolve()));
      const created = call<proto.CreateRequest, proto.CreateResponse>(
        client,
        "create",
        new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Held" })),
      );
      await createStarted;
      // A fake clock from here on: the server closes when that clock passes the flush grace, not a moment of real time.
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
      let closed = false;
      const closing = plugin.shutdown().then(() => (closed = true));
      await expect(call(client, "getPluginInfo", new Empty())).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      await vi.advanceTimersByTimeAsync(10 * FLUSH_GRACE_MS);
      expect(closed).toBe(false);
      release();
      expect((await created).getId()).toBe("org_held");
      await vi.advanceTimersByTimeAsync(FLUSH_GRACE_MS);
      await closing;
      expect(closed).toBe(true);
    } finally {
      vi.useRealTimers();
      client.close();
      peer.destroy();
      await plugin.shutdown();
    }
  });
});

describe("the health check", () => {
  it("answers SERVING while the plugin serves, NOT_SERVING once it is shutting down, and nothing once it is closed", async () => {
    let release!: () => void;
    let started!: () => void;
    const createStarted = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const provider = { create: async () => (started(), await gate, { id: "org_held", properties: {} }) } as unknown as NativeProvider;
    const plugin = await startPluginServer(provider);
    const client = new ResourceProviderClient(`127.0.0.1:${plugin.port}`, grpc.credentials.createInsecure());
    try {
      expect(await healthCheck(client, "")).toBe(1);
      expect(await healthCheck(client, "pulumirpc.ResourceProvider")).toBe(1);
      expect(await healthCheck(client, "grpc.health.v1.Health")).toBe(1);
      await expect(healthCheck(client, "pulumirpc.LanguageRuntime")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: "unknown service" });
      const created = call<proto.CreateRequest, proto.CreateResponse>(
        client,
        "create",
        new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Held" })),
      );
      await createStarted;
      const closing = plugin.shutdown();
      expect(await healthCheck(client, "")).toBe(2);
      release();
      expect((await created).getId()).toBe("org_held");
      await closing;
      await expect(healthCheck(client, "")).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    } finally {
      client.close();
      await plugin.shutdown();
    }
  });
});

describe("errors and creates the engine does not wait for", () => {
  let server: ReferenceServer;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  let plugin: Plugin;
  beforeAll(async () => {
    // Each organization's create is answered a second after it arrives, long after the call's cancel.
    server = await startReferenceServer({
      port: 0,
      bootstrapUsers: ["alice"],
      inspection: true,
      faults: { routes: { createOrganization: { latencyMs: 1000 } } },
    });
    engine = await startEngine();
    plugin = await startPlugin(engine.address);
    await call(
      plugin.client,
      "configure",
      new proto.ConfigureRequest().setName("second").setArgs(struct({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) })),
    );
  });
  afterAll(async () => {
    plugin?.client.close();
    plugin?.child.kill();
    engine?.close();
    await server?.close();
  });

  it("caps an error of 100,000 characters in the status and logs it whole under its resource", async () => {
    const type = `analytics:index:${"T".repeat(100_000)}`;
    const urn = `urn:pulumi:test::native::${type}::long`;
    const error = (await call(plugin.client, "check", new proto.CheckRequest().setUrn(urn).setNews(struct({}))).catch(
      (e: grpc.ServiceError) => e,
    )) as grpc.ServiceError;
    const whole = `The analytics provider has no resource type ${JSON.stringify(type)}.`;
    expect(error.code).toBe(grpc.status.UNKNOWN);
    expect(error.details).toMatch(
      /^The analytics provider has no resource type "analytics:index:T+ \[\.\.\. \d+ characters left out; the provider logged the whole message \.\.\.\] T+"\.$/,
    );
    expect(error.details.length).toBeLessThanOrEqual(16_384);
    expect(engine.logs).toContainEqual({ severity: LogSeverity.WARNING, urn, message: `The whole error: ${whole}` });
  });

  it("sends no create past its 1 ms deadline, or names what it made: each object it left is in the engine's log and stderr", async () => {
    const own = await startPlugin(engine.address);
    const urn = `urn:pulumi:test::native::${nativeTypeToken(organizationSpec)}::deadline`;
    await call(
      own.client,
      "configure",
      new proto.ConfigureRequest().setName("second").setArgs(struct({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) })),
    );
    await call(own.client, "check", new proto.CheckRequest().setUrn(urn).setNews(struct({ name: "Deadline" })));
    const create = call(own.client, "create", new proto.CreateRequest().setUrn(urn).setProperties(struct({ name: "Deadline" })), 1);
    await expect(create).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    // Shutting down waits for the calls in flight: a create sent before the deadline passed is answered and told by then.
    own.client.close();
    own.child.stdin.end();
    expect(await own.exited).toBe(0);
    const made = server.inspect.organizations().filter((org) => org.name === "Deadline");
    const told = engine.logs.filter((entry) => entry.urn === urn).map((entry) => entry.message);
    expect(told).toEqual(made.map((org) => expect.stringContaining(`Organization "Deadline" (id ${org.id}) was created in the analytics service`)));
    for (const message of told) expect(own.stderr()).toContain(`warning: ${message}\n`);
  });

  it("tells the engine's log and stderr the id of an object whose create the caller cancelled after it was sent", async () => {
    const urn = `urn:pulumi:test::native::${nativeTypeToken(organizationSpec)}::cancelled`;
    let cancel!: () => void;
    const before = server.inspect.requestCount();
    const outcome = new Promise<grpc.ServiceError | null>((resolve) => {
      const unary = plugin.client.create(new proto.CreateRequest().setUrn(urn).setProperties(struct({ name: "Cancelled" })), (error) => resolve(error));
      cancel = () => unary.cancel();
    });
    await vi.waitFor(() => expect(server.inspect.requestCount()).toBe(before + 1), { timeout: 30_000, interval: 10 });
    cancel();
    expect(await outcome).toMatchObject({ code: grpc.status.CANCELLED });
    // The object the service made once its delay was over, and the words that name it.
    await vi.waitFor(() => expect(engine.logs.filter((entry) => entry.urn === urn)).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const made = server.inspect.organizations().filter((org) => org.name === "Cancelled");
    expect(made).toHaveLength(1);
    const org = made[0];
    const warning = engine.logs.find((entry) => entry.urn === urn)!;
    expect(warning).toEqual({
      severity: LogSeverity.WARNING,
      urn,
      message: expect.stringMatching(
        new RegExp(`^Organization "Cancelled" \\(id ${org!.id}\\) was created in the analytics service, but the engine stopped waiting`),
      ),
    });
    expect(plugin.stderr()).toContain(`warning: ${warning.message}\n`);
  });
});
