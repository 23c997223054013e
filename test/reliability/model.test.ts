/**
 * Reliability item 6: a model-based test of the reference server with fast-check's `fc.commands`.
 * Random sequences of valid and invalid creates by several users across several organizations;
 * after every command the server's store equals the model, and no answer is ever a 5xx.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORGANIZATIONS_PATH, dataSourcesPath } from "../../src/contract";
import { slugify, startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { TIMEOUT_MS, recordFigures, scale } from "./support/campaign";

const USERS = ["ann", "ben", "cat"] as const;
type User = (typeof USERS)[number];

interface ModelOrg {
  id: string;
  owner: User;
  name: string;
  slug: string;
  dataSources: Array<{ id: string; displayName: string }>;
}

interface Model {
  orgs: ModelOrg[];
}

interface Real {
  server: ReferenceServer;
  keys: Record<User, string>;
  stats: { requests: number; fiveXx: number };
}

async function post(
  real: Real,
  path: string,
  auth: string | undefined,
  body: string,
): Promise<{ status: number; json: { data?: { id: string; slug?: string }; error?: { title: string; detail: string } } }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth !== undefined) headers.authorization = auth;
  const res = await fetch(`${real.server.url}${path}`, { method: "POST", headers, body });
  real.stats.requests++;
  if (res.status >= 500) real.stats.fiveXx++;
  expect(res.status).toBeLessThan(500);
  return { status: res.status, json: (await res.json()) as never };
}

/** The store, as inspection shows it, must be exactly the model. */
function checkStore(model: Model, real: Real): void {
  const orgs = real.server.inspect.organizations();
  expect(orgs.map((o) => ({ id: o.id, owner: o.ownerUserName, name: o.name, slug: o.slug, dataSourceIds: o.dataSourceIds, trial: o.trial !== null }))).toEqual(
    model.orgs.map((o) => ({
      id: o.id,
      owner: o.owner,
      name: o.name,
      slug: o.slug,
      dataSourceIds: o.dataSources.map((d) => d.id),
      trial: o.dataSources.length > 0,
    })),
  );
  const dataSources = real.server.inspect.dataSources();
  const expected = model.orgs.flatMap((o) => o.dataSources.map((d) => ({ ...d, organizationId: o.id })));
  expect(dataSources.map((d) => ({ id: d.id, displayName: d.displayName, organizationId: d.organizationId })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
    expected.sort((a, b) => a.id.localeCompare(b.id)),
  );
}

/** The slug the server must give `name`, given the slugs already taken. */
function expectedSlug(model: Model, name: string): string {
  const taken = new Set(model.orgs.map((o) => o.slug));
  const base = slugify(name);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

const nameArb = fc.oneof(
  fc.constantFrom("Acme", "acme", "ACME!", "Ünïcødé Org", "日本", ""),
  fc.string({ minLength: 0, maxLength: 20 }),
  fc.string({ minLength: 250, maxLength: 260 }),
);
const authArb = fc.constantFrom<"own" | "missing" | "garbled" | "unknown">("own", "own", "own", "own", "missing", "garbled", "unknown");

class CreateOrg implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: User,
    readonly name: string,
    readonly auth: "own" | "missing" | "garbled" | "unknown",
    readonly extraField: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const body = JSON.stringify(this.extraField ? { name: this.name, slug: "x" } : { name: this.name });
    const reply = await post(real, ORGANIZATIONS_PATH, authHeader(real, this.user, this.auth), body);
    if (this.auth !== "own") {
      expect(reply.status).toBe(401);
    } else if (this.extraField || this.name.length < 1 || this.name.length > 255) {
      expect(reply.status).toBe(400);
    } else {
      expect(reply.status).toBe(201);
      const slug = expectedSlug(model, this.name);
      expect(reply.json.data?.slug).toBe(slug);
      model.orgs.push({ id: reply.json.data!.id, owner: this.user, name: this.name, slug, dataSources: [] });
    }
    checkStore(model, real);
  }
  toString(): string {
    return `CreateOrg(${this.user}, ${JSON.stringify(this.name)}, ${this.auth}, extra=${this.extraField})`;
  }
}

type DsBody = "valid" | "minimal" | "badPort" | "missingDialect" | "wrongType" | "notJson";

