/**
 * Release rehearsal, Go: the Go SDK as the release workflow publishes it, the tag `sdk/v<version>`
 * on the released commit, pushed by its go job (`tools/publish.js go`) to the repository's GitHub
 * address, which the release run (test/support/release-run.ts) sends to a bare repository of its
 * own; then a fresh module outside the repository,
 * examples/go's Pulumi.yaml and main.go, installs it with the README's `go get <module>@v<version>` and `go mod tidy`, Go set up as for a
 * private fork: GOPRIVATE=<repository> (Go fetches it with git, not through the module proxy or
 * the checksum database) and a git `insteadOf` sending the repository's https URL to the remote.
 * The public checksum database is the one thing not rehearsed: a public module's first `go get`
 * records its hash there. Run by the real CLI with an empty PULUMI_HOME and a PATH holding `go`
 * and `git` and nothing else (no `node`); the engine fetches the single-file plugin from the
 * served release folder by itself. The module cache is the rehearsal's own, so the SDK comes from
 * the tag and never from a v<version> cached earlier; the machine's cache serves every other
 * module as a file proxy, and -trimpath keeps the build cache's keys free of that cache's temp path.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { modulePath } from "../../tools/lib/go-module-proxy.js";
import { goTag } from "../../tools/publish.js";
import { sharedReleaseRun } from "../support/release-folder";
import { repoRoot } from "../support/pulumi-workspace";
import { copyExample, runLifecycle, startRehearsal, VERSION, type Rehearsal } from "../support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
const MODULE = modulePath(path.join(repoRoot, "sdk"));
/** The tag the workflow pushes (sdk/v<version>), and the repository the module is in (its path without the folder). */
const TAG = goTag();
const REPOSITORY = MODULE.slice(0, MODULE.length - TAG.slice(0, TAG.lastIndexOf("/v")).length - 1);

/** The machine's Go settings: its module proxy list and module cache. */
const goEnv = (name: string): string => execFileSync("go", ["env", name], { encoding: "utf8" }).trim();

describe("the release, as a Go user installs it", () => {
  let r: Rehearsal;
  let remote: string;
  let released: string;

  beforeAll(async () => {
    const [proxies, machineCache] = [goEnv("GOPROXY"), goEnv("GOMODCACHE")];
    r = await startRehearsal(toolchain, {
      tools: ["go", "git"],
      env: (scratch) => ({
        // The user's settings for a private repository (see above); the machine's module cache is
        // a proxy ahead of the user's list for every other module.
        GOPRIVATE: REPOSITORY,
        GIT_CONFIG_GLOBAL: path.join(scratch, "gitconfig"),
        GOPROXY: `file://${path.join(machineCache, "cache", "download")},${proxies}`,
        GOFLAGS: "-mod=mod -trimpath",
        GOMODCACHE: path.join(scratch, "gomodcache"),
      }),
      writeProject: (dir) => copyExample("go", dir, ["Pulumi.yaml", "main.go"]),
    });
    const run = await sharedReleaseRun();
    [remote, released] = [run.goRemote, run.run.commit];
    fs.writeFileSync(path.join(r.scratch, "gitconfig"), `[url "file://${remote}"]\n\tinsteadOf = https://${REPOSITORY}\n`);
    await r.exec("go", ["mod", "init", "analytics-rehearsal-go"]);
    await r.exec("go", ["get", `${MODULE}@v${VERSION}`]);
    await r.exec("go", ["mod", "tidy"]);
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("takes the SDK from the tag sdk/v<version> with git, at the released commit, and records it in go.mod and go.sum", () => {
    expect(TAG).toBe(`sdk/v${VERSION}`);
    const info = JSON.parse(fs.readFileSync(path.join(r.scratch, "gomodcache", "cache", "download", MODULE, "@v", `v${VERSION}.info`), "utf8")) as {
      Origin?: Record<string, string>;
    };
    expect(info.Origin).toMatchObject({
      VCS: "git",
      URL: `https://${REPOSITORY}`,
      Subdir: TAG.slice(0, TAG.lastIndexOf("/v")),
      Ref: `refs/tags/${TAG}`,
      Hash: released,
    });
    expect(fs.readFileSync(path.join(r.ws.programDir, "go.mod"), "utf8")).toContain(`${MODULE} v${VERSION}`);
    expect(fs.readFileSync(path.join(r.ws.programDir, "go.sum"), "utf8")).toMatch(new RegExp(`^${MODULE.replace(/\./g, "\\.")} v${VERSION} h1:`, "m"));
  });

  it("runs examples/go: fetches the plugin from the release by itself, previews, creates, replaces a rename, refuses an import and destroys", async () => {
    await runLifecycle(r);
  }, 900_000);
});
