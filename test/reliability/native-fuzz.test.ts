/**
 * The native plugin's gRPC boundary fuzzed: generated CheckConfig, Configure, Check, Diff and
 * Create requests for both kinds (wrong types, nulls, deep nesting, 70,000-character and
 * lone-surrogate strings, the engine's unknown marker, secrets, output values, assets, resource
 * references, unknown fields), sent to the built plugin over real gRPC, against a reference server
 * with inspection. Held: every call answers (none hangs, the process stays up); every check
 * failure names a property and what is allowed; preview-time calls send no API request; no
 * credential shows outside a secret, in an answer, an error, the engine's log or stderr.
 */
import fc from "fast-check";
import * as grpc from "@grpc/grpc-js";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceSpec, inputNames, nativeTypeToken, organizationSpec, secretFieldNames, type KindSpec } from "../../src/kinds";
import { SECRET_SIG, SIG_KEY, UNKNOWN, isSecret } from "../../src/native/property-values";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { call, startEngine, startPlugin, struct, type Plugin } from "../support/native-plugin";
import { TIMEOUT_MS, plaintextHits, recordFigures, scale } from "./support/campaign";

/** Cases per property: a few thousand in all in `npm test`, twenty times more in the campaign. */
const RUNS = { checkConfig: scale(200, 4_000), check: scale(600, 12_000), diff: scale(400, 8_000), preview: scale(500, 10_000), create: scale(300, 6_000) };
const SEED = 20_260_425;
/** A call not answered within this is a hang. */
const DEADLINE_MS = 15_000;
const KINDS: readonly KindSpec[] = [organizationSpec, dataSourceSpec];
/** The gRPC request each call's `what` starts with. */
const KIND_NAMES: Record<string, string> = {
  checkConfig: "CheckConfig",
  configure: "Configure",
  check: "Check",
  diff: "Diff",
  preview: "Create (preview)",
  create: "Create",
};
const urnOf = (spec: KindSpec, name = "fuzzed") => `urn:pulumi:fuzz::native::${nativeTypeToken(spec)}::${name}`;

/** The engine's signatures (pulumi/sdk/go/common/resource/sig). */
const SIG = {
  secret: SECRET_SIG,
  output: "d0e6a833031e9bbcd3f4e8bde6ca49a4",
  asset: "c44067f5952c0a294b673a41bacd8c17",
  archive: "0def7320c3a5731c473e5ecbe6d01bc7",
  resource: "5cf8f73096256a8f31e491e813e4eb8e",
};
const secret = (value: unknown) => ({ [SIG_KEY]: SIG.secret, value });

/** A credential: recognizable anywhere it leaks, and long enough for {@link plaintextHits}. */
const credentialArb = fc.nat().map((n) => `CRED${n.toString(36).padStart(8, "0")}x`);
const CREDENTIAL = /CRED[0-9a-z]{8}x/g;

const scalarArb = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ maxLength: 20, unit: "binary" }),
  fc.constantFrom("\ud800", "a\udc00b", "\udfff\ud800", "", " ", "\u0000", "\u202e", "日本語", "__proto__", "5432", "direct", "POSTGRES"),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 65535, 65536, 2 ** 53, 1e308, 0.5),
  fc.boolean(),
  fc.constant(null),
  fc.constant(UNKNOWN),
);

/** Nested `depth` levels deep, in objects and arrays by turns. */
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : depth % 2 ? { a: nested(depth - 1, leaf) } : [nested(depth - 1, leaf)]);

const { value: valueArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: scalarArb },
    tie("value").map(secret),
    fc
      .record({ value: tie("value"), secret: fc.boolean(), known: fc.boolean() })
      .map((o) => ({ [SIG_KEY]: SIG.output, ...o, dependencies: ["urn:pulumi:fuzz::native::x::y"] })),
    fc.constantFrom(
      { [SIG_KEY]: SIG.asset, text: "asset" },
      { [SIG_KEY]: SIG.archive, assets: {} },
      { [SIG_KEY]: SIG.resource, urn: "urn:pulumi:fuzz::native::x::y", id: "x" },
      { [SIG_KEY]: "not-a-signature" },
    ),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 4 }),
  ),
}));

/**
 * Rare, since the protobuf library takes milliseconds over each: a 70,000-character string, or a
 * value nested up to 64 levels (the engine's own protobuf library stops at 100).
 */
const rareArb = fc.oneof(
  fc.constant("x".repeat(70_000)),
  fc.integer({ min: 20, max: 64 }).chain((depth) => scalarArb.map((leaf) => nested(depth, leaf))),
);

