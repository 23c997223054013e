/**
 * The release workflow on a tag push, run by act (test/support/release-run.ts): the run that made
 * this test run's release folder. Its jobs, the inputs the workflow gave the stand-ins (the
 * artifacts through act's server, the attestation, the GitHub release by `gh`), what the
 * GitHub release received (the assembled folder, whole, with a SHA256SUMS that verifies), and what
 * each publishing job published to its registry on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { containerArchiveName, containerIndexDigest, javaCoordinates, npmPackages, pythonDistributions } from "../../tools/publish.js";
import { sharedReleaseRun } from "../support/release-folder";
import type { ReleaseRun } from "../support/release-run";
import { verifySignature } from "../support/registries";
import { runFacts, type RunFacts } from "../support/release-run-registries";
import { repoRoot } from "../support/pulumi-workspace";

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const TAG = `v${version}`;
const files = (dir: string): string[] => fs.readdirSync(dir).sort();

describe("the release workflow, run by act on the push of the version's tag", () => {
  let release: ReleaseRun;
  const inputsOf = (action: string) => release.run.records.filter((record) => record.action === action).map((record) => record.inputs);
  const job = (name: string) => release.run.jobs.find((entry) => entry.job === name);

  beforeAll(async () => {
    release = await sharedReleaseRun();
  }, 3_600_000);

  it("runs version, test, build on Linux x64, platforms on arm64, release and the publishing jobs but nuget, each passing; the test job's npm ci and npm test, the suite itself, do not run", () => {
    expect(release.run.status).toBe(0);
    for (const name of ["version", "test", "build", "platforms", "release", "npm", "pypi", "maven", "go", "container"])
      expect(job(name)?.result, name).toBe("success");
    expect(job("nuget")?.result).not.toBe("success");
    expect(job("build")!.steps.map((step) => `${step.step}: ${step.result}`)).toEqual(
      expect.arrayContaining([
        "Build the release folder: success",
        "Start the single files built for this runner: success",
        "Start the linux-arm64 single files under qemu: success",
      ]),
    );
    expect(job("platforms")!.steps.map((step) => `${step.step}: ${step.result}`)).toContain("Start the single files: success");
    expect(job("test")!.steps.map((step) => step.step)).not.toEqual(expect.arrayContaining([expect.stringMatching(/^npm /)]));
    // The test and build jobs run side by side, so their steps' records come in either order.
    expect(
      inputsOf("actions/setup-go")
        .map((inputs) => inputs["go-version-file"])
        .sort(),
    ).toEqual(["toolchain/go/pulumi/go.mod", "tools/pinned/cyclonedx-gomod/go.mod"]);
    expect(release.run.output).not.toMatch(/^Tests: /m);
  });

  it("pushes the Go SDK's tag sdk/v<version> on the released commit, from the go job after the release, with no token in the remote", () => {
    expect(job("go")?.result).toBe("success");
    expect(job("go")!.steps.map((step) => `${step.step}: ${step.result}`)).toContain(
      'node tools/publish.js go --remote "https://github.com/$GITHUB_REPOSITORY.git": success',
    );
    const tagged = execFileSync("git", ["rev-parse", `refs/tags/sdk/${TAG}^{commit}`], { cwd: release.goRemote, encoding: "utf8" }).trim();
    expect(tagged).toBe(release.run.commit);
    expect(execFileSync("git", ["for-each-ref", "--format=%(refname)"], { cwd: release.goRemote, encoding: "utf8" }).trim()).toBe(`refs/tags/sdk/${TAG}`);
    expect(fs.readFileSync(path.join(release.goRemote, "config"), "utf8")).not.toContain("release-run-job-token");
    expect(release.run.output).not.toContain("release-run-job-token");
  });

  it("passes the release folders between jobs as artifacts through act's server", () => {
    expect(inputsOf("actions/upload-artifact")).toEqual([
      { name: "release-linux-amd64", path: "release/", "if-no-files-found": "error" },
      { name: "release", path: "release/", "if-no-files-found": "error" },
    ]);
    // platforms' and container's, release's, then npm's, pypi's and maven's, which run in no set order.
    const downloads = inputsOf("actions/download-artifact").map((inputs) => `${inputs.name || inputs.pattern} → ${inputs.path}`);
    expect(downloads.sort()).toEqual([
      "release → release",
      "release → release",
      "release → release",
      "release-* → artifacts",
      "release-linux-amd64 → release",
      "release-linux-amd64 → release",
    ]);
    expect(files(release.folder)).toEqual(expect.arrayContaining(["SHA256SUMS", "go-proxy", `pulumi-resource-analytics-v${version}-linux-arm64.tar.gz`]));
  });

  it("attests SHA256SUMS and the SBOMs, and publishes a GitHub release that holds every asset of the assembled folder", () => {
    // The release's attestation, then the container job's of the image (below).
    expect(inputsOf("actions/attest-build-provenance")).toEqual([
      expect.objectContaining({ "subject-path": "release/SHA256SUMS\nrelease/*.cdx.json\n" }),
      expect.objectContaining({ "push-to-registry": "true" }),
    ]);
    expect(inputsOf("gh").map((inputs) => inputs.args!.split(" ").slice(0, 2).join(" "))).toEqual(["release create", "release view", "release edit"]);
    expect(inputsOf("gh")[0]!.args).toContain(`release create ${TAG} --repo pulumi-analytics/pulumi-analytics --draft --verify-tag`);
    expect(fs.existsSync(path.join(release.releases, `${TAG}.draft`))).toBe(false);
    const assets = path.join(release.releases, TAG);
    expect(files(assets)).toEqual(files(release.assembled));
    expect(files(assets)).toEqual(expect.arrayContaining(["go-proxy.tar.gz", `pulumi-resource-analytics-v${version}-windows-amd64.tar.gz`]));
    expect(files(assets).filter((file) => file.includes("darwin"))).toEqual([]);
    expect(() => execFileSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: assets })).not.toThrow();
    const listed = fs
      .readFileSync(path.join(assets, "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/)[1]);
    expect(listed.sort()).toEqual(files(assets).filter((file) => file !== "SHA256SUMS"));
  });
});

describe("the release run's publishing jobs, each to its registry on 127.0.0.1", () => {
  let release: ReleaseRun;
  let facts: RunFacts;
  const read = (file: string) => fs.readFileSync(file);

  beforeAll(async () => {
    release = await sharedReleaseRun();
    facts = runFacts(release);
  }, 3_600_000);

  // With provenance on, which needs an OIDC token, the job would fail under act.
  it("publishes both npm tarballs, byte for byte, with the runner's token", () => {
    for (const { name, tarball } of npmPackages()) {
      const stored = path.join(release.registries.npm, "storage", name);
      expect(read(path.join(stored, `${name.split("/").pop()}-${version}.tgz`)).equals(read(path.join(release.assembled, tarball))), name).toBe(true);
    }
  });

  it("uploads the sdist and the wheel with twine, byte for byte", () => {
    const expected = pythonDistributions(release.assembled).map((file) => path.basename(file));
    expect(files(release.registries.pypi)).toEqual(expected);
    for (const file of expected) expect(read(path.join(release.registries.pypi, file)).equals(read(path.join(release.assembled, file))), file).toBe(true);
  });

  it("deploys the Java SDK signed with the key of the workflow's secret, then hands it to the Central Portal with its token", () => {
    const { groupId, artifactId } = javaCoordinates();
    const deployed = path.join(release.registries.maven, ...groupId.split("."), artifactId, version);
    const released = files(release.assembled).filter((file) => file.startsWith(`${artifactId}-${version}`) && /\.(jar|pom)$/.test(file));
    expect(released).toContain(`${artifactId}-${version}.jar`);
    for (const file of released) {
      expect(read(path.join(deployed, file)).equals(read(path.join(release.assembled, file))), file).toBe(true);
      expect(
        verifySignature(
          path.dirname(release.registries.publicKey),
          release.registries.publicKey,
          path.join(deployed, file),
          path.join(deployed, `${file}.asc`),
        ),
      ).toBe(facts.fingerprint);
    }
    const requests = fs
      .readFileSync(release.registries.portal, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(requests).toEqual([{ method: "POST", url: `/manual/upload/defaultRepository/${groupId}?publishing_type=automatic`, authorized: true }]);
  });

  it("pushes the image index by its digest and tags it, logged in with the job token through stdin, and attests that digest", () => {
    const digest = containerIndexDigest(path.join(release.folder, containerArchiveName()));
    const repository = path.join(
      release.registries.container,
      "storage",
      "docker",
      "registry",
      "v2",
      "repositories",
      "pulumi-analytics",
      "analytics-reference-server",
    );
    expect(fs.readFileSync(path.join(repository, "_manifests", "tags", version, "current", "link"), "utf8")).toBe(digest);
    const records = release.run.records;
    expect(records.filter((record) => record.action === "docker").map((record) => record.inputs)).toEqual([
      { args: `login ${facts.containerRegistry} --username nektos/act --password-stdin` },
    ]);
    const auth = JSON.parse(fs.readFileSync(release.registries.auth, "utf8")) as { auths: Record<string, { auth: string }> };
    expect(Buffer.from(auth.auths[facts.containerRegistry]!.auth, "base64").toString()).toBe("nektos/act:release-run-job-token");
    expect(records.filter((record) => record.action === "actions/attest-build-provenance").map((record) => record.inputs)).toContainEqual(
      expect.objectContaining({
        "subject-name": `${facts.containerRegistry}/pulumi-analytics/analytics-reference-server`,
        "subject-digest": digest,
        "push-to-registry": "true",
      }),
    );
  });

  it("shows no secret of the run in its output or the stand-ins' records", () => {
    const records = JSON.stringify(release.run.records);
    for (const secret of [...facts.secrets, "release-run-job-token"]) {
      expect(release.run.output).not.toContain(secret);
      expect(records).not.toContain(secret);
    }
  });
});
