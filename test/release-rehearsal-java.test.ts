/**
 * Release rehearsal, Java: a fresh Maven project outside the repository depending on
 * io.github.pulumi-analytics:analytics and com.pulumi:pulumi, the SDK installed from the release's jar and pom
 * with `mvn install:install-file -Dfile=… -DpomFile=…` as a user does; run by the real CLI with
 * an empty PULUMI_HOME and a PATH holding `java`, `mvn` and the few commands the `mvn` script
 * calls, no `node`; the engine fetches the single-file plugin from the served release folder.
 * Maven's local repository is the rehearsal's own (test/java-program.test.ts installs sdk/java
 * under the same coordinates into ~/.m2 meanwhile), set with `--settings` in a `.mvn/maven.config`
 * above the project, and ~/.m2/repository serves it everything else as a file:// repository
 * ahead of Maven Central, so a warm machine downloads nothing.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runLifecycle, startRehearsal, VERSION, type Rehearsal } from "./support/release-rehearsal";

const toolchain = inject("pulumiToolchain");
const JAR = `analytics-${VERSION}.jar`;
const POM = `analytics-${VERSION}.pom`;
/** The commands the `mvn` launcher script runs besides `java`. */
const MVN_SCRIPT_TOOLS = ["uname", "ls", "expr", "dirname", "tr"];

const PROJECT = `name: analytics-rehearsal-java
runtime: java
config:
  dbHost:
    type: string
  dbUser:
    type: string
  dbPassword:
    type: string
    secret: true
`;

/** The user's pom: the language host runs `mvn compile exec:java`, with -DmainClass and -DmainArgs to ask which plugins it needs. */
const pom = (pulumiVersion: string) => `<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>rehearsal</groupId>
  <artifactId>analytics-rehearsal-java</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
    <mainClass>rehearsal.App</mainClass>
    <mainArgs/>
  </properties>
  <dependencies>
    <dependency><groupId>io.github.pulumi-analytics</groupId><artifactId>analytics</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>com.pulumi</groupId><artifactId>pulumi</artifactId><version>${pulumiVersion}</version></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin>
        <groupId>org.codehaus.mojo</groupId><artifactId>exec-maven-plugin</artifactId><version>3.5.0</version>
        <configuration><mainClass>\${mainClass}</mainClass><commandlineArgs>\${mainArgs}</commandlineArgs></configuration>
      </plugin>
    </plugins>
  </build>
</project>
`;

const PROGRAM = `package rehearsal;

import com.pulumi.Pulumi;
import io.github.pulumi_analytics.analytics.DataSource;
import io.github.pulumi_analytics.analytics.DataSourceArgs;
import io.github.pulumi_analytics.analytics.Organization;
import io.github.pulumi_analytics.analytics.OrganizationArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(ctx -> {
            var config = ctx.config();
            var acme = new Organization("acme", OrganizationArgs.builder().name("Acme").build());
            var warehouse = new DataSource("warehouse", DataSourceArgs.builder()
                .orgId(acme.id())
                .type("direct")
                .dialect("POSTGRES")
                .displayName("Warehouse")
                .host(config.require("dbHost"))
                .port(5432)
                .databaseName("analytics")
                .username(config.require("dbUser"))
                .password(config.requireSecret("dbPassword"))
                .build());
            ctx.export("dataSourceId", warehouse.id());
        });
    }
}
`;

/** Maven settings: the rehearsal's local repository, fed by ~/.m2/repository before Maven Central. */
const settings = (localRepository: string) => {
  const repo = (tag: string) =>
    `<${tag}><id>machine-local</id><url>${new URL(`file://${path.join(os.homedir(), ".m2", "repository")}`).href}</url><releases><checksumPolicy>ignore</checksumPolicy></releases><snapshots><enabled>false</enabled></snapshots></${tag}>`;
  return `<settings>
  <localRepository>${localRepository}</localRepository>
  <profiles><profile><id>machine-local</id>
    <repositories>${repo("repository")}</repositories>
    <pluginRepositories>${repo("pluginRepository")}</pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>machine-local</activeProfile></activeProfiles>
</settings>
`;
};

describe("the release, as a Java user installs it", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal(toolchain, {
      tools: ["java", "mvn", ...MVN_SCRIPT_TOOLS],
      writeProject: (dir, release) => {
        const pulumiVersion = /<artifactId>pulumi<\/artifactId>\s*<version>([^<]+)<\/version>/.exec(fs.readFileSync(path.join(release, POM), "utf8"))?.[1];
        if (!pulumiVersion) throw new Error(`${POM} names no com.pulumi:pulumi version`);
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
        fs.writeFileSync(path.join(dir, "pom.xml"), pom(pulumiVersion));
        fs.mkdirSync(path.join(dir, "src", "main", "java", "rehearsal"), { recursive: true });
        fs.writeFileSync(path.join(dir, "src", "main", "java", "rehearsal", "App.java"), PROGRAM);
      },
    });
    // Maven reads .mvn/ of the nearest folder above the project holding one: the workspace's root here.
    fs.writeFileSync(path.join(r.scratch, "settings.xml"), settings(path.join(r.scratch, "m2")));
    fs.mkdirSync(path.join(r.ws.root, ".mvn"));
    fs.writeFileSync(path.join(r.ws.root, ".mvn", "maven.config"), `--settings ${path.join(r.scratch, "settings.xml")}\n`);
    await r.exec("mvn", ["-B", "-q", "install:install-file", `-Dfile=${path.join(r.release, JAR)}`, `-DpomFile=${path.join(r.release, POM)}`]);
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("installs the release's jar into the rehearsal's local repository, byte for byte", () => {
    const installed = path.join(r.scratch, "m2", "io", "github", "pulumi-analytics", "analytics", VERSION, JAR);
    expect(fs.readFileSync(installed).equals(fs.readFileSync(path.join(r.release, JAR)))).toBe(true);
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 900_000);
});
