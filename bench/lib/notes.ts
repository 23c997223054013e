/** The method section of latest.md: how each figure was obtained. */
import type { BenchReport } from "./report";

/** Markdown describing the methods behind `report`. */
export function methodNotes(report: BenchReport): string {
  return engineNotes(report) + serverNotes(report) + startupClientMemoryNotes(report);
}

/** The method of the comparisons as a whole and of scenarios A, B, L and N. */
function engineNotes(report: BenchReport): string {
  const plans = report.raw.engine.runs.map((r) => `N=${r.plan.count}: ${r.plan.reps} repetitions${r.plan.skipCheckpoints ? " with `PULUMI_SKIP_CHECKPOINTS=true`" : ""}`).join("; ");
  return `## Method

- **Interleaving, paired ratios and medians.** Every comparison runs both sides back to back
  inside each repetition, alternating which goes first (${plans};
  D: ${report.raw.http.comparisons[0]?.reference.length ?? 0} runs of ${report.raw.http.durationS} s per side; E: ${report.raw.client[0]?.runs.client.length ?? 0} runs of ${report.raw.client[0]?.requests ?? 0} creates per mode).
  Each ratio is the median over repetitions of that repetition's ours ÷ baseline, so the
  machine's drift over minutes cancels within each pair; the absolute figures shown beside it
  are the medians of each side. Ratios, not absolute times, carry the verdicts, since other work
  may share the machine (see the load averages above).
- **A, B: programs.** \`bench/fixtures/ours\` declares one \`Organization\` and N \`DataSource\`s of
  this package; \`bench/fixtures/floor\` declares the same resources (same inputs, the same 31
  output fields plus the inputs, the same seven secret fields, one provider object per type) on a
  no-op dynamic provider whose \`create\` answers at once in the provider process, with no
  \`check\` or \`diff\` (the engine's defaults). Both run as plain JavaScript (no ts-node), on a
  \`file://\` backend, each N on a fresh stack, with the CLI's default \`--parallel\` (8 here).
  \`pulumi up\` runs with \`--skip-preview\`; the preview cost is scenario B. A warm-up stack (N=10) of
  each program runs first and is not counted.
- **N=500 without intermediate checkpoints.** With default settings the file backend rewrites
  the whole state after every step, so \`pulumi up\` of N=500 costs ~160 s per run here for either
  program (measured while writing the bench: ours 160 s, floor 163 s; with
  \`PULUMI_SKIP_CHECKPOINTS=true\` 21 s and 20 s), which does not fit 3 interleaved repetitions of
  both programs into the 20-minute budget. That cost is the engine's and grows with state size,
  so N=500 runs with \`PULUMI_SKIP_CHECKPOINTS=true\` for both programs; N=10 and N=100 use the
  defaults.
${report.raw.scale ? "" : "- **Scenario L (scale) is not in this run**: at full size (one stack of 2,000, then 8 × 250) it takes hours, so `npm run bench` leaves it to `node bench/dist/run.js L` (or `npm run bench -- --with-L`); its recorded run is [scale.md](scale.md).\n"}- **Reference server.** A and B run it in the bench process; D, E and the memory figure run it in
  a child process (\`bench/servers/reference.ts\`) so the load generator and the server each get a
  core. Its background schema sync is replaced by an instant fake
  (\`syncSchema: async () => ({ ok: true, tables: [] })\`): no data source points at a real
  database, and the sync starts only after the create response is written.
${
    report.raw.native
      ? `- **N: the native provider plugin.** \`bench/fixtures/native\` declares the same resources with the same
  inputs by type token (\`analytics:index:Organization\`, \`analytics:index:DataSource\`), as a generated
  SDK would (outputs named as undefined, the credentials secret); its \`Pulumi.yaml\` points the
  engine at a \`pulumi-resource-analytics\` shim that execs \`node dist/native/bin.js\`, whose \`check\`
  validates every input and whose \`create\` sends a real request to the same reference server. It is
  interleaved with \`bench/fixtures/floor\` exactly as A-C are, with checkpoints on at every N
  (${report.raw.native.runs.map((r) => `N=${r.plan.count}: ${r.plan.reps} repetitions`).join("; ")}). Provider peak RSS is the
  kernel's high-water mark (VmHWM) of the plugin process against the floor's \`dynamic-provider\`
  process, polled every 100 ms during each \`pulumi up\`.
`
      : ""
  }- **B: requests.** The reference server's request counter (\`inspect.requestCount()\`) is read
  before and after each preview of our program; \`--expect-no-changes\` makes the CLI fail if the
  preview found any change. [preview.md](preview.md) holds a run of B alone (\`node bench/dist/run.js B\`):
  15 interleaved pairs of previews at N=100, with the interval of the median ratio and each
  preview's CPU split into the dynamic provider's and the rest's.
`;
}