/** A value of the right type for a field, or one of the wrong ones. */
function fieldArb(spec: KindSpec, name: string): fc.Arbitrary<unknown> {
  const field = spec.inputs[name]!;
  const secretField = field.secret === true;
  const good: fc.Arbitrary<unknown> = secretField
    ? credentialArb
    : field.values
      ? fc.constantFrom(...Object.keys(field.values))
      : field.type === "integer"
        ? fc.integer({ min: field.range?.[0] ?? 0, max: field.range?.[1] ?? 65535 })
        : field.type === "boolean"
          ? fc.boolean()
          : fc.string({ minLength: 1, maxLength: 30 });
  const wrong: fc.Arbitrary<unknown> = secretField
    ? fc.oneof(
        credentialArb.map((c) => [c]),
        credentialArb.map((c) => ({ c })),
        valueArb,
      )
    : valueArb;
  return fc.oneof(
    { weight: 60, arbitrary: good },
    { weight: 20, arbitrary: good.map(secret) },
    { weight: 10, arbitrary: fc.constant(UNKNOWN) },
    { weight: 10, arbitrary: fc.constant(null) },
    { weight: 20, arbitrary: wrong },
    { weight: 1, arbitrary: rareArb },
  );
}

/** A property map for `spec`: declared inputs (each may be absent), plus unknown fields now and then. */
function propertiesArb(spec: KindSpec, orgId: string): fc.Arbitrary<Record<string, unknown>> {
  const declared = Object.fromEntries(
    inputNames(spec).map((name) => [
      name,
      name === "orgId" ? fc.oneof({ weight: 6, arbitrary: fc.constant(orgId) }, fieldArb(spec, name)) : fieldArb(spec, name),
    ]),
  );
  const extraKey = fc.oneof(
    fc.constantFrom("__provider", "__proto__", "constructor", "toString", "unknownField", "id", "apiKey", "", "urn"),
    fc.string({ maxLength: 12, unit: "binary" }),
  );
  return fc
    .tuple(
      fc.record(declared, { requiredKeys: [] }),
      fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, fc.array(fc.tuple(extraKey, valueArb), { maxLength: 3 })),
    )
    .map(([values, extras]) => {
      const map: Record<string, unknown> = {};
      for (const [key, value] of extras) Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
      return Object.assign(map, values);
    });
}

/** Every credential inside `value`, wherever it sits. */
function credentialsIn(value: unknown, found = new Set<string>()): Set<string> {
  for (const match of JSON.stringify(value).matchAll(CREDENTIAL)) found.add(match[0]);
  return found;
}

/** `value` with every secret-wrapped part removed: what the engine shows in plain text. */
function plainPart(value: unknown): unknown {
  if (isSecret(value)) return "[secret]";
  if (Array.isArray(value)) return value.map(plainPart);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainPart(v)]));
  return value;
}

/** A rejected call: the gRPC status it came back with (a hang fails DEADLINE_EXCEEDED, a crash UNAVAILABLE). */
async function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: grpc.ServiceError }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: error as grpc.ServiceError };
  }
}

