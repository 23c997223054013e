/**
 * Hostile provider settings: a base URL with a user name and password in it, a non-HTTP scheme, a
 * service that redirects to another host, an API key with control characters or 10 MB long, and a
 * PULUMI_CONFIG that is not JSON. Each, through the native plugin over gRPC (CheckConfig,
 * Configure, Create) and through the dynamic providers' create, is a clear error naming the
 * setting, never quoting the value, and creates nothing (counted on the reference server).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalyticsClient } from "../../src/client/client";
import { fetchTransport } from "../../src/client/transport";
import { nativeTypeToken, organizationSpec } from "../../src/kinds";
import { SECRET_SIG, SIG_KEY } from "../../src/native/property-values";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { create as dynamicCreate } from "../../src/provider-core/operations";
import { call, startEngine, startPlugin, struct, type Plugin } from "../support/native-plugin";

const ORG = `urn:pulumi:hostile::native::${nativeTypeToken(organizationSpec)}::org`;
const PROVIDER = "urn:pulumi:hostile::native::pulumi:providers:analytics::explicit";
const PASSWORD = "url-password-4c3b2a19";
const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

interface HostileCase {
  what: string;
  setting: "apiKey" | "baseUrl";
  /** The settings to configure. */
  settings: (url: string, key: string) => { apiKey: string; baseUrl: string };
  /** What the error says is wrong. */
  problem: RegExp;
  /** Text that must never show. */
  never: (key: string) => string[];
}

const CASES: HostileCase[] = [
  {
    what: "a base URL with a user name and password",
    setting: "baseUrl",
    settings: (url, key) => ({ apiKey: key, baseUrl: url.replace("http://", `http://admin:${PASSWORD}@`) }),
    problem: /The analytics base URL must not carry a user name or password/,
    never: () => [PASSWORD],
  },
  {
    what: "a base URL of another scheme",
    setting: "baseUrl",
    settings: (url, key) => ({ apiKey: key, baseUrl: url.replace("http://", "ftp://") }),
    problem: /The analytics base URL must use http or https, got a ftp: URL/,
    never: () => [],
  },
  {
    what: "an API key with control characters",
    setting: "apiKey",
    settings: (url, key) => ({ apiKey: `${key}\r\nx-injected: 1`, baseUrl: url }),
    problem: /The analytics API key must be printable ASCII with no spaces, and this one holds a control character/,
    never: (key) => [key],
  },
  {
    what: "an API key 10 MB long",
    setting: "apiKey",
    settings: (url, key) => ({ apiKey: key.repeat(Math.ceil((10 * 1024 * 1024) / key.length)), baseUrl: url }),
    problem: /The analytics API key must be at most 4096 characters long \(real keys are far shorter\), and this one has \d{8}/,
    never: (key) => [key],
  },
];

/** Where a setting is named, as the provider's advice names it. */
const NAMED = { apiKey: /analytics:apiKey/, baseUrl: /analytics:baseUrl/ };

