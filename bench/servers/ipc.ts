import { procMemory } from "../lib/proc";

/** What a server child reports once it listens. */
export interface ServerReady {
  /** Base URL on 127.0.0.1. */
  url: string;
  /** Bench user's API key (empty for the bare server). */
  apiKey: string;
}

/** Memory of a server child after a full GC. */
export interface ServerMemory {
  /** VmRSS, MiB. */
  rssMiB: number;
  /** VmHWM, MiB. */
  peakRssMiB: number;
  /** V8 heap in use, MiB. */
  heapUsedMiB: number;
}

/** Announces `ready` to the parent and answers its `memory` and `close` requests. */
export function serveIpc(ready: ServerReady, close: () => Promise<void>): void {
  process.on("message", (message: { type: string }) => {
    if (message.type === "memory") {
      (globalThis as { gc?: () => void }).gc?.();
      const mem = procMemory(process.pid);
      const reply: ServerMemory = {
        rssMiB: (mem?.rssKiB ?? 0) / 1024,
        peakRssMiB: (mem?.peakKiB ?? 0) / 1024,
        heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
      };
      process.send?.({ type: "memory", memory: reply });
    } else if (message.type === "close") {
      void close().finally(() => process.exit(0));
    }
  });
  // Never outlive the bench, whatever happens to it.
  process.on("disconnect", () => process.exit(0));
  process.send?.({ type: "ready", ready });
}
