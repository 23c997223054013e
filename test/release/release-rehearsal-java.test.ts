/**
 * Release rehearsal, Java: the Java SDK's POM and jars as the release workflow's maven job
 * deployed them in the release run (`tools/publish.js maven`, `mvn gpg:sign-and-deploy-file`
 * with the run's throwaway gpg key), that Maven repository served on 127.0.0.1; then a fresh Maven project outside the
 * repository depending on the SDK's coordinates and com.pulumi:pulumi resolves the SDK from that
 * repository (declared in the user's settings, the one thing that differs from Maven Central), and
 * the jar it resolved is checked against its signature with gpg and the key's public half alone.
 * The project is examples/java (its pom.xml asks for the SDK's coordinates alone), and this is
 * where that example runs with the real CLI.
 * Run by the real CLI with an empty PULUMI_HOME and a PATH holding `java`, `mvn` and the few
 * commands the `mvn` script calls, no `node`; the engine fetches the single-file plugin from the
 * served release folder. Maven's local repository is the rehearsal's own, set with `--settings` in a
 * `.mvn/maven.config` above the project, and ~/.m2/repository serves it everything else as a
 * file:// repository ahead of Maven Central, so a warm machine downloads nothing else.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { javaCoordinates } from "../../tools/publish.js";
import { verifySignature } from "../support/registries";
import { sharedReleaseRun } from "../support/release-folder";
import { publishedSigningKey } from "../support/release-run-registries";
import { copyExample, runLifecycle, serveFolder, startRehearsal, VERSION, type FileServer, type Rehearsal } from "../support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
const SDK = javaCoordinates();
const JAR = `${SDK.artifactId}-${VERSION}.jar`;
/** Where a Maven repository keeps the SDK's files. */
const SDK_DIR = [...SDK.groupId.split("."), SDK.artifactId, VERSION];
/** The commands the `mvn` launcher script runs besides `java`. */
const MVN_SCRIPT_TOOLS = ["uname", "ls", "expr", "dirname", "tr"];

/** A repository of the user's settings, by id and URL, releases only. */
const repository = (tag: string, id: string, url: string, checksums: string) =>
  `<${tag}><id>${id}</id><url>${url}</url><releases><checksumPolicy>${checksums}</checksumPolicy></releases><snapshots><enabled>false</enabled></snapshots></${tag}>`;

/**
 * Maven settings: the rehearsal's local repository; the published SDK's repository first (its
 * checksums enforced), then ~/.m2/repository before Maven Central.
 */
const settings = (localRepository: string, published: string) => {
  const machine = new URL(`file://${path.join(os.homedir(), ".m2", "repository")}`).href;
  return `<settings>
  <localRepository>${localRepository}</localRepository>
  <profiles><profile><id>rehearsal</id>
    <repositories>${repository("repository", "published", published, "fail")}${repository("repository", "machine-local", machine, "ignore")}</repositories>
    <pluginRepositories>${repository("pluginRepository", "machine-local", machine, "ignore")}</pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>rehearsal</activeProfile></activeProfiles>
</settings>
`;
};

describe("the release, as a Java user installs it", () => {
  let r: Rehearsal;
  let key: { publicKey: string; fingerprint: string };
  let maven: FileServer;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      tools: ["java", "mvn", ...MVN_SCRIPT_TOOLS],
      writeProject: (dir) => copyExample("java", dir, ["Pulumi.yaml", "pom.xml", "src"]),
    });
    const run = await sharedReleaseRun();
    key = publishedSigningKey(run);
    maven = await serveFolder(run.registries.maven);
    // Maven reads .mvn/ of the nearest folder above the project holding one: the workspace's root here.
    fs.writeFileSync(path.join(r.scratch, "settings.xml"), settings(path.join(r.scratch, "m2"), maven.url));
    fs.mkdirSync(path.join(r.ws.root, ".mvn"));
    fs.writeFileSync(path.join(r.ws.root, ".mvn", "maven.config"), `--settings ${path.join(r.scratch, "settings.xml")}\n`);
    // The user's build resolves the dependency, as `pulumi up` would (the language host runs `mvn compile exec:java`).
    await r.exec("mvn", ["-B", "-q", "compile"]);
  }, 900_000);

  afterAll(async () => {
    await maven?.close();
    await r?.close();
  });

  it("resolves the SDK from the published repository, and its jar passes gpg --verify with the public key alone", async () => {
    expect(maven.requests).toContain(`/${[...SDK_DIR, JAR].join("/")}`);
    const resolved = path.join(r.scratch, "m2", ...SDK_DIR, JAR);
    expect(fs.readFileSync(resolved).equals(fs.readFileSync(path.join(r.release, JAR)))).toBe(true);
    const signature = path.join(r.scratch, `${JAR}.asc`);
    fs.writeFileSync(signature, Buffer.from(await (await fetch(`${maven.url}/${[...SDK_DIR, `${JAR}.asc`].join("/")}`)).arrayBuffer()));
    expect(verifySignature(r.scratch, key.publicKey, resolved, signature)).toBe(key.fingerprint);
    fs.appendFileSync(resolved, "tampered");
    expect(() => verifySignature(r.scratch, key.publicKey, resolved, signature)).toThrow();
    fs.writeFileSync(resolved, fs.readFileSync(path.join(r.release, JAR)));
  });

  it("runs examples/java: fetches the plugin from the release by itself, previews, creates, replaces a rename, refuses an import and destroys", async () => {
    await runLifecycle(r, { slowRuns: true });
  }, 900_000);
});
