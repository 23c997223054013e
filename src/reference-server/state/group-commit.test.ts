import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit";

/**
 * A GroupCommit whose commits finish when the test says, recording how many requests each carried.
 * Its clock moves only while a commit runs (each takes 5 ms by it), so how long a commit waits for
 * its group depends on the requests alone, never on how busy the machine is.
 */
function controlled(): { group: GroupCommit; sizes: number[]; finish: (error?: Error) => void; request: () => Promise<void> } {
  const sizes: number[] = [];
  let clock = 0;
  let requested = 0;
  let committed = 0;
  let finishCurrent: ((error?: Error) => void) | undefined;
  const group = new GroupCommit(
    () =>
      new Promise<void>((resolve, reject) => {
        sizes.push(requested - committed);
        committed = requested;
        finishCurrent = (error) => {
          clock += 5;
          if (error) reject(error);
          else resolve();
        };
      }),
    () => clock,
  );
  const request = (): Promise<void> => {
    requested++;
    return group.request();
  };
  return { group, sizes, request, finish: (error) => finishCurrent!(error) };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits, turn by turn, until `sizes` records `count` commits started. */
async function started(sizes: readonly number[], count: number): Promise<void> {
  while (sizes.length < count) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("GroupCommit", () => {
  it("shares one commit among the requests made while another runs, each resolved only once its commit finished", async () => {
    const { sizes, request, finish } = controlled();
    let firstDone = false;
    const first = request().then(() => (firstDone = true));
    await turn();
    const later = [request(), request(), request()];
    let laterDone = 0;
    for (const p of later) void p.then(() => laterDone++);
    await turn();
    expect(firstDone).toBe(false);
    finish();
    await first;
    await started(sizes, 2);
    await turn();
    expect(laterDone).toBe(0); // their commit started after the first finished, and has not finished
    finish();
    await Promise.all(later);
    expect(sizes).toEqual([1, 3]);
  });

  it("keeps the callers of a commit together: those coming back a moment later share the next commit", async () => {
    const { sizes, request, finish } = controlled();
    const clients = 4;
    // Each client sends its next request a moment (one event-loop turn) after its last one was answered.
    const client = async (rounds: number): Promise<void> => {
      for (let i = 0; i < rounds; i++) {
        await request();
        await turn();
      }
    };
    let done = false;
    const running = Promise.all(Array.from({ length: clients }, () => client(3))).then(() => (done = true));
    for (let commit = 1; !done; commit++) {
      while (sizes.length < commit && !done) await new Promise((resolve) => setTimeout(resolve, 1));
      if (done) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
      finish();
    }
    await running;
    expect(sizes).toEqual([4, 4, 4]);
  });

  it("commits a lone caller's request without waiting for others", async () => {
    const { sizes, request, finish } = controlled();
    const first = request();
    await turn();
    finish();
    await first;
    const second = request();
    await turn();
    expect(sizes).toEqual([1, 1]);
    finish();
    await second;
  });

  it("rejects the requests of a failed commit and runs the next one", async () => {
    const { group, sizes, request, finish } = controlled();
    const failed = request();
    await turn();
    const next = request();
    finish(new Error("disk full"));
    await expect(failed).rejects.toThrow("disk full");
    await started(sizes, 2);
    finish();
    await next;
    await group.idle();
    expect(sizes).toEqual([1, 1]);
  });
});