class CreateDataSource implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: User,
    readonly orgPick: number,
    readonly target: "existing" | "missing",
    readonly body: DsBody,
    readonly auth: "own" | "missing" | "garbled" | "unknown",
    readonly displayName: string,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const org = this.target === "existing" && model.orgs.length > 0 ? model.orgs[this.orgPick % model.orgs.length] : undefined;
    const orgId = org?.id ?? "org_AAAAAAAAAAAAAAAAAAAA";
    const reply = await post(real, dataSourcesPath(orgId), authHeader(real, this.user, this.auth), this.rawBody());
    const validBody = this.body === "valid" || this.body === "minimal";
    if (this.auth !== "own") expect(reply.status).toBe(401);
    else if (!validBody) expect(reply.status).toBe(400);
    else if (org === undefined || org.owner !== this.user) expect(reply.status).toBe(404);
    else {
      expect(reply.status).toBe(201);
      org.dataSources.push({ id: reply.json.data!.id, displayName: this.displayName });
    }
    checkStore(model, real);
  }
  private rawBody(): string {
    const base = { type: "direct", dialect: "POSTGRES", displayName: this.displayName };
    switch (this.body) {
      case "valid":
        return JSON.stringify({ ...base, host: "127.0.0.1", port: 5432, username: "u", password: "model-secret-password", sslEnabled: false });
      case "minimal":
        return JSON.stringify(base);
      case "badPort":
        return JSON.stringify({ ...base, port: 70000 });
      case "missingDialect":
        return JSON.stringify({ type: "direct", displayName: this.displayName });
      case "wrongType":
        return JSON.stringify({ ...base, sslEnabled: "yes" });
      case "notJson":
        return `{"type": "direct", "displayName": ${JSON.stringify(this.displayName)}`;
    }
  }
  toString(): string {
    return `CreateDataSource(${this.user}, org#${this.orgPick}/${this.target}, ${this.body}, ${this.auth})`;
  }
}

function authHeader(real: Real, user: User, auth: "own" | "missing" | "garbled" | "unknown"): string | undefined {
  switch (auth) {
    case "own":
      return `Bearer ${real.keys[user]}`;
    case "missing":
      return undefined;
    case "garbled":
      return `Bearer ${real.keys[user].slice(0, -3)}#!?`;
    case "unknown":
      return `Bearer analytics_key_${"Z".repeat(32)}`;
  }
}

const commands = [
  fc.tuple(fc.constantFrom(...USERS), nameArb, authArb, fc.boolean()).map(([u, n, a, x]) => new CreateOrg(u, n, a, x)),
  fc
    .tuple(
      fc.constantFrom(...USERS),
      fc.nat(20),
      fc.constantFrom<"existing" | "missing">("existing", "existing", "existing", "missing"),
      fc.constantFrom<DsBody>("valid", "valid", "minimal", "badPort", "missingDialect", "wrongType", "notJson"),
      authArb,
      fc.string({ minLength: 1, maxLength: 30 }),
    )
    .map(([u, o, t, b, a, d]) => new CreateDataSource(u, o, t, b, a, d)),
];

describe("item 6: model-based test of the reference server", () => {
  let real: Real;
  beforeAll(async () => {
    const server = await startReferenceServer({
      bootstrapUsers: [...USERS],
      syncSchema: async () => ({ ok: true, tables: [] }),
    });
    real = { server, keys: server.apiKeys as Record<User, string>, stats: { requests: 0, fiveXx: 0 } };
  });
  afterAll(() => real.server.close());

  it(
    "keeps the store equal to the model through random valid and invalid creates, never answering 5xx",
    async () => {
      const runs = scale(50, 2000);
      let commandsRun = 0;
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: scale(25, 60) }), async (cmds) => {
          await real.server.reset();
          const model: Model = { orgs: [] };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          commandsRun += [...cmds].length;
        }),
        { numRuns: runs },
      );
      expect(real.stats.fiveXx).toBe(0);
      expect(commandsRun).toBeGreaterThan(runs);
      recordFigures({
        item: 6,
        path: "service",
        scenario: `fc.commands: ${runs} runs, ${commandsRun} commands, 3 users`,
        faultsInjected: 0,
        operations: real.stats.requests,
        duplicates: 0,
        lostObjects: 0,
        crashes: 0,
        serverErrors: real.stats.fiveXx,
        plaintextHits: 0,
      });
    },
    TIMEOUT_MS,
  );
});
