/** What a server child reports once it listens. */
export interface ServerReady {
  /** Base URL on 127.0.0.1. */
  url: string;
  /** Bench user's API key (empty for the bare server). */
  apiKey: string;
}

/** Announces `ready` to the parent and answers its `close` request. */
export function serveIpc(ready: ServerReady, close: () => Promise<void>): void {
  process.on("message", (message: { type: string }) => {
    if (message.type === "close") void close().finally(() => process.exit(0));
  });
  // Never outlive the bench, whatever happens to it.
  process.on("disconnect", () => process.exit(0));
  process.send?.({ type: "ready", ready });
}
