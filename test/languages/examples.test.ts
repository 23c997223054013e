/** Every example type-checks against the package and previews with the real engine, sending nothing to the API. */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server";
import { PulumiWorkspace, repoRoot } from "../support/pulumi-workspace";
import { writePluginShim } from "../support/plugin-shim";

const toolchain = inject("pulumiToolchain");
const examplesDir = path.join(repoRoot, "examples");

/** Config each example needs besides the analytics settings; `secret` values are set with --secret. */
const EXAMPLES: Record<
  string,
  { stack?: string; yaml?: true; go?: true; config: Array<[string, string, "plain" | "secret" | "secret-path"]>; creates: string[]; policyConfig?: string }
> = {
  quickstart: {
    config: [
      ["db:host", "db.example.com", "plain"],
      ["db:user", "reader", "plain"],
      ["db:password", "quickstart-pw", "secret"],
    ],
    creates: ["Organization acme", "DataSource warehouse"],
  },
  "ssh-tunnel": {
    config: [
      ["db:host", "10.0.12.7", "plain"],
      ["db:user", "reader", "plain"],
      ["db:password", "tunnel-db-pw", "secret"],
      ["ssh:host", "bastion.example.com", "plain"],
      ["ssh:user", "tunnel", "plain"],
      ["ssh:privateKey", "-----BEGIN OPENSSH PRIVATE KEY-----", "secret"],
    ],
    creates: ["Organization acme", "DataSource private-warehouse"],
  },
  "multi-env": {
    stack: "staging",
    config: [
      ["passwords.orders", "orders-pw", "secret-path"],
      ["passwords.billing", "billing-pw", "secret-path"],
    ],
    creates: ["Organization org", "DataSource orders", "DataSource billing"],
  },
  gitops: {
    config: [
      ["db:host", "db.example.com", "plain"],
      ["db:user", "reader", "plain"],
      ["db:password", "gitops-pw", "secret"],
    ],
    creates: ["Organization analytics", "DataSource warehouse"],
    // Previewed as its workflow does: with the package's policy pack and the example's config.
    policyConfig: "policy-config.json",
  },
  // A Pulumi YAML program through the native provider plugin (test/languages/yaml-native.test.ts runs its whole lifecycle).
  yaml: {
    yaml: true,
    config: [
      ["dbHost", "db.example.com", "plain"],
      ["dbUser", "reader", "plain"],
      ["dbPassword", "yaml-pw", "secret"],
    ],
    creates: ["Organization acme", "DataSource warehouse"],
  },
  // A Go program with the generated SDK through the native provider plugin (test/languages/go-program.test.ts runs its whole lifecycle).
  go: {
    go: true,
    config: [
      ["dbHost", "db.example.com", "plain"],
      ["dbUser", "reader", "plain"],
      ["dbPassword", "go-pw", "secret"],
    ],
    creates: ["Organization acme", "DataSource warehouse"],
  },
  // Its own test suite (program.test.ts) runs in `npm test` too, from the root vitest config.
  "testing-recipe": {
    config: [
      ["db:host", "db.example.com", "plain"],
      ["db:user", "reader", "plain"],
      ["db:password", "recipe-pw", "secret"],
    ],
    creates: ["Organization acme", "DataSource warehouse"],
  },
};

/** Points a copied YAML example at this repository's plugin build, as its README's `plugins:` alternative does. */
function usePluginBuild(programDir: string): void {
  writePluginShim(path.join(programDir, "plugin-bin"));
  fs.appendFileSync(path.join(programDir, "Pulumi.yaml"), "plugins:\n  providers:\n    - name: analytics\n      path: ./plugin-bin\n");
}

/** Points a copied Go example's `replace` at this repository's sdk/ (its relative path no longer leads there). */
function useSdkBuild(programDir: string): void {
  execFileSync("go", ["mod", "edit", `-replace=github.com/pulumi-analytics/pulumi-analytics/sdk=${path.join(repoRoot, "sdk")}`], {
    cwd: programDir,
    env: goProgramEnv(),
    stdio: "pipe",
  });
}

/** Go for the Go example: the local toolchain, and the committed go.sum decides every module. */
function goProgramEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" };
}

/**
 * Examples this file does not preview, by their program files, checked below as far as that goes
 * without their runtime: Python runs in test/languages/python-program.test.ts; there is no .NET SDK here;
 * TypeScript on the generated Node.js SDK is converted from examples/yaml and type-checked in
 * test/languages/registry.test.ts.
 */
const GENERATED_SDK_EXAMPLES: Record<string, string[]> = {
  python: ["__main__.py", "requirements.txt"],
  csharp: ["Program.cs", "analytics-csharp.csproj"],
  typescript: ["index.ts", "package.json", "tsconfig.json"],
};

/** Examples whose whole lifecycle runs in a test of their own, by their program files: java in test/release/release-rehearsal-java.test.ts (Maven, minutes). */
const OWN_TEST_EXAMPLES: Record<string, string[]> = {
  java: ["pom.xml", "src/main/java/myproject/App.java"],
};

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ port: 0, bootstrapUsers: ["examples"], inspection: true });
});
afterAll(() => server.close());

