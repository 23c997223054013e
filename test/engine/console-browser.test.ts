/**
 * The reference server's console in a real browser: Debian's Chromium driven by playwright-core
 * (tools/lib/chromium.js), after real `pulumi up`s of the demo's program through the CLI against an
 * in-process server with inspection on. The page shows the stack's organization and data
 * source, follows the sync without a reload, switches a fault that the next `pulumi up` retries
 * (and lists the retry), shows no secret in its DOM or in anything it loaded, works from the
 * keyboard alone, puts names in as text (never markup), and axe-core finds nothing serious or
 * critical. On failure a screenshot and the page's HTML go to test-results/console-browser/.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startReferenceServer, syncSchema, type ReferenceServer } from "../../src/reference-server";
import { startDemoWarehouse, type DemoWarehouse } from "../../demo/demo-warehouse";
import { launchChromium } from "../../tools/lib/chromium.js";
import { PulumiWorkspace, repoRoot } from "../support/pulumi-workspace";

const toolchain = inject("pulumiToolchain");

// What the functions passed to page.evaluate use: they run in the page, whose globals this
// Node.js program's types (no DOM library) do not declare. Declared here, in this module only.
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };
type HTMLElement = {
  tabIndex: number;
  disabled?: boolean;
  id: string;
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getClientRects(): { length: number };
  blur(): void;
};

/** Where a failing run leaves its screenshot and HTML. */
const OUTPUT_DIR = path.join(repoRoot, "test-results", "console-browser");
/** The warehouse password the stack sends (PGlite takes any): a value no page may ever show. */
const WAREHOUSE_PASSWORD = `console-S3CRET-${randomBytes(6).toString("hex")}`;

/** What the page loaded: every answer's body, and every server-sent event's data. */
interface Captured {
  requests: string[];
  responses: Array<{ url: string; body: string }>;
  events: string[];
  pending: Array<Promise<void>>;
}

/** Records everything `page` asks for and receives, the event stream's messages through the DevTools protocol. */
async function capture(context: BrowserContext, page: Page): Promise<Captured> {
  const captured: Captured = { requests: [], responses: [], events: [], pending: [] };
  page.on("request", (request) => captured.requests.push(request.url()));
  page.on("response", (response) => {
    if ((response.headers()["content-type"] ?? "").startsWith("text/event-stream")) return;
    captured.pending.push(response.text().then((body) => void captured.responses.push({ url: response.url(), body })));
  });
  const cdp = await context.newCDPSession(page);
  cdp.on("Network.eventSourceMessageReceived", (message) => void captured.events.push(message.data));
  await cdp.send("Network.enable");
  return captured;
}

/** The badge of data source `id` for `which` ("sync" or "health"). */
const badge = (id: string, which: "sync" | "health") => `[data-data-source="${id}"] [data-live="${which}"]`;

/** A description of the focused element, and whether its focus is drawn (an outline). */
function focused(page: Page): Promise<{ key: string; outlined: boolean } | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const key = `${el.tagName.toLowerCase()}#${el.id}[${el.getAttribute("data-scope") ?? ""}.${el.getAttribute("data-key") ?? ""}]${el.getAttribute("aria-label") ?? el.textContent?.trim() ?? ""}`;
    return { key, outlined: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
  });
}

/** Every element a keyboard user should reach, described as {@link focused} does. */
function focusables(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    ([...document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]")] as HTMLElement[])
      .filter((el) => el.tabIndex >= 0 && el.disabled !== true && el.getClientRects().length > 0)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}#${el.id}[${el.getAttribute("data-scope") ?? ""}.${el.getAttribute("data-key") ?? ""}]${el.getAttribute("aria-label") ?? el.textContent?.trim() ?? ""}`,
      ),
  );
}

/** Tabs from the top of the page once around, returning each element focused, in order. */
async function tabThrough(page: Page): Promise<Array<{ key: string; outlined: boolean }>> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen: Array<{ key: string; outlined: boolean }> = [];
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    if (now === null || seen.some((s) => s.key === now.key)) break;
    seen.push(now);
  }
  return seen;
}

/** Presses Tab until the element `selector` has focus. */
async function tabTo(page: Page, selector: string): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement === document.querySelector(s), selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

let server: ReferenceServer;
let warehouse: DemoWarehouse;
let ws: PulumiWorkspace;
let context: BrowserContext;
let page: Page;
let captured: Captured;
/** Lets the background schema syncs run: held until the page has shown one waiting. */
let releaseSyncs!: () => void;

