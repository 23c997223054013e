import { performance } from "node:perf_hooks";

/** The longest a commit waits for requests to join it, ms. */
export const MAX_GATHER_MS = 2;

/**
 * Group commit: requests made while a commit runs share the next one, and each resolves once a
 * commit that started after it was made has finished (rejects if that commit failed).
 *
 * Callers a commit answered tend to come back together (a server's clients send their next
 * request), but not within the same instant: left alone, the first to come back would start a
 * commit of its own and the rest would queue behind it, and a fixed set of clients would settle
 * into two groups taking turns, each waiting for the other's flush. So a commit waits, at most as
 * long as the last commit took and never more than {@link MAX_GATHER_MS}, until as many requests
 * have joined it as were queued or answered when the last commit finished. A lone caller answered
 * by a commit of its own request never waits.
 */
export class GroupCommit {
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** Requests in the queued group. */
  private waiting = 0;
  /** Requests the queued group waits for: those queued or answered when the last commit finished. */
  private expected = 0;
  private lastCommitMs = 0;
  private lastFinishedAt = 0;
  private release: (() => void) | undefined;

  /**
   * `commit` writes everything requested so far; it is never called while a call of it runs.
   * `now` is the clock the wait is measured by, in ms (tests pass their own).
   */
  constructor(
    private readonly commit: () => Promise<void>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves once a commit that started after this call has finished. */
  request(): Promise<void> {
    this.waiting++;
    if (this.waiting >= this.expected) this.release?.();
    if (this.queued) return this.queued;
    const previous = this.inFlight ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        await this.gather();
        // From here on, later requests need a later commit: this one may already miss them.
        this.queued = undefined;
        const carried = this.waiting;
        this.waiting = 0;
        const started = this.now();
        const running = this.commit();
        this.inFlight = running;
        try {
          await running;
        } finally {
          if (this.inFlight === running) this.inFlight = undefined;
          this.lastFinishedAt = this.now();
          this.lastCommitMs = this.lastFinishedAt - started;
          this.expected = this.waiting + carried;
        }
      });
    this.queued = run;
    return run;
  }

  /** Resolves once no commit is running or queued (failures are the requesters' to handle). */
  async idle(): Promise<void> {
    while (this.queued ?? this.inFlight) {
      await (this.queued ?? this.inFlight)!.catch(() => undefined);
    }
  }

  /** Waits until the queued group holds the requests expected, or the wait allowed since the last commit is over. */
  private gather(): Promise<void> {
    const left = Math.min(this.lastCommitMs, MAX_GATHER_MS) - (this.now() - this.lastFinishedAt);
    if (this.waiting >= this.expected || left <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (this.release !== done) return;
        clearTimeout(timer);
        this.release = undefined;
        resolve();
      };
      this.release = done;
      // A timer waits 1 ms at least: under that, two event-loop turns (one poll for requests) instead.
      if (left >= 1) timer = setTimeout(done, left);
      else setImmediate(() => setImmediate(done));
    });
  }
}
