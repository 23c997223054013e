/**
 * The single files built on linux-x64 for other platforms (tools/build-plugin-binary.js), run here
 * before they ship, from the test run's release folder:
 * - linux-arm64, under qemu-user as the engine's own plugin: installed with `pulumi plugin install
 *   --file`, the engine execs it (the kernel hands an AArch64 ELF to qemu-aarch64 through
 *   binfmt_misc, which .ci/run registers; QEMU_LD_PREFIX finds its dynamic loader) through the YAML
 *   example's preview with no request, up, a no-change preview, refresh and destroy, with no
 *   credential in state or output, while the process serving is qemu running that very file;
 * - windows-amd64, under Debian's Wine 8 (`wine64`), where V8 stops at start because Wine lacks
 *   the placeholder reservations of VirtualAlloc2 that V8 takes whenever Windows exports it: a
 *   copy differing in one byte, the name V8 looks that function up by, takes V8's path for
 *   Windows without it and passes tools/smoke-plugin.js (a start that Wine ends with nothing
 *   printed, as Wine 8 at times does on a loaded machine, is started again: test/support/wine.ts);
 * - tools/smoke-plugin.js itself, which each job of the release workflow runs on the file it built:
 *   on the linux-x64 file, on the arm64 file through qemu as the Linux job runs it, and refusing a
 *   file that prints another version.
 * Needs `npm run build`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { executableName, platformArchiveName, targetOf } from "../../tools/build-plugin-binary.js";
import { PLUGIN_LINE, supportedLine } from "../../tools/lib/node-runtime.js";
import { smokePlugin } from "../../tools/smoke-plugin.js";
import { expectDestroyLeaves, expectFirstUp, expectNoCredentialLeak, expectPreviewWithoutRequests, expectRefreshKeeps } from "../support/example-lifecycle";
import { configureExample } from "../support/plugin-shim";
import { copyExample, DB_PASSWORD, startRehearsal, VERSION, type Rehearsal } from "../support/release-rehearsal";
import { sharedReleaseFolder } from "../support/release-folder";
import { WINE, retryingSilentEnds, stopWine, winePrefix, withoutVirtualAlloc2 } from "../support/wine";

const toolchain = inject("pulumiToolchain");
/** Where Debian's libc6-arm64-cross puts the arm64 dynamic loader and libraries the arm64 `node` links. */
const ARM64_LIBRARIES = "/usr/aarch64-linux-gnu";
/** Debian's qemu-user-static registration of AArch64 ELF files with binfmt_misc, once registered. */
const BINFMT_AARCH64 = "/proc/sys/fs/binfmt_misc/qemu-aarch64";
/** ELF's e_machine of AArch64. */
const EM_AARCH64 = 183;
/** What `--version` prints. */
const VERSION_LINE = `--version: ${VERSION} (Node.js v${supportedLine(PLUGIN_LINE).pinned})`;

/** The executable of `os`-`arch`'s archive in the release folder, unpacked into `dir`. */
function releasedExecutable(release: string, platform: string, arch: string, dir: string): string {
  const target = targetOf(platform, arch);
  const out = fs.mkdtempSync(path.join(dir, `${target.os}-${target.arch}-`));
  execFileSync("tar", ["-xzf", path.join(release, platformArchiveName(VERSION, target)), "-C", out]);
  return path.join(out, executableName(target));
}