/** The method of scenarios P, C and D (the reference server under load, and Prism). */
function serverNotes(report: BenchReport): string {
  return `- **P: the disk's floor.** Each repetition first times a bare loop of one 8 KiB append and one
  \`fdatasync\` in the directory the state files go to, for as long as one measured run: how many
  flushes a second the disk gives at that moment. With \`--state\` a create is answered after its
  journal line is flushed, so creates per second with \`--state\` divided by that is the creates one
  flush carries. The create-rate target against memory is retired (bench/analysis.md says why).
- **C: footprint.** \`pulumi stack export\` of the first repetition's stacks: total bytes divided by
  the resources in the export, the median bytes of one DataSource entry, and the byte length of
  each type's \`__provider\` (it is stored in both inputs and outputs of every resource).
  *Serialization once per provider type per run* is shown two ways: the fixture wraps
  \`@pulumi/pulumi/runtime/closure/serializeClosure.serializeFunction\` and counts its calls during
  each \`pulumi up\` (2 for any N: one per provider object, cached by the SDK per object), and
  the export holds exactly one distinct \`__provider\` text per resource type.
- **D: load.** autocannon ${report.system.autocannon} in the bench process against 127.0.0.1,
  \`POST /api/public/organizations/{orgId}/data-sources\` with the body shown under Commands
  (${report.raw.http.requestBytes} B). The bare server (\`bench/servers/bare.ts\`) reads and
  \`JSON.parse\`s the body and answers 201 with a captured response of the reference server
  (${report.raw.http.responseBytes} B), so both put the same bytes on the wire. A 2-second warm-up
  of each precedes the runs. autocannon records latency in whole milliseconds, so "0 ms" means
  under 1 ms. Server CPU per request is the server child's user + system time from
  \`/proc/<pid>/stat\` over the run, divided by the requests answered. The calibration runs give
  the bare server a busy-wait per request (\`BENCH_BARE_SPIN_US\`) and compare it with the plain
  bare server in the same repetitions, at 8 connections: what that much work costs here.
- **D: Prism, the peer.** Prism ${report.system.prism ?? ""} (\`@stoplight/prism-cli\`, installed into
  \`bench/peers\` only; its packages ask for Node 24, and it runs as it is on this Node) mocks the reference server's own OpenAPI document
  (\`analytics-reference-server openapi\`) with \`${report.raw.http.prismCommand ?? "prism mock"}\`:
  it validates each request against the document (path, \`Content-Type\`, the body's schema, a
  Bearer key present; a request that breaks it gets 400, 401 or 415, counted as a failure here) and
  answers 201 with a static example built from the response schema
  (${report.raw.http.prismResponseBytes ?? "?"} B). Request logging is off (\`--verboseLevel error\`), as the reference
  server's is in D. It takes the same create (path, key, body) as the other two, at 1 and 8
  connections, between them in each repetition (ABC, then CBA); what it does not do is what
  the reference server adds: know the key, check the organization exists and belongs to the
  key's user, store the data source and answer with it, and queue its sync.
`;
}