beforeAll(async () => {
  fs.rmSync(OUTPUT_DIR, { recursive: true, force: true });
  context = await launchChromium({ viewport: { width: 1280, height: 900 } });
  warehouse = await startDemoWarehouse();
  const syncsHeld = new Promise<void>((resolve) => (releaseSyncs = resolve));
  server = await startReferenceServer({
    inspection: true,
    bootstrapUsers: ["console"],
    // The real Postgres sync, held until the test has seen the page show it running.
    syncSchema: async (target, options) => {
      await syncsHeld;
      return syncSchema(target, options);
    },
  });
  // The demo's program (demo/program.ts, built by `npm run build:demo`) as a project of its own.
  const programDir = fs.mkdtempSync(path.join(os.tmpdir(), "console-program-"));
  fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), "name: console-browser\nruntime: nodejs\nmain: index.js\n");
  fs.copyFileSync(path.join(repoRoot, "demo", "dist", "program.js"), path.join(programDir, "index.js"));
  ws = await PulumiWorkspace.create(toolchain, { programDir, linkPackage: true });
  fs.rmSync(programDir, { recursive: true, force: true });
  await ws.setConfig(
    {
      "analytics:baseUrl": server.url,
      "warehouse:host": warehouse.host,
      "warehouse:port": String(warehouse.port),
      "warehouse:databaseName": warehouse.databaseName,
      "warehouse:username": warehouse.username,
    },
    { "analytics:apiKey": server.apiKeys.console!, "warehouse:password": WAREHOUSE_PASSWORD },
  );
  page = context.pages()[0] ?? (await context.newPage());
  captured = await capture(context, page);
}, 300_000);

afterAll(async () => {
  releaseSyncs?.();
  await context?.close();
  ws?.dispose();
  await server?.close();
  await warehouse?.close();
});

/** Runs `body`; on failure saves a screenshot and the HTML of the page to {@link OUTPUT_DIR} first. */
async function withEvidence(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT_DIR, `${name}.png`), fullPage: true }).catch(() => undefined);
    fs.writeFileSync(path.join(OUTPUT_DIR, `${name}.html`), await page.content().catch(() => ""));
    process.stderr.write(`[console-browser] ${name} failed: screenshot and HTML in ${OUTPUT_DIR}\n`);
    throw error;
  }
}

