import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { descendantPids, isAlive, signalGroup, signalProcessTree, stopProcessTree, trackProcessTree, type TreeMember } from "./process-group";

/**
 * A detached node that starts a `sleep` in a process group of its own, as the Pulumi engine starts
 * its plugins, and prints the sleep's pid. With `ignoreTerm`, the parent ignores SIGTERM.
 */
async function treeWithPlugin(ignoreTerm = false): Promise<{ child: ChildProcessByStdio<null, Readable, Readable>; plugin: number; exited: Promise<void> }> {
  const script = `
    ${ignoreTerm ? 'process.on("SIGTERM", () => {});' : ""}
    const plugin = require("node:child_process").spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    console.log(plugin.pid);
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  trackProcessTree(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const plugin = await new Promise<number>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  return { child, plugin, exited };
}

const member = (pid: number): TreeMember => ({ pid, start: fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]! });

describe.runIf(fs.existsSync("/proc/self/stat"))("process trees", () => {
  it("a signal to the child's group alone misses a grandchild in its own group; signalProcessTree reaches it", async () => {
    const { child, plugin, exited } = await treeWithPlugin();
    expect(descendantPids(child.pid!)).toEqual([plugin]);
    const pluginMember = member(plugin);
    signalGroup(child.pid!, "SIGKILL");
    await exited;
    // Orphaned: no longer a descendant of anything we know, but alive.
    expect(isAlive(pluginMember)).toBe(true);
    signalGroup(plugin, "SIGKILL");

    const second = await treeWithPlugin();
    const secondPlugin = member(second.plugin);
    const reached = signalProcessTree(second.child.pid!, "SIGKILL").map((m) => m.pid);
    expect(reached.sort()).toEqual([second.child.pid!, second.plugin].sort());
    await second.exited;
    for (let i = 0; i < 100 && isAlive(secondPlugin); i++) await new Promise((r) => setTimeout(r, 20));
    expect(isAlive(secondPlugin)).toBe(false);
  });

  it("stopProcessTree sends SIGTERM, SIGKILLs what ignores it after the grace period, and resolves once all are gone", async () => {
    const { child, plugin, exited } = await treeWithPlugin(true);
    const pluginMember = member(plugin);
    const started = Date.now();
    await stopProcessTree(child, { graceMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await exited;
    expect(child.signalCode).toBe("SIGKILL");
    expect(isAlive(pluginMember)).toBe(false);
  });

  it("stopProcessTree on a child that exits on SIGTERM returns without waiting out the grace period", async () => {
    const { child, plugin } = await treeWithPlugin(false);
    const pluginMember = member(plugin);
    const started = Date.now();
    await stopProcessTree(child, { graceMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(child.signalCode).toBe("SIGTERM");
    expect(isAlive(pluginMember)).toBe(false);
  });
});
