/**
 * The plugin's gRPC wire against the engine's own client: test/fixtures/grpc-interop, a Go program
 * on grpc-go and Pulumi's generated bindings at the pinned engine's versions, dialled as the engine
 * dials a provider plugin (rpcutil's options, its 400 MiB receive limit, dialPlugin's wait for a
 * ready connection), with a raw golang.org/x/net/http2 client for what grpc-go never sends. Each
 * case runs against its own plugin (`dist/native/bin.js`, started as the engine starts it, with
 * the stand-in engine's address), shut down by closing its stdin before the assertions, so every
 * call it had is finished and told; each asserts the status, the message and what reached the
 * reference server's API.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { resolvePinnedGoTool, type PinnedGoTool } from "../../toolchain/src/pulumi-cli";
import { call, startEngine, startPlugin, struct, type EngineLogEntry } from "../support/native-plugin";
import { repoRoot } from "../support/pulumi-workspace";

const MODULE_DIR = path.join(repoRoot, "test", "fixtures", "grpc-interop");
const ENGINE_MODULE_DIR = path.join(repoRoot, "toolchain", "go", "pulumi");
const MiB = 1024 * 1024;
const ORG_URN = (name: string): string => `urn:pulumi:test::interop::analytics:index:Organization::${name}`;

/** The version a go.mod requires of `module` (its require lines). */
const required = (dir: string, module: string): string | undefined =>
  new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[./]/g, "\\$&")} (v\\S+)`, "m").exec(fs.readFileSync(path.join(dir, "go.mod"), "utf8"))?.[1];

/** The interop program as a pinned Go tool of the project cache, keyed by a digest of its go.mod, go.sum and sources. */
const INTEROP: PinnedGoTool = {
  name: "grpc-interop",
  version: required(MODULE_DIR, "google.golang.org/grpc")!.slice(1),
  moduleDir: MODULE_DIR,
  goPackage: ".",
  binary: "grpc-interop",
  sources: fs
    .readdirSync(MODULE_DIR)
    .filter((file) => file.endsWith(".go"))
    .sort(),
};

/** What the program prints for a case. */
interface InteropResult {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** One case's outcome: the program's result, and what the API, the engine's log and stderr got meanwhile. */
interface CaseOutcome {
  result: InteropResult;
  apiRequests: number;
  logs: EngineLogEntry[];
  stderr: string;
}

describe("the plugin's gRPC wire against grpc-go dialled as the engine dials", () => {
  let binary: string;
  let server: ReferenceServer;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    binary = await resolvePinnedGoTool(INTEROP);
    server = await startReferenceServer({ port: 0, bootstrapUsers: ["alice"], inspection: true });
    engine = await startEngine();
  }, 600_000);
  afterAll(async () => {
    engine?.close();
    await server?.close();
  });

  /** Runs the program's case `name` until it exits; `during` sees it running. */
  function runProgram(port: number, name: string, n: number | undefined, during: (child: ChildProcessWithoutNullStreams) => void): Promise<InteropResult> {
    const child = spawn(binary, ["-addr", `127.0.0.1:${port}`, "-case", name, ...(n === undefined ? [] : ["-n", String(n)])], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    during(child);
    return new Promise((resolve, reject) =>
      child.on("close", (code) =>
        code === 0 ? resolve(JSON.parse(stdout) as InteropResult) : reject(new Error(`grpc-interop -case ${name} exited ${code}: ${stderr}`)),
      ),
    );
  }

  /** Runs a case against a plugin of its own, configured for the reference server, and shuts that plugin down. */
  async function runCase(name: string, n?: number, during: (child: ChildProcessWithoutNullStreams) => void = () => undefined): Promise<CaseOutcome> {
    const plugin = await startPlugin(engine.address);
    await call(
      plugin.client,
      "configure",
      new proto.ConfigureRequest().setName("second").setArgs(struct({ baseUrl: server.url, apiKey: server.apiKeys.alice! })),
    );
    plugin.client.close();
    const before = server.inspect.requestCount();
    engine.logs.length = 0;
    const result = await runProgram(plugin.port, name, n, during);
    plugin.child.stdin.end();
    expect(await plugin.exited).toBe(0);
    return { result, apiRequests: server.inspect.requestCount() - before, logs: engine.logs.splice(0), stderr: plugin.stderr() };
  }

  /** The API's organizations named `name`. */
  const organizations = (name: string) => server.inspect.organizations().filter((org) => org.name === name);

  it("builds from the engine's own versions of grpc-go, Pulumi's SDK, x/net and protobuf, resolving no module the engine's build does not", () => {
    for (const module of ["github.com/pulumi/pulumi/sdk/v3", "google.golang.org/grpc", "golang.org/x/net", "google.golang.org/protobuf"]) {
      expect(required(MODULE_DIR, module), module).toBe(required(ENGINE_MODULE_DIR, module));
    }
    const engineSums = new Set(fs.readFileSync(path.join(ENGINE_MODULE_DIR, "go.sum"), "utf8").split("\n"));
    expect(
      fs
        .readFileSync(path.join(MODULE_DIR, "go.sum"), "utf8")
        .split("\n")
        .filter((line) => line !== "" && !engineSums.has(line)),
    ).toEqual([]);
  });

  it("answers a request of 0 bytes (GetPluginInfo's Empty)", async () => {
    const { result, apiRequests } = await runCase("empty");
    expect([result.code, result.data]).toEqual(["OK", { requestBytes: 0, version: (require("../../package.json") as { version: string }).version }]);
    expect(apiRequests).toBe(0);
  });

  it.each([
    ["64 KiB + 1", 64 * 1024 + 1],
    ["5 MiB, over grpc-go's default 4 MiB both ways", 5 * MiB],
    ["110 MiB", 110 * MiB],
  ])(
    "answers a Check of %s, its inputs echoed back whole",
    async (_label, size) => {
      const { result, apiRequests } = await runCase("check-bytes", size);
      expect([result.code, result.message, result.data?.requestBytes, result.data?.failures]).toEqual(["OK", "", size, 0]);
      expect(result.data?.echoedNameLength).toBeGreaterThan(size - 100);
      expect(result.data?.responseBytes).toBeGreaterThan(size - 100);
      expect(apiRequests).toBe(0);
    },
    300_000,
  );

  it("reads a length prefix split across DATA frames (raw HTTP/2)", async () => {
    const { result, apiRequests } = await runCase("split-prefix");
    expect([result.code, result.data?.echoed, apiRequests]).toEqual(["OK", "Split", 0]);
  });

  it("refuses two messages in one call with INTERNAL, creating nothing (raw HTTP/2)", async () => {
    const { result, apiRequests } = await runCase("two-messages");
    expect([result.code, result.message, apiRequests, organizations("Twice")]).toEqual([
      "Internal",
      "The request carries more than one message; a unary call carries exactly one.",
      0,
      [],
    ]);
  });

  it("fails a create with a 1 ms deadline DEADLINE_EXCEEDED; each object it made anyway is named in the engine's log and stderr", async () => {
    const { result, apiRequests, logs, stderr } = await runCase("deadline-1ms");
    expect([result.code, result.message]).toEqual(["DeadlineExceeded", "context deadline exceeded"]);
    const made = organizations("Deadline");
    expect(apiRequests).toBe(made.length);
    expect(logs).toEqual(
      made.map((org) => ({
        severity: LogSeverity.WARNING,
        urn: ORG_URN("deadline"),
        message: expect.stringContaining(`Organization "Deadline" (id ${org.id}) was created in the analytics service`),
      })),
    );
    for (const { message } of logs) expect(stderr).toContain(`warning: ${message}\n`);
  });

  it("names in the engine's log and stderr the object of a create cancelled while the slow API held it", async () => {
    server.faults.set({ routes: { createOrganization: { latencyMs: 1000 } } });
    try {
      const before = server.inspect.requestCount();
      const { result, apiRequests, logs, stderr } = await runCase("cancel-create", undefined, (child) => {
        const poll = setInterval(() => server.inspect.requestCount() > before && (clearInterval(poll), child.stdin.end("cancel\n")), 10);
        child.on("close", () => clearInterval(poll));
      });
      expect([result.code, result.message, apiRequests]).toEqual(["Canceled", "context canceled", 1]);
      const [org] = organizations("Cancelled");
      expect(organizations("Cancelled")).toHaveLength(1);
      expect(logs).toEqual([
        {
          severity: LogSeverity.WARNING,
          urn: ORG_URN("cancelled"),
          message: expect.stringMatching(
            new RegExp(`^Organization "Cancelled" \\(id ${org!.id}\\) was created in the analytics service, but the engine stopped waiting`),
          ),
        },
      ]);
      expect(stderr).toContain(`warning: ${logs[0]!.message}\n`);
    } finally {
      server.faults.clear();
    }
  });

  it("answers 200 concurrent creates on one connection, each object created once", async () => {
    const { result, apiRequests } = await runCase("concurrent", 200);
    expect([result.code, result.data?.codes]).toEqual(["OK", { OK: 200 }]);
    const ids = (result.data?.ids as string[]).slice().sort();
    const made = server.inspect.organizations().filter((org) => /^Concurrent \d{3}$/.test(org.name));
    expect([apiRequests, new Set(ids).size, made.map((org) => org.id).sort()]).toEqual([200, 200, ids]);
  }, 120_000);

  it("answers an unknown method UNIMPLEMENTED, naming it", async () => {
    const { result, apiRequests } = await runCase("unknown-method");
    expect([result.code, result.message, apiRequests]).toEqual(["Unimplemented", "The analytics provider does not implement Nope.", 0]);
  });

  it("answers grpc.health.v1.Health/Check SERVING for the server and its service, NOT_FOUND for another", async () => {
    const { result } = await runCase("health");
    expect([result.code, result.data]).toEqual(["OK", { server: "SERVING", provider: "SERVINGOK", other: "NotFound" }]);
  });

  it("acknowledges PING frames before, inside and after a call's message, and answers the call (raw HTTP/2)", async () => {
    const { result } = await runCase("keepalive");
    expect([result.code, result.data?.pingAcks, result.data?.echoed]).toEqual(["OK", 3, "Pinged"]);
  });

  it("caps an error of 100,000 characters at 16 KiB, its head and tail kept, and logs it whole under its resource", async () => {
    const { result, logs, apiRequests } = await runCase("long-error", 100_000);
    expect(result.code).toBe("Unknown");
    expect(result.message).toMatch(
      /^The analytics provider has no resource type "analytics:index:T+ \[\.\.\. \d+ characters left out; the provider logged the whole message \.\.\.\] T+"\.$/,
    );
    expect(result.message.length).toBeLessThanOrEqual(16 * 1024);
    const whole = `The analytics provider has no resource type "${(result.data?.urn as string).split("::")[2]}".`;
    expect([whole.length, logs, apiRequests]).toEqual([
      100_000,
      [{ severity: LogSeverity.WARNING, urn: result.data?.urn, message: `The whole error: ${whole}` }],
      0,
    ]);
  });

  it("answers a gzip-compressed message UNIMPLEMENTED with grpc-accept-encoding identity (raw HTTP/2)", async () => {
    const { result, apiRequests } = await runCase("gzip");
    expect([result.code, result.message, result.data?.grpcAcceptEncoding, apiRequests]).toEqual([
      "Unimplemented",
      "The analytics provider does not accept the message encoding gzip: send messages uncompressed (identity).",
      "identity",
      0,
    ]);
  });

  it("answers content-type text/plain with HTTP 415 (raw HTTP/2)", async () => {
    const { result } = await runCase("text-plain");
    expect([result.data?.httpStatus, result.code]).toEqual(["415", "Internal"]);
  });

  it("refuses a prefix declaring 400 MiB + 1 at once, with no body sent, and resets the stream (raw HTTP/2)", async () => {
    const { result } = await runCase("over-limit");
    expect([result.code, result.message, result.data?.reset]).toEqual([
      "ResourceExhausted",
      `The request's message is ${400 * MiB + 1} bytes, more than the ${400 * MiB} the analytics provider accepts (the Pulumi engine's own limit).`,
      "NO_ERROR",
    ]);
  });
});