describe("the native plugin's gRPC boundary, fuzzed", () => {
  let server: ReferenceServer;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  let plugin: Plugin;
  let orgId: string;
  /** Every credential any case sent (generated ones only ever sit in credential fields). */
  const sent = new Set<string>();
  const hits: string[] = [];
  /** Audits one visible text: no generated credential (by its pattern) and not the API key. */
  const visible = {
    push: ({ where, text }: { where: string; text: string }) => {
      for (const match of text.matchAll(CREDENTIAL)) hits.push(`${match[0]} in ${where}`);
      hits.push(...plaintextHits([{ where, text }], [server.apiKeys.alice!]));
    },
  };
  const tally = { cases: 0, failures: 0, rejections: 0, created: 0 };
  /** Calls answered, by request kind (the first word of each call's `what`). */
  const perKind = new Map<string, number>();

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
    engine = await startEngine();
    plugin = await startPlugin(engine.address);
    await configure({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) });
    const org = await call<proto.CreateRequest, proto.CreateResponse>(
      plugin.client,
      "create",
      new proto.CreateRequest().setUrn(urnOf(organizationSpec, "owner")).setProperties(struct({ name: "Fuzz owner" })),
    );
    orgId = org.getId();
  });
  afterAll(async () => {
    plugin?.client.close();
    plugin?.child.kill();
    engine?.close();
    await server?.close();
  });

  const configure = (args: Record<string, unknown>, name = "explicit") =>
    call<proto.ConfigureRequest, proto.ConfigureResponse>(
      plugin.client,
      "configure",
      new proto.ConfigureRequest().setName(name).setArgs(struct(args)),
      DEADLINE_MS,
    );

  /** What every answer holds: it came (no hang, no crash), and a rejection is a message with no stack and no credential. */
  function answered<T>(result: Awaited<ReturnType<typeof outcome<T>>>, what: string): void {
    tally.cases++;
    const kind = what.split(" ")[0]!;
    perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
    if (result.ok) return;
    tally.rejections++;
    expect([grpc.status.DEADLINE_EXCEEDED, grpc.status.UNAVAILABLE, grpc.status.INTERNAL], `${what}: ${result.error.details}`).not.toContain(result.error.code);
    expect(result.error.details.trim(), what).not.toBe("");
    expect(result.error.details, what).not.toMatch(/\n\s+at |TypeError|RangeError|undefined is not|Cannot read/);
    visible.push({ where: `${what}: error`, text: result.error.details });
  }

  /** A check's answer: each failure names a property and what is allowed; no credential outside a secret. */
  function checkedAnswer(response: proto.CheckResponse, allowed: readonly string[], what: string): void {
    for (const failure of response.getFailuresList()) {
      tally.failures++;
      expect(allowed, `${what}: ${failure.getProperty()}`).toContain(failure.getProperty());
      expect(failure.getReason(), what).toMatch(/must|is required|is not an input of \w+; its inputs are/);
      visible.push({ where: `${what}: failure`, text: failure.getReason() });
    }
    visible.push({ where: `${what}: inputs`, text: JSON.stringify(plainPart(response.getInputs()?.toJavaScript() ?? {})) });
  }

  it(
    `answers ${RUNS.checkConfig} CheckConfig and Configure requests, the key kept secret`,
    async () => {
      const settingArb = fc.oneof(credentialArb, credentialArb.map(secret), valueArb);
      await fc.assert(
        fc.asyncProperty(fc.record({ apiKey: settingArb, baseUrl: fc.oneof(fc.constant(server.url), valueArb) }, { requiredKeys: [] }), async (args) => {
          credentialsIn(args).forEach((c) => sent.add(c));
          const request = new proto.CheckRequest().setUrn("urn:pulumi:fuzz::native::pulumi:providers:analytics::p").setNews(struct(args));
          const result = await outcome(call<proto.CheckRequest, proto.CheckResponse>(plugin.client, "checkConfig", request, DEADLINE_MS));
          answered(result, "checkConfig");
          expect(result.ok).toBe(true);
          if (result.ok) checkedAnswer(result.value, ["apiKey", "baseUrl"], "checkConfig");
          answered(await outcome(configure(args)), "configure");
        }),
        { numRuns: RUNS.checkConfig, seed: SEED },
      );
      await configure({ baseUrl: server.url, apiKey: secret(server.apiKeys.alice!) });
      expect(server.inspect.requestCount()).toBe(1);
    },
    TIMEOUT_MS,
  );

  it(
    `answers ${RUNS.check} Check requests, each failure naming the property and what is allowed, with no API request`,
    async () => {
      const before = server.inspect.requestCount();
      for (const spec of KINDS) {
        await fc.assert(
          fc.asyncProperty(propertiesArb(spec, orgId), async (news) => {
            credentialsIn(news).forEach((c) => sent.add(c));
            const request = new proto.CheckRequest().setUrn(urnOf(spec)).setNews(struct(news));
            const result = await outcome(call<proto.CheckRequest, proto.CheckResponse>(plugin.client, "check", request, DEADLINE_MS));
            answered(result, `check ${spec.typeName}`);
            expect(result.ok, result.ok ? "" : result.error.details).toBe(true);
            if (!result.ok) return;
            checkedAnswer(result.value, [...inputNames(spec), ...Object.keys(news)], `check ${spec.typeName}`);
            const inputs = result.value.getInputs()!.toJavaScript() as Record<string, unknown>;
            for (const name of secretFieldNames(spec)) if (inputs[name] !== undefined && inputs[name] !== null) expect(isSecret(inputs[name]), name).toBe(true);
          }),
          { numRuns: Math.ceil(RUNS.check / KINDS.length), seed: SEED },
        );
      }
      expect(server.inspect.requestCount()).toBe(before);
    },
    TIMEOUT_MS,
  );

  it(
    `answers ${RUNS.diff} Diff requests with no API request, naming only declared inputs`,
    async () => {
      const before = server.inspect.requestCount();
      for (const spec of KINDS) {
        await fc.assert(
          fc.asyncProperty(propertiesArb(spec, orgId), propertiesArb(spec, orgId), fc.string({ maxLength: 20 }), async (olds, news, id) => {
            credentialsIn([olds, news]).forEach((c) => sent.add(c));
            const request = new proto.DiffRequest().setUrn(urnOf(spec)).setId(id).setOlds(struct(olds)).setNews(struct(news));
            const result = await outcome(call<proto.DiffRequest, proto.DiffResponse>(plugin.client, "diff", request, DEADLINE_MS));
            answered(result, `diff ${spec.typeName}`);
            expect(result.ok, result.ok ? "" : result.error.details).toBe(true);
            if (result.ok) for (const name of result.value.getReplacesList()) expect(inputNames(spec)).toContain(name);
          }),
          { numRuns: Math.ceil(RUNS.diff / KINDS.length), seed: SEED },
        );
      }
      expect(server.inspect.requestCount()).toBe(before);
    },
    TIMEOUT_MS,
  );

  it(
    `answers ${RUNS.preview} previewed Create requests with no API request, credentials secret`,
    async () => {
      const before = server.inspect.requestCount();
      for (const spec of KINDS) {
        await fc.assert(
          fc.asyncProperty(propertiesArb(spec, orgId), async (news) => {
            credentialsIn(news).forEach((c) => sent.add(c));
            const request = new proto.CreateRequest().setUrn(urnOf(spec)).setProperties(struct(news)).setPreview(true);
            const result = await outcome(call<proto.CreateRequest, proto.CreateResponse>(plugin.client, "create", request, DEADLINE_MS));
            answered(result, `preview ${spec.typeName}`);
            if (!result.ok) return;
            const properties = result.value.getProperties()!.toJavaScript() as Record<string, unknown>;
            visible.push({ where: `preview ${spec.typeName}: properties`, text: JSON.stringify(plainPart(properties)) });
            expect(properties.id).toBe(UNKNOWN);
          }),
          { numRuns: Math.ceil(RUNS.preview / KINDS.length), seed: SEED },
        );
      }
      expect(server.inspect.requestCount()).toBe(before);
    },
    TIMEOUT_MS,
  );

  it(
    `answers ${RUNS.create} Create requests: each creates one object or none, and says why not`,
    async () => {
      for (const spec of KINDS) {
        await fc.assert(
          fc.asyncProperty(propertiesArb(spec, orgId), async (news) => {
            credentialsIn(news).forEach((c) => sent.add(c));
            const count = () => server.inspect.organizations().length + server.inspect.dataSources().length;
            const before = count();
            const request = new proto.CreateRequest().setUrn(urnOf(spec)).setProperties(struct(news));
            const result = await outcome(call<proto.CreateRequest, proto.CreateResponse>(plugin.client, "create", request, DEADLINE_MS));
            answered(result, `create ${spec.typeName}`);
            expect(count()).toBe(before + (result.ok ? 1 : 0));
            if (!result.ok) return;
            tally.created++;
            visible.push({ where: `create ${spec.typeName}: properties`, text: JSON.stringify(plainPart(result.value.getProperties()!.toJavaScript())) });
          }),
          { numRuns: Math.ceil(RUNS.create / KINDS.length), seed: SEED },
        );
      }
    },
    TIMEOUT_MS,
  );

  it("kept every credential out of plain text, and the process up", async () => {
    expect(plugin.child.exitCode).toBeNull();
    expect(sent.size).toBeGreaterThan(100);
    visible.push({ where: "engine log", text: JSON.stringify(engine.logs) });
    visible.push({ where: "stderr", text: plugin.stderr() });
    expect(hits).toEqual([]);
    expect(tally.failures).toBeGreaterThan(100);
    expect(tally.created).toBeGreaterThan(10);
    // Several thousand cases of each request kind in the campaign, Create included.
    expect([...perKind.keys()].sort()).toEqual(Object.keys(KIND_NAMES).sort());
    expect(Math.min(...perKind.values())).toBeGreaterThanOrEqual(scale(200, 4_000));
    const kinds = [...perKind].map(([kind, n]) => `${n} ${KIND_NAMES[kind] ?? kind}`).join(", ");
    recordFigures({
      item: 7,
      path: "native",
      scenario: `native plugin fuzz: ${tally.cases} gRPC calls (${kinds}; ${tally.failures} check failures, ${tally.rejections} rejected, ${tally.created} created)`,
      faultsInjected: tally.cases,
      operations: tally.cases,
      duplicates: 0,
      lostObjects: 0,
      crashes: plugin.child.exitCode === null ? 0 : 1,
      serverErrors: 0,
      plaintextHits: hits.length,
    });
  });
});
