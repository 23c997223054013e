import { describe, expect, it } from "vitest";
import { retryingSilentEnds, WINE_STARTS } from "./wine";

/** A run that fails with each of `messages` in turn, then resolves with "served"; counts its starts. */
function failing(messages: string[]): { run: () => Promise<string>; starts: () => number } {
  let starts = 0;
  return {
    run: async () => {
      const message = messages[starts++];
      if (message !== undefined) throw new Error(message);
      return "served";
    },
    starts: () => starts,
  };
}

describe("retryingSilentEnds", () => {
  it.each([
    "it exited (1) before printing its port: ",
    "it exited (0) before listening: ",
    "/usr/lib/wine/wine64 plugin.exe --version exited 1: ",
    '--version printed "", not "0.1.0 (Node.js v24.21.0)"',
  ])("starts again after a silent end: %s", async (message) => {
    const lines: string[] = [];
    const attempt = failing([message]);
    await expect(retryingSilentEnds(attempt.run, (line) => lines.push(line))).resolves.toBe("served");
    expect(attempt.starts()).toBe(2);
    expect(lines).toEqual([`[wine] start 1 of ${WINE_STARTS} ended with nothing printed (${message}); starting again`]);
  });

  it.each([
    "it exited (1) before printing its port: Error: listen EADDRINUSE",
    "/usr/lib/wine/wine64 plugin.exe --version exited 1: Fatal process out of memory",
    '--version printed "0.0.9 (Node.js v24.21.0)", not "0.1.0 (Node.js v24.21.0)"',
    'GetPluginInfo answered version "", not 0.1.0',
  ])("fails at once on a failure that says something: %s", async (message) => {
    const attempt = failing([message]);
    await expect(retryingSilentEnds(attempt.run, () => {})).rejects.toThrow(message);
    expect(attempt.starts()).toBe(1);
  });

  it(`fails with the last silent end after ${WINE_STARTS} starts`, async () => {
    const attempt = failing(Array.from({ length: WINE_STARTS + 1 }, (_, i) => `it exited (${i}) before printing its port: `));
    await expect(retryingSilentEnds(attempt.run, () => {})).rejects.toThrow(`it exited (${WINE_STARTS - 1}) before printing its port: `);
    expect(attempt.starts()).toBe(WINE_STARTS);
  });
});