/** The method of scenarios S and E, of the charts and of the memory figures. */
function startupClientMemoryNotes(report: BenchReport): string {
  const e = report.raw.client[0];
  return `- **S: start-up.** Each subject is spawned fresh (${report.raw.startup?.reps ?? 0} starts each, the order rotating
  every round, after one untimed start of each). The bench polls the port, sending its first
  request the moment a connection is accepted (retried every millisecond while refused):
  *first answer* is the time from just before the spawn to the complete answer of that request,
  a create without a key (401 from the reference server and Prism, 201 from the bare server);
  *first create* is the time to the first 201 with a key: for the reference server, after
  reading the key it prints at start, an organization and then a data source in it; for
  Prism, one data-source create. The bare node:http server (\`bench/servers/bare.ts\`) is the
  floor: what starting node and listening cost on this machine. \`npx\` runs the same bin from a
  project that depends on this package (\`bench/tmp/npx-project\`, the package linked into its
  node_modules); its extra time is npm's own start-up.
${
    report.raw.singleFile
      ? `- **F: Node.js's floor.** \`bench/fixtures/http2-floor.js\`, run by the same \`node\` as the script plugin,
  interleaved with the plugin forms in the same starts: it listens with \`node:http2\` on 127.0.0.1,
  prints its port on stdout as the plugin does, and answers any gRPC unary call with an empty
  message and \`grpc-status: 0\`. The bench reaches it as it reaches the plugins, the way the engine
  does: gRPC over h2c on one HTTP/2 connection (\`bench/lib/plugin-calls.ts\`), asking it one
  GetPluginInfo where it asks the plugins GetPluginInfo, Configure and Check. Its first answer is
  the floor of the first answered Check, its port line the floor of the port line.
`
      : ""
  }- **Charts.** Vega-Lite specifications over the raw data, rendered to SVG by Vega's headless
  \`View.toSVG()\` (Vega ${report.system.vega ?? ""}, Vega-Lite ${report.system.vegaLite ?? ""}, in \`bench/peers\` only);
  \`npm run bench -- --render\` redraws them from latest.json.
- **E: client.** \`AnalyticsClient.createDataSource\` against \`undici.request\` on an Agent with
  the same settings, reading the JSON body, on a fresh reference server child. One client and one
  Agent live for the whole scenario, as the provider keeps one client for its process. After
  ${e?.warmup ?? 0} creates of warm-up each, the two take turns in blocks of
  ${e === undefined ? 0 : e.requests / e.blocksPerRep} creates in ABBA order (${e?.blocksPerRep ?? 0} blocks per mode per repetition), so drift of the
  machine or of the server's growing store falls on both alike; each repetition's p50 is over its
  blocks' creates. Latency is timed around each create with \`performance.now()\`;
  "8-concurrent" keeps 8 creates in flight. The verdict is on the mean: with 8 in flight against
  a saturated server the mean is 8 ÷ throughput, the work each create costs, while the p50 also
  depends on how the 8 responses happen to bunch up (raw undici's latencies come out bimodal
  there, its p10 well below the client's); the p50 and p99 are shown beside it.
- **Memory.** A fresh reference server child takes ${report.raw.memory.dataSources.toLocaleString("en-US")} creates from autocannon
  (64 connections); RSS is \`VmRSS\` of \`/proc/<pid>/status\` after \`global.gc()\` (the child runs
  with \`--expose-gc\`). The dynamic provider's peak RSS is \`VmHWM\` of every process whose working
  directory is the program and whose command line contains \`dynamic-provider\`, polled every
  100 ms during each \`pulumi up\` (VmHWM is the kernel's high-water mark, so polling misses
  nothing but the last <100 ms); the figure is the maximum over repetitions.
- **Profiling.** \`BENCH_SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=bench/tmp/prof"\` passes
  flags to the server children of D, E and memory.
`;
}
