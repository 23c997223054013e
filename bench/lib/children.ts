import { fork, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import type { ServerReady } from "../servers/ipc";

/** A server running in its own process, so it and the load generator each get a core. */
export interface ServerChild extends ServerReady {
  /** Its pid. */
  pid: number;
  /** Stops it (bounded: killed after 5 s). */
  stop(): Promise<void>;
}

/** Extra node flags for server children, e.g. `--cpu-prof` via BENCH_SERVER_NODE_OPTIONS. */
const extraFlags = (process.env.BENCH_SERVER_NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean);

/** Forks `servers/<name>.js` and waits (up to 30 s) until it listens. */
export function startServerChild(name: "reference" | "bare", env: NodeJS.ProcessEnv = {}): Promise<ServerChild> {
  const child: ChildProcess = fork(path.join(__dirname, "..", "servers", `${name}.js`), [], {
    execArgv: extraFlags,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const request = <T>(type: string, reply: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} server did not answer ${type}`)), 30_000);
      const onMessage = (message: { type: string } & Record<string, unknown>): void => {
        if (message.type !== reply) return;
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(message[reply] as T);
      };
      child.on("message", onMessage);
      if (type !== "") child.send({ type });
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${name} server exited with ${code} before listening`)));
    request<ServerReady>("", "ready").then((ready) => {
      resolve({
        ...ready,
        pid: child.pid ?? 0,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
            child.once("exit", () => {
              clearTimeout(timer);
              done();
            });
            child.send({ type: "close" });
          }),
      });
    }, reject);
  });
}