describe("examples", () => {
  it("cover every folder of examples/, each a standalone Pulumi project", () => {
    const folders = fs.readdirSync(examplesDir).filter((entry) => fs.statSync(path.join(examplesDir, entry)).isDirectory());
    expect(folders.sort()).toEqual([...Object.keys(EXAMPLES), ...Object.keys(GENERATED_SDK_EXAMPLES), ...Object.keys(OWN_TEST_EXAMPLES)].sort());
    for (const folder of folders) {
      const own = GENERATED_SDK_EXAMPLES[folder] ?? OWN_TEST_EXAMPLES[folder];
      const files = own
        ? ["Pulumi.yaml", "README.md", ...own]
        : EXAMPLES[folder]?.yaml
          ? ["Pulumi.yaml", "README.md"]
          : EXAMPLES[folder]?.go
            ? ["Pulumi.yaml", "README.md", "main.go", "go.mod", "go.sum"]
            : ["Pulumi.yaml", "package.json", "index.ts", "README.md", "tsconfig.json"];
      for (const file of files) {
        expect(fs.existsSync(path.join(examplesDir, folder, file)), `${folder}/${file}`).toBe(true);
      }
    }
  });

  it("python compiles, and names only what the generated SDK defines", () => {
    const program = path.join(examplesDir, "python", "__main__.py");
    // compile() in memory: py_compile would write __pycache__/ into examples/python.
    execFileSync("python3", ["-c", "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')", program], {
      stdio: "pipe",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    });
    const sdk = fs.readFileSync(path.join(repoRoot, "sdk/python/pulumi_analytics/data_source.py"), "utf8");
    for (const [, keyword] of fs.readFileSync(program, "utf8").matchAll(/^\s+(\w+)=/gm)) expect(sdk, keyword).toContain(`${keyword}: `);
  });

  it("csharp sets only properties the generated SDK's argument classes have, and names only enum constants it defines", () => {
    const program = fs.readFileSync(path.join(examplesDir, "csharp", "Program.cs"), "utf8").replace(/^using .*$/gm, "");
    const sdk = ["Organization.cs", "DataSource.cs"].map((file) => fs.readFileSync(path.join(repoRoot, "sdk/dotnet", file), "utf8")).join("\n");
    for (const [, property] of program.matchAll(/\b(\w+) = (?!new|await)/g))
      expect(sdk, property).toMatch(new RegExp(`public Input(?:<\\w+>|Union<string, [\\w.]+>)\\?? ${property}\\s*\\{`));
    const enums = fs.readFileSync(path.join(repoRoot, "sdk/dotnet/Enums.cs"), "utf8");
    const constants = [...program.matchAll(/Analytics\.(\w+)\.(\w+)\b/g)].filter(([, type]) => /^DataSource(Type|Dialect)$/.test(type!));
    expect(constants.map(([, type, value]) => `${type}.${value}`)).toEqual(["DataSourceType.Direct", "DataSourceDialect.Postgres"]);
    for (const [, type, value] of constants)
      expect(enums).toMatch(new RegExp(`public readonly struct ${type} [\\s\\S]*?public static ${type} ${value} \\{ get; \\}`));
  });

  it("gitops runs preview --diff on pull requests and up on main, with the key from a CI secret", () => {
    const workflow = fs.readFileSync(path.join(examplesDir, "gitops/.github/workflows/analytics.yml"), "utf8");
    expect(workflow).toMatch(/pull_request:/);
    expect(workflow).toMatch(/command: preview[\s\S]*diff: true/);
    expect(workflow).toMatch(/branches: \[main\]/);
    expect(workflow).toMatch(/command: up/);
    expect(workflow).toMatch(/ANALYTICS_API_KEY: \$\{\{ secrets\.ANALYTICS_API_KEY \}\}/);
    // The preview job runs the package's guardrails.
    expect(workflow).toMatch(/command: preview[\s\S]*policyPacks: .*node_modules\/pulumi-analytics\/policy-pack[\s\S]*command: up/);
  });

  for (const [name, example] of Object.entries(EXAMPLES)) {
    it(`${name} type-checks and previews its creates without calling the API`, async () => {
      const ws = await PulumiWorkspace.create(toolchain, {
        programDir: path.join(examplesDir, name),
        ...(example.yaml || example.go ? { withoutNodeModules: true } : { linkPackage: true }),
        ...(example.go ? { env: goProgramEnv() } : {}),
        ...(example.stack ? { stack: example.stack } : {}),
      });
      try {
        if (example.yaml || example.go) usePluginBuild(ws.programDir);
        if (example.go) useSdkBuild(ws.programDir);
        else if (!example.yaml) {
          execFileSync(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", path.join(ws.programDir, "tsconfig.json")], {
            stdio: "pipe",
          });
        }
        const valuesOf = (wanted: string) => Object.fromEntries(example.config.filter(([, , kind]) => kind === wanted).map(([key, value]) => [key, value]));
        await ws.setConfig(
          { ...(name !== "multi-env" ? { "analytics:baseUrl": server.url } : {}), ...valuesOf("plain") },
          { "analytics:apiKey": server.apiKeys.examples ?? "", ...valuesOf("secret") },
        );
        for (const [key, value] of Object.entries(valuesOf("secret-path"))) await ws.pulumi(["config", "set", "--secret", "--path", key, "--", value]);
        const before = server.inspect.requestCount();
        const policy = example.policyConfig
          ? ["--policy-pack", path.join(repoRoot, "policy-pack"), "--policy-pack-config", path.join(ws.programDir, example.policyConfig)]
          : [];
        const preview = await ws.pulumi(["preview", ...policy]);
        if (policy.length) expect(preview.stdout).toMatch(/✅ pulumi-analytics@v/);
        for (const create of example.creates) {
          const [type, resource] = create.split(" ");
          const token = example.yaml || example.go ? `analytics:index:${type}` : `pulumi-nodejs:dynamic/analytics:${type}`;
          expect(preview.stdout).toMatch(new RegExp(`\\+\\s+${token}\\s+${resource}\\s+create`));
        }
        expect(server.inspect.requestCount()).toBe(before);
        for (const [, value, kind] of example.config) if (kind !== "plain") expect(preview.stdout + preview.stderr).not.toContain(value);
      } finally {
        ws.dispose();
      }
    }, 300_000);
  }
});
