/**
 * Release rehearsal, Go: a fresh module outside the repository whose program imports the SDK's
 * module path, fetched from the release's `go-proxy/` as a user sets Go up for a module the
 * checksum database does not know (GOPROXY=file://<release>/go-proxy,<go env GOPROXY>,
 * GONOSUMDB=<module>, GOFLAGS=-mod=mod), then `go get <module>@v<version>` and `go mod tidy`;
 * run by the real CLI with an empty PULUMI_HOME and a PATH holding `go` and nothing else (no
 * `node`); the engine fetches the single-file plugin from the served release folder by itself.
 * The module cache is the rehearsal's own, so the SDK comes from this release and never from a
 * v<version> cached earlier; the machine's cache serves every other module as a file proxy, and
 * -trimpath keeps the build cache's keys free of that cache's temp path.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runLifecycle, startRehearsal, VERSION, type Rehearsal } from "./support/release-rehearsal";

const { modulePath } = require("../tools/go-module-proxy.js") as { modulePath(dir: string): string };
const toolchain = inject("pulumiToolchain");
const MODULE = modulePath(path.join(__dirname, "..", "sdk"));

const PROJECT = `name: analytics-rehearsal-go
runtime: go
config:
  dbHost:
    type: string
  dbUser:
    type: string
  dbPassword:
    type: string
    secret: true
`;

const PROGRAM = `package main

import (
	"${MODULE}/go/analytics"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		acme, err := analytics.NewOrganization(ctx, "acme", &analytics.OrganizationArgs{Name: pulumi.String("Acme")})
		if err != nil {
			return err
		}
		warehouse, err := analytics.NewDataSource(ctx, "warehouse", &analytics.DataSourceArgs{
			OrgId:        acme.ID().ToStringOutput(),
			Type:         pulumi.String("direct"),
			Dialect:      pulumi.String("POSTGRES"),
			DisplayName:  pulumi.String("Warehouse"),
			Host:         pulumi.String(cfg.Require("dbHost")),
			Port:         pulumi.Int(5432),
			DatabaseName: pulumi.String("analytics"),
			Username:     pulumi.String(cfg.Require("dbUser")),
			Password:     cfg.RequireSecret("dbPassword"),
		})
		if err != nil {
			return err
		}
		ctx.Export("dataSourceId", warehouse.ID())
		return nil
	})
}
`;

/** The machine's Go settings: its module proxy list and module cache. */
const goEnv = (name: string): string => execFileSync("go", ["env", name], { encoding: "utf8" }).trim();

describe("the release, as a Go user installs it", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    const [proxies, machineCache] = [goEnv("GOPROXY"), goEnv("GOMODCACHE")];
    r = await startRehearsal(toolchain, {
      tools: ["go"],
      env: (scratch, release) => ({
        // The user's settings, with the machine's module cache as a proxy between the two (see above).
        GOPROXY: `file://${path.join(release, "go-proxy")},file://${path.join(machineCache, "cache", "download")},${proxies}`,
        GONOSUMDB: MODULE,
        GOFLAGS: "-mod=mod -trimpath",
        GOMODCACHE: path.join(scratch, "gomodcache"),
      }),
      writeProject: (dir) => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
        fs.writeFileSync(path.join(dir, "main.go"), PROGRAM);
      },
    });
    await r.exec("go", ["mod", "init", "analytics-rehearsal-go"]);
    await r.exec("go", ["get", `${MODULE}@v${VERSION}`]);
    await r.exec("go", ["mod", "tidy"]);
  }, 900_000);

  afterAll(async () => {
    await r?.close();
  });

  it("takes the SDK from the release's go-proxy, byte for byte", () => {
    const zip = path.join("cache", "download", MODULE, "@v", `v${VERSION}.zip`);
    expect(fs.readFileSync(path.join(r.scratch, "gomodcache", zip)).equals(fs.readFileSync(path.join(r.release, "go-proxy", MODULE, "@v", `v${VERSION}.zip`)))).toBe(true);
    expect(fs.readFileSync(path.join(r.ws.programDir, "go.mod"), "utf8")).toContain(`${MODULE} v${VERSION}`);
  });

  it("fetches the plugin from the release by itself, then previews, creates, previews no change and destroys", async () => {
    await runLifecycle(r);
  }, 900_000);
});
