/**
 * docs/reference-server-ci.md's "In CI without Node.js" and the README's line naming the image hold
 * to the code: the image's name is ghcr.io/<package.json's GitHub owner>/analytics-reference-server
 * at package.json's version; every recipe parses as YAML and gives the service and the job the
 * environment variables the provider and the server read (the same key to both, the base URL at
 * 127.0.0.1:8080 for a job on the runner, at the service's name with that name allowed for a job in
 * a container or on GitLab); no GitHub Actions recipe waits for the service, which the image's
 * health check makes Actions do.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { providerConfigSpec } from "../src/kinds/provider-config";
import { projectIdentity } from "../tools/lib/project-identity.js";
import { repoRoot } from "./support/pulumi-workspace";

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const IMAGE = `ghcr.io/${projectIdentity().owner}/analytics-reference-server`;
const KEY_ENV = providerConfigSpec.apiKey.env;
const URL_ENV = providerConfigSpec.baseUrl.env;
const ALLOWED_HOSTS_ENV = "ANALYTICS_ALLOWED_HOSTS";

/** The section's text, up to the next `## ` heading. */
function section(): string {
  const text = fs.readFileSync(path.join(repoRoot, "docs", "reference-server-ci.md"), "utf8");
  const start = text.indexOf("\n## In CI without Node.js\n");
  expect(start).toBeGreaterThan(0);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The section's ```yaml blocks, parsed, each under the `### ` heading above it. */
function recipes(): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  let heading = "";
  for (const part of section()
    .split(/^```/m)
    .map((chunk, i) => ({ chunk, code: i % 2 === 1 }))) {
    if (!part.code) heading = [...part.chunk.matchAll(/^### (.+)$/gm)].pop()?.[1] ?? heading;
    else if (part.chunk.startsWith("yaml\n")) found.set(heading, parse(part.chunk.slice("yaml\n".length)) as Record<string, unknown>);
  }
  return found;
}

/** A GitHub Actions recipe's job `up`. */
type Job = { services: { analytics: { image: string; ports?: string[]; env: Record<string, string> } }; env: Record<string, string>; container?: string };

describe("the docs of the reference server's image in CI", () => {
  it("name the image as package.json's owner and version make it, in the README and the docs", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    expect(readme).toContain(`\`${IMAGE}:<version>\``);
    const named = [...section().matchAll(/ghcr\.io\/[\w.-]+\/[\w.-]+(?::[\w.-]+)?/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(4);
    expect(new Set(named)).toEqual(new Set([`${IMAGE}:${version}`]));
  });

  it("have a recipe for a job on the runner, one in a container, GitLab CI and a Python team, each parsing as YAML", () => {
    expect([...recipes().keys()]).toEqual([
      "GitHub Actions, a job on the runner",
      "GitHub Actions, a job in a container",
      "GitLab CI",
      "A Python team's pipeline",
    ]);
  });

  it("give a job on the runner the published port on 127.0.0.1 and the same key as the service", () => {
    for (const name of ["GitHub Actions, a job on the runner", "A Python team's pipeline"]) {
      const job = (recipes().get(name) as { jobs: { up: Job } }).jobs.up;
      expect(job.services.analytics.image).toBe(`${IMAGE}:${version}`);
      expect(job.services.analytics.ports).toEqual(["127.0.0.1:8080:8080"]);
      expect(job.env[URL_ENV]).toBe("http://127.0.0.1:8080");
      expect(job.env[KEY_ENV]).toMatch(/^\$\{\{ secrets\.\w+ \}\}$/);
      expect(job.services.analytics.env[KEY_ENV]).toBe(job.env[KEY_ENV]);
      expect(job.services.analytics.env[ALLOWED_HOSTS_ENV]).toBeUndefined();
    }
  });

  it("give a job in a container the service's name, allowed on the service as its one setting besides the key", () => {
    const job = (recipes().get("GitHub Actions, a job in a container") as { jobs: { up: Job } }).jobs.up;
    expect(job.container).toBeTruthy();
    expect(job.services.analytics.ports).toBeUndefined();
    expect(job.services.analytics.env).toEqual({ [ALLOWED_HOSTS_ENV]: "analytics", [KEY_ENV]: job.env[KEY_ENV] });
    expect(job.env[URL_ENV]).toBe("http://analytics:8080");
    const gitlab = recipes().get("GitLab CI") as {
      up: { services: Array<{ name: string; alias: string; variables: Record<string, string> }>; variables: Record<string, string> };
    };
    expect(gitlab.up.services).toEqual([{ name: `${IMAGE}:${version}`, alias: "analytics", variables: { [ALLOWED_HOSTS_ENV]: "analytics" } }]);
    expect(gitlab.up.variables[URL_ENV]).toBe("http://analytics:8080");
  });

  it("wait for the service in no step and with no options: the image's HEALTHCHECK holds a GitHub Actions job until the service is healthy", () => {
    for (const name of ["GitHub Actions, a job on the runner", "GitHub Actions, a job in a container", "A Python team's pipeline"]) {
      const job = (recipes().get(name) as { jobs: { up: Job & { steps: unknown[] } } }).jobs.up;
      expect(Object.keys(job.services.analytics), name).not.toContain("options");
      expect(JSON.stringify(job.steps), name).not.toContain("/_reference/ready");
    }
  });

  it("install no Node.js in the Python team's pipeline, and take the SDK and the plugin at package.json's version", () => {
    const text = JSON.stringify(recipes().get("A Python team's pipeline"));
    expect(text).not.toMatch(/setup-node|\bnpm\b|\bnpx\b|\bnode\b/);
    expect(text).toContain(`pip install pulumi_analytics==${version}`);
    expect(text).toContain(`pulumi plugin install resource analytics ${version} --file pulumi-resource-analytics-v${version}-linux-amd64.tar.gz`);
  });
});
