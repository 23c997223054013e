/** tools/lib/chromium.js without a browser: a missing Chromium fails, naming the package to install. */
import * as fs from "node:fs";
import * as os from "node:os";
import { describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium } from "../tools/lib/chromium.js";

describe("launchChromium", () => {
  it("fails when the browser is missing, naming apt-get install chromium, and leaves no profile behind", async () => {
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("pulumi-analytics-chromium-"));
    await expect(launchChromium({}, "/nonexistent/chromium")).rejects.toThrow(
      "Chromium is not installed at /nonexistent/chromium: the console's browser test drives Debian's chromium package. Install it with `apt-get install chromium`",
    );
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("pulumi-analytics-chromium-"))).toEqual(before);
  });

  it("uses Debian's browser, headless, with nothing reaching out by itself", () => {
    expect(CHROMIUM_PATH).toBe("/usr/bin/chromium");
    expect(CHROMIUM_ARGS).toEqual(
      expect.arrayContaining(["--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"]),
    );
  });
});