/** The processes whose memory maps `file`, with what each runs as (its /proc/<pid>/exe). */
function processesMapping(file: string): Array<{ pid: string; exe: string }> {
  const found: Array<{ pid: string; exe: string }> = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/maps`, "utf8").includes(file)) found.push({ pid, exe: fs.readlinkSync(`/proc/${pid}/exe`) });
    } catch {
      // The process ended, or is not ours to read.
    }
  }
  return found;
}

/** Runs `step` while looking every 200 ms for processes that map `file`; returns those seen. */
async function watchingProcesses(file: string, step: () => Promise<void>): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const look = () => processesMapping(file).forEach(({ pid, exe }) => seen.set(pid, exe));
  const timer = setInterval(look, 200);
  try {
    await step();
  } finally {
    clearInterval(timer);
  }
  return seen;
}

describe("the linux-arm64 single file, under qemu, as the engine's plugin", () => {
  let r: Rehearsal;
  let plugin: string;

  beforeAll(async () => {
    const registration = fs.existsSync(BINFMT_AARCH64) ? fs.readFileSync(BINFMT_AARCH64, "utf8") : "";
    if (!registration.startsWith("enabled")) {
      throw new Error(
        `qemu-aarch64 is not registered with binfmt_misc (${BINFMT_AARCH64}), so the engine cannot exec an arm64 plugin: register it as .ci/run does`,
      );
    }
    r = await startRehearsal(toolchain, {
      writeProject: (dir) => copyExample("yaml", dir, ["Pulumi.yaml"]),
      env: () => ({ QEMU_LD_PREFIX: ARM64_LIBRARIES }),
    });
    const archive = path.join(r.release, platformArchiveName(VERSION, targetOf("linux", "arm64")));
    await r.ws.pulumi(["plugin", "install", "resource", "analytics", VERSION, "--file", archive]);
    plugin = path.join(r.ws.root, "home", "plugins", `resource-analytics-v${VERSION}`, "pulumi-resource-analytics");
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("is an AArch64 executable, which the engine runs through the YAML example's lifecycle as qemu-aarch64, downloading nothing", async () => {
    expect(fs.readFileSync(plugin).readUInt16LE(18)).toBe(EM_AARCH64);
    await configureExample(r.ws, { baseUrl: r.api.url, apiKey: r.api.apiKeys.alice!, dbPassword: DB_PASSWORD });
    const serving = await watchingProcesses(plugin, () => expectPreviewWithoutRequests(r.ws, r.api));
    expect(serving.size).toBeGreaterThan(0);
    for (const exe of serving.values()) expect(fs.realpathSync(exe)).toBe(fs.realpathSync("/usr/bin/qemu-aarch64-static"));
    await expectFirstUp(r.ws, r.api);
    await expectRefreshKeeps(r.ws, r.api);
    await expectDestroyLeaves(r.ws);
    await expectNoCredentialLeak(r.ws, [r.api.apiKeys.alice!, DB_PASSWORD]);
    expect(r.files.requests).toEqual([]);
  }, 600_000);
});

describe("the windows-amd64 single file, under Wine", () => {
  let dir: string;
  let shipped: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-wine-"));
    shipped = releasedExecutable(await sharedReleaseFolder(), "win32", "x64", dir);
    env = winePrefix(dir);
  }, 900_000);

  afterAll(() => {
    if (!dir) return;
    if (env) stopWine(env);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("stops at start as it ships: Wine 8 takes no placeholder reservation, which V8 asks for since Wine exports VirtualAlloc2", async () => {
    // V8's fatal error usually reaches the stderr file; in some starts Wine ends the process before
    // it is written and `wine` exits 0 with nothing printed. Either way the version is not printed,
    // and a Wine that runs the file as shipped prints it and turns this red.
    await expect(smokePlugin(shipped, { launcher: [WINE], stdioFiles: true, env, log: () => {} })).rejects.toThrow(
      /Fatal process out of memory: SegmentedTable::InitializeTable|^--version printed "", not /,
    );
  }, 300_000);

  it("serves with only the name V8 looks VirtualAlloc2 up by changed: version, port, GetPluginInfo, Check", async () => {
    const copy = withoutVirtualAlloc2(shipped, path.join(dir, "without-virtualalloc2.exe"));
    let lines: string[] = [];
    await retryingSilentEnds(() => {
      lines = [];
      return smokePlugin(copy, { launcher: [WINE], stdioFiles: true, env, log: (line) => lines.push(line) });
    });
    expect(lines.map((line) => line.replace(/^port: \d+$/, "port: N"))).toEqual([
      VERSION_LINE,
      "port: N",
      `GetPluginInfo: version ${VERSION}`,
      'Check: Organization inputs {"name":"Acme"}, no failure',
      "ended when sent SIGTERM",
    ]);
  }, 300_000);
});

describe("tools/smoke-plugin.js", () => {
  let dir: string;
  let release: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-plugin-smoke-"));
    release = await sharedReleaseFolder();
  }, 900_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const expected = [
    VERSION_LINE,
    "port: N",
    `GetPluginInfo: version ${VERSION}`,
    'Check: Organization inputs {"name":"Acme"}, no failure',
    "ended when its stdin closed",
  ];

  it.each([
    { platform: "linux", arch: "x64", launcher: [] },
    { platform: "linux", arch: "arm64", launcher: ["qemu-aarch64-static", "-L", ARM64_LIBRARIES] },
  ])(
    "passes on the $platform-$arch file of the release",
    async ({ platform, arch, launcher }) => {
      const lines: string[] = [];
      await smokePlugin(releasedExecutable(release, platform, arch, dir), { launcher, log: (line) => lines.push(line) });
      expect(lines.map((line) => line.replace(/^port: \d+$/, "port: N"))).toEqual(expected);
    },
    300_000,
  );

  it("fails, naming what it printed, on a file that prints another version", async () => {
    const impostor = path.join(dir, "impostor");
    fs.writeFileSync(impostor, "#!/bin/sh\necho '0.0.9 (Node.js v1.0.0)'\n", { mode: 0o755 });
    await expect(smokePlugin(impostor, { log: () => {} })).rejects.toThrow(
      `--version printed "0.0.9 (Node.js v1.0.0)", not "${VERSION_LINE.slice("--version: ".length)}"`,
    );
  });
});