describe("hostile provider settings", () => {
  let server: ReferenceServer;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  let plugin: Plugin;
  let redirector: http.Server;
  let redirectorUrl: string;
  const redirected: string[] = [];
  const created = () => server.inspect.organizations().length + server.inspect.dataSources().length;

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
    // A service that sends every request on to another host (the reference server, by another name).
    redirector = http.createServer((req, res) => {
      redirected.push(req.url ?? "");
      req.resume();
      res.writeHead(307, { location: `http://localhost:${server.port}${req.url ?? "/"}` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    engine = await startEngine();
    plugin = await startPlugin(engine.address);
  });
  afterAll(async () => {
    plugin?.client.close();
    plugin?.child.kill();
    engine?.close();
    await new Promise((resolve) => redirector?.close(resolve));
    await server?.close();
  });

  /** Text the user can see: the given messages, the engine's log and the plugin's stderr. */
  const expectNeverShown = (texts: string[], never: string[]) => {
    for (const value of never)
      for (const text of [...texts, JSON.stringify(engine.logs), plugin.stderr()]) expect(text.includes(value), `${value.slice(0, 12)}… shown`).toBe(false);
  };

  it.each(CASES)("fails $what in the plugin's CheckConfig and create, and in the dynamic create, naming the setting, creating nothing", async (c) => {
    const settings = c.settings(server.url, server.apiKeys.alice!);
    const before = server.inspect.requestCount();

    const checked = await call<proto.CheckRequest, proto.CheckResponse>(
      plugin.client,
      "checkConfig",
      new proto.CheckRequest().setUrn(PROVIDER).setNews(struct({ ...settings, apiKey: secret(settings.apiKey) })),
    );
    const failures = checked.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
    expect(failures).toEqual([{ property: c.setting, reason: expect.stringMatching(c.problem) }]);
    expect(failures[0]!.reason).toMatch(NAMED[c.setting]);

    await call(plugin.client, "configure", new proto.ConfigureRequest().setName("explicit").setArgs(struct({ ...settings, apiKey: secret(settings.apiKey) })));
    const native = await call(plugin.client, "create", new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Never created" }))).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(native).toMatchObject({ code: grpc.status.UNKNOWN, details: expect.stringMatching(c.problem) });
    expect((native as grpc.ServiceError).details).toMatch(NAMED[c.setting]);

    const dynamic = await dynamicCreate("organization", { name: "Never created" }, settings).catch((e: Error) => e);
    expect(dynamic).toBeInstanceOf(Error);
    expect((dynamic as Error).message).toMatch(c.problem);
    expect((dynamic as Error).message).toMatch(NAMED[c.setting]);

    expectNeverShown([JSON.stringify(failures), (native as grpc.ServiceError).details, (dynamic as Error).message], c.never(server.apiKeys.alice!));
    expect(server.inspect.requestCount()).toBe(before);
    expect(created()).toBe(0);
  });

  it("does not follow a redirect to another host: the key and the body stay, the error names the base URL", async () => {
    const before = server.inspect.requestCount();
    const settings = { apiKey: server.apiKeys.alice!, baseUrl: redirectorUrl };
    const checked = await call<proto.CheckRequest, proto.CheckResponse>(
      plugin.client,
      "checkConfig",
      new proto.CheckRequest().setUrn(PROVIDER).setNews(struct(settings)),
    );
    expect(checked.getFailuresList()).toEqual([]);
    await call(plugin.client, "configure", new proto.ConfigureRequest().setName("explicit").setArgs(struct({ ...settings, apiKey: secret(settings.apiKey) })));
    const native = (await call(plugin.client, "create", new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Redirected" }))).catch(
      (e: grpc.ServiceError) => e,
    )) as grpc.ServiceError;
    const dynamic = (await dynamicCreate("organization", { name: "Redirected" }, settings).catch((e: Error) => e)) as Error;
    const viaFetch = (await new AnalyticsClient({ ...settings, transport: fetchTransport() })
      .createOrganization({ name: "Redirected" })
      .catch((e: Error) => e)) as Error;
    const redirect = new RegExp(
      `redirected the request to http://localhost:${server.port}, and redirects are not followed.*organization "Redirected" was not created.*(analytics:baseUrl|baseUrl)`,
    );
    for (const message of [native.details, dynamic.message, viaFetch.message]) expect(message).toMatch(redirect);
    expect(redirected).toHaveLength(3);
    expectNeverShown([native.details, dynamic.message, viaFetch.message], [server.apiKeys.alice!]);
    expect(server.inspect.requestCount()).toBe(before);
    expect(created()).toBe(0);
  });

  it("fails the default provider's Configure when PULUMI_CONFIG is not JSON, naming it, never quoting it", async () => {
    const text = `{"analytics:apiKey": "${server.apiKeys.alice!}", "analytics:baseUrl": "${server.url}"`;
    const broken = await startPlugin(engine.address, [], { PULUMI_CONFIG: text });
    try {
      const configured = (await call(broken.client, "configure", new proto.ConfigureRequest().setName("default")).catch(
        (e: grpc.ServiceError) => e,
      )) as grpc.ServiceError;
      expect(configured.details).toMatch(/^The stack config in the PULUMI_CONFIG environment variable is not a JSON object/);
      const createdAnyway = (await call(broken.client, "create", new proto.CreateRequest().setUrn(ORG).setProperties(struct({ name: "Never created" }))).catch(
        (e: grpc.ServiceError) => e,
      )) as grpc.ServiceError;
      expect(createdAnyway.details).toMatch(/No analytics API key is set/);
      for (const message of [configured.details, createdAnyway.details, broken.stderr()]) expect(message).not.toContain(server.apiKeys.alice!);
      expect(created()).toBe(0);
    } finally {
      broken.client.close();
      broken.child.kill();
      await broken.exited;
    }
  });
});