describe("the console in Chromium", () => {
  let orgId: string;
  let dataSourceId: string;

  it("shows the stack's organization and data source after pulumi up, and the sync as it finishes, without a reload", async () => {
    await withEvidence("first-up", async () => {
      let navigations = 0;
      page.on("framenavigated", (frame) => void (frame === page.mainFrame() && navigations++));
      await page.goto(server.consoleUrl!);
      await expect.poll(() => page.textContent("#connection"), { timeout: 15_000 }).toBe("Live");
      expect(await page.textContent("#organizations")).toContain("No organization yet");
      // Opening the page is no API request; everything it asked for came from the server itself.
      expect(server.inspect.requestCount()).toBe(0);
      await page.evaluate(() => (window.sameDocument = true));

      await ws.pulumi(["up", "--yes"]);
      const outputs = JSON.parse((await ws.pulumi(["stack", "output", "--json"])).stdout) as Record<string, string>;
      orgId = outputs.organizationId!;
      dataSourceId = outputs.dataSourceId!;
      await page.waitForSelector(`[data-organization="${orgId}"] h3:text-is("Demo Analytics")`);
      await page.waitForSelector(`${badge(dataSourceId, "sync")}[data-status="SYNCING"]`);
      expect(await page.textContent(`[data-data-source="${dataSourceId}"] [data-field="displayName"] dd`)).toBe("Demo warehouse");
      expect(await page.textContent(`[data-data-source="${dataSourceId}"] [data-secret="password"] dd`)).toBe("set");
      expect(await page.textContent(`[data-data-source="${dataSourceId}"] [data-secret="sshPassword"] dd`)).toBe("not set");

      releaseSyncs();
      await page.waitForSelector(`${badge(dataSourceId, "sync")}[data-status="SUCCEEDED"]`);
      await page.waitForSelector(`${badge(dataSourceId, "health")}[data-status="HEALTHY"]`);
      expect(await page.textContent(`[data-data-source="${dataSourceId}"] .tables`)).toContain("public.customers: id integer, email character varying(254)");
      expect(await page.evaluate(() => window.sameDocument as boolean | undefined)).toBe(true);
      expect(navigations).toBe(1);
      expect(captured.requests.filter((url) => !url.startsWith(`${server.url}/`) && url !== "data:,")).toEqual([]);
    });
  }, 300_000);

  it("is reachable by keyboard: Tab reaches every control with its focus drawn, Space and Enter operate a switch and the saved-state form", async () => {
    await withEvidence("keyboard", async () => {
      const order = await tabThrough(page);
      expect(order.map((f) => f.key).sort()).toEqual((await focusables(page)).sort());
      expect(order.length).toBeGreaterThanOrEqual(8);
      expect(order.filter((f) => !f.outlined).map((f) => f.key)).toEqual([]);

      const rateLimit = 'button[data-scope="createOrganization"][data-key="rateLimitNext"]';
      await tabTo(page, rateLimit);
      await page.keyboard.press("Space");
      await page.waitForSelector(`${rateLimit}[aria-checked="true"]`);
      expect(server.faults.settings()).toEqual({ routes: { createOrganization: { rateLimitNext: 1 } } });
      await page.keyboard.press("Enter");
      await page.waitForSelector(`${rateLimit}[aria-checked="false"]`);
      expect(server.faults.settings()).toEqual({});

      await tabTo(page, "#saved-state-name");
      await page.keyboard.type("after-first-up");
      await page.keyboard.press("Enter");
      await page.waitForSelector('#saved-states .saved-state-name:text-is("after-first-up")');
      expect(server.savedStates.list()).toMatchObject([{ name: "after-first-up", organizations: 1, dataSources: 1 }]);
      await tabTo(page, 'button[aria-label="Restore saved state after-first-up"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => page.textContent("#saved-state-message"), { timeout: 15_000 }).toBe("Restored the saved state “after-first-up”.");
    });
  }, 120_000);

  it("switches a fault on by a click: the next pulumi up retries the create, and the page lists the failed attempt and the retry", async () => {
    await withEvidence("fault", async () => {
      const failNext = 'button[data-scope="createDataSource"][data-key="failNext"]';
      await page.click(failNext);
      await page.waitForSelector(`${failNext}[aria-checked="true"]`);
      expect(server.faults.settings()).toEqual({ routes: { createDataSource: { failNext: 1 } } });

      // A new display name replaces the data source: one create, which the switch fails once.
      await ws.pulumi(["config", "set", "warehouse:displayName", "Demo warehouse, renamed"]);
      const up = await ws.pulumi(["up", "--yes"]);
      expect(up.stdout).toMatch(/Retrying the create of/);
      await page.waitForSelector(`${failNext}[aria-checked="false"]`);
      const path = `/api/public/organizations/${orgId}/data-sources`;
      const rows = async () =>
        (
          await page.$$eval("#requests tbody tr", (trs) =>
            trs.map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => (td.textContent as string | null) ?? "")),
          )
        ).filter((cells) => cells[2] === path);
      // Newest first: the retry's 201, the injected 503, then the first up's 201.
      await expect
        .poll(async () => (await rows()).map((cells) => `${cells[1]} ${cells[3]} ${cells[4]}`), { timeout: 15_000 })
        .toEqual(["POST 201 none", "POST 503 routes.createDataSource.failNext", "POST 201 none"]);
      expect(await page.textContent("#faults-injected")).toContain("1 error");
    });
  }, 300_000);

  it("shows no secret value: not in the DOM, not in any answer or event the page received", async () => {
    await withEvidence("secrets", async () => {
      await Promise.all(captured.pending);
      const urls = captured.responses.map((r) => new URL(r.url).pathname);
      expect(urls).toEqual(
        expect.arrayContaining([
          "/_reference/console",
          "/_reference/console/console.js",
          "/_reference/console/state",
          "/_reference/faults",
          "/_reference/saved-states",
        ]),
      );
      expect(captured.events.length).toBeGreaterThan(3);
      const surfaces = [await page.content(), await page.evaluate(() => document.body.innerText), ...captured.responses.map((r) => r.body), ...captured.events];
      for (const secret of [WAREHOUSE_PASSWORD, server.apiKeys.console!]) {
        for (const text of surfaces) expect(text).not.toContain(secret);
      }
    });
  }, 60_000);

  it("puts names into the page as text, never as markup", async () => {
    await withEvidence("markup", async () => {
      const name = '<img src="x" onerror="window.injected = true">';
      const created = await fetch(`${server.url}/api/public/organizations`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.apiKeys.console!}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const { data } = (await created.json()) as { data: { id: string } };
      await page.waitForSelector(`[data-organization="${data.id}"] h3`);
      expect(await page.textContent(`[data-organization="${data.id}"] h3`)).toBe(name);
      expect(await page.$$("#organizations img")).toEqual([]);
      expect(await page.evaluate(() => window.injected as boolean | undefined)).toBeUndefined();
    });
  }, 60_000);

  it("has no serious or critical accessibility violation by axe-core", async () => {
    await withEvidence("axe", async () => {
      await page.evaluate(fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
      const results = await page.evaluate(() => (window.axe as typeof import("axe-core")).run(document));
      const byImpact: Record<string, string[]> = {};
      for (const v of results.violations) (byImpact[v.impact ?? "none"] ??= []).push(`${v.id} (${v.nodes.length})`);
      process.stderr.write(
        `[console-browser] axe-core ${results.testEngine.version}: ${results.passes.length} rules passed, violations by impact ${JSON.stringify(byImpact)}\n`,
      );
      expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    });
  }, 60_000);
});
