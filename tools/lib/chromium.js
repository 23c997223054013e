// @ts-check
/**
 * Debian's Chromium, driven by playwright-core, as the console's browser test
 * (test/engine/console-browser.test.ts) and tools/console-screenshot.js launch it: the installed
 * browser (no browser download), headless, a fresh profile every time.
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** Where Debian's `chromium` package installs the browser. */
const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags that run it headless as root in a container, with nothing reaching out to the network by itself. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What to do when the browser is not at `executablePath`. @param {string} executablePath */
function missingChromium(executablePath) {
  return `Chromium is not installed at ${executablePath}: the console's browser test drives Debian's chromium package. Install it with \`apt-get install chromium\` (as .ci/run does).`;
}

/**
 * @typedef {NonNullable<Parameters<typeof import("playwright-core").chromium.launchPersistentContext>[1]>} ContextOptions
 */

/**
 * Starts Chromium with a new profile in a temp dir (removed when the context closes) and returns
 * its one browser context. Throws, naming `apt-get install chromium`, when the browser is not there.
 * @param {ContextOptions} [options] viewport, device scale and the like; its `args` come after {@link CHROMIUM_ARGS}
 * @param {string} [executablePath] the browser; Debian's by default
 * @returns {Promise<import("playwright-core").BrowserContext>}
 */
async function launchChromium(options = {}, executablePath = CHROMIUM_PATH) {
  if (!fs.existsSync(executablePath)) throw new Error(missingChromium(executablePath));
  const { chromium } = require("playwright-core");
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-analytics-chromium-"));
  try {
    const args = [...CHROMIUM_ARGS, ...(options.args ?? [])];
    const context = await chromium.launchPersistentContext(profile, { ...options, executablePath, headless: true, args });
    // The browser's last processes may still be writing to the profile as the context closes.
    context.on("close", () => void fs.promises.rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined));
    return context;
  } catch (error) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

module.exports = { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium, missingChromium };
