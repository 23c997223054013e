#!/usr/bin/env node
// @ts-check
/**
 * Regenerates docs/assets/console.png, the reference server's console after the demo's
 * `pulumi up`, as docs/reference-server-inspection.md shows it: runs `npm run demo -- --keep`, opens the
 * console it prints in Debian's Chromium (tools/lib/chromium.js) once the sync has succeeded, takes a
 * full-page screenshot at a fixed size, then stops the demo as Ctrl-C would.
 * Usage: node tools/console-screenshot.js [output.png]
 * The layout is the same at every run; ids, times and latencies are the run's own.
 */
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");
const { launchChromium } = require("./lib/chromium.js");

const repoRoot = path.resolve(__dirname, "..");
/** Where docs/reference-server-inspection.md expects the picture. */
const DEFAULT_OUTPUT = path.join(repoRoot, "docs", "assets", "console.png");
/** The screenshot's width in CSS pixels (one device pixel each); its height is the page's. */
const VIEWPORT = { width: 1280, height: 800 };

/**
 * Starts `npm run demo -- --keep` in its own process group; resolves with the console's address
 * once the demo keeps the server running, and a function that stops it as Ctrl-C does.
 * @returns {Promise<{ consoleUrl: string, stop: () => Promise<string> }>}
 */
function startDemo() {
  const child = spawn("npm", ["run", "--silent", "demo", "--", "--keep"], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"], detached: true });
  /** @type {Promise<string>} how it ended: "code 0", "signal SIGINT", … */
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`)));
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      output += chunk.toString();
      const consoleUrl = output.match(/Console: (http:\/\/\S+)/)?.[1];
      if (consoleUrl && output.includes("Press Ctrl-C")) {
        resolve({ consoleUrl, stop: () => (child.pid !== undefined && process.kill(-child.pid, "SIGINT"), exited) });
      }
    });
    void exited.then((how) => reject(new Error(`the demo ended (${how}) before keeping its server running`)));
  });
}

/** @param {string} consoleUrl @param {string} output */
async function screenshot(consoleUrl, output) {
  const context = await launchChromium({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: "light", reducedMotion: "reduce" });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(consoleUrl);
    await page.waitForSelector('[data-live="sync"][data-status="SUCCEEDED"]');
    await page.waitForSelector('#connection[data-state="live"]');
    await page.evaluate("document.fonts.ready");
    await page.screenshot({ path: output, fullPage: true, animations: "disabled", caret: "hide" });
  } finally {
    await context.close();
  }
}

async function main() {
  const output = path.resolve(process.argv[2] ?? DEFAULT_OUTPUT);
  const demo = await startDemo();
  try {
    await screenshot(demo.consoleUrl, output);
    process.stdout.write(`\nwrote ${path.relative(repoRoot, output)}\n`);
  } finally {
    // npm passes Ctrl-C on as the demo's own ending, or ends by the same signal.
    const how = await demo.stop();
    if (!["code 0", "code 130", "signal SIGINT"].includes(how)) {
      process.stderr.write(`console-screenshot: the demo ended with ${how} after Ctrl-C\n`);
      process.exitCode = 1;
    }
  }
}

main().catch((error) => {
  process.stderr.write(`console-screenshot: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
