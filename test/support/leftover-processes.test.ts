import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_RUN_MARKER, findMarkedProcesses, newRunId, selfAndAncestors, survivors } from "./leftover-processes";

describe.runIf(fs.existsSync("/proc/self/environ"))("leftover-process scan", () => {
  it("finds a detached process carrying the marker, with its command line and cwd, and not once it is killed", async () => {
    const value = newRunId();
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "leftover-"));
    const child = spawn("sleep", ["30"], { cwd, env: { ...process.env, [TEST_RUN_MARKER]: value }, detached: true, stdio: "ignore" });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const found = findMarkedProcesses(value);
      expect(found).toEqual([{ pid: child.pid, cmdline: "sleep 30", cwd }]);
      // Another run's marker, and excluded pids, do not match.
      expect(findMarkedProcesses(newRunId())).toEqual([]);
      expect(findMarkedProcesses(value, { exclude: new Set([child.pid!]) })).toEqual([]);
      // A deleted working directory still shows, marked as such.
      fs.rmSync(cwd, { recursive: true, force: true });
      expect(findMarkedProcesses(value)[0]?.cwd).toBe(`${cwd} (deleted)`);
    } finally {
      process.kill(-child.pid!, "SIGKILL");
      fs.rmSync(cwd, { recursive: true, force: true });
    }
    await exited;
    expect(findMarkedProcesses(value)).toEqual([]);
    expect(await survivors(value, { graceMs: 0 })).toEqual([]);
  });

  it("waits out a straggler that exits within the grace period", async () => {
    const value = newRunId();
    const child = spawn("sleep", ["0.3"], { env: { ...process.env, [TEST_RUN_MARKER]: value }, stdio: "ignore" });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    expect(findMarkedProcesses(value).map((p) => p.pid)).toEqual([child.pid]);
    expect(await survivors(value, { graceMs: 5_000 })).toEqual([]);
    await exited;
  });

  it("lists this process and its ancestors, to be left out of the scan", () => {
    const pids = selfAndAncestors();
    expect(pids.has(process.pid)).toBe(true);
    expect(pids.has(process.ppid)).toBe(true);
  });
});
