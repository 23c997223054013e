/**
 * Servers the bench starts as plain processes (the reference server, Prism, the bare server): spawning
 * them in their own process group, asking them one HTTP request, and stopping them with their
 * children.
 */
import { spawn } from "node:child_process";
import * as http from "node:http";
import * as net from "node:net";
import { stopProcessTree, trackProcessTree } from "@pulumi-analytics/toolchain";

/** A process spawned in its own process group. */
export interface Spawned {
  /** Resolves with the first match of `pattern` in its stdout (rejects if it exits first). */
  stdoutMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** Its stderr so far, for error messages. */
  stderr(): string;
  /** Sends SIGTERM to it and everything it started and waits for the exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** Spawns `command` in a new process group, stdout and stderr piped (and drained). */
export function spawnGroup(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  // Tracked: signals the bench gets reach the group, and whatever still runs when it exits is killed.
  const child = trackProcessTree(spawn(command, args, { env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] }));
  let out = "";
  let err = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdout.on("data", (chunk: Buffer) => {
    if (out.length < 1 << 16) out += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    if (err.length < 1 << 16) err += chunk.toString("utf8");
  });
  const stdoutMatch = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = pattern.exec(out);
        if (match) resolve(match);
        return match !== null;
      };
      if (check()) return;
      const onData = (): void => {
        if (check()) child.stdout.off("data", onData);
      };
      child.stdout.on("data", onData);
      void exited.then(() => reject(new Error(`${command} exited before printing ${pattern}: ${err.slice(0, 500)}`)));
    });
  const stop = (): Promise<void> => stopProcessTree(child);
  return { stdoutMatch, stderr: () => err, stop };
}

/**
 * A port on 127.0.0.1 that was free a moment ago, drawn from 20000-29999: below Linux's ephemeral
 * range, so no process listening on port 0 (the engine's gRPC servers, say) takes it between this
 * check and the spawned server's listen.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** One HTTP request (POST unless `method` says otherwise). */
export interface Ask {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An HTTP answer, body read in full. */
export interface Answer {
  status: number;
  body: string;
}

/** Sends one request on a fresh connection and reads the whole answer (fails after 30 s). */
export function ask(request: Ask): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(request.url, { method: request.method ?? "POST", headers: request.headers, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`no answer from ${request.url} within 30 s`)));
    req.end(request.body);
  });
}

/** Sends one request and returns the answer's body; throws unless it is 201 (`what` names the request in the error). */
export async function expectCreated(request: Ask, what: string): Promise<string> {
  const answer = await ask(request);
  if (answer.status !== 201) throw new Error(`${what} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return answer.body;
}

/**
 * Sends `request` as soon as the port accepts: retried every millisecond while the connection is
 * refused, or while `until` rejects the answer, for up to 60 s. Resolves with the first answer
 * `until` accepts (any, by default); throws with the last one's status when none is accepted in time.
 */
export async function askOnceListening(request: Ask, until: (answer: Answer) => boolean = () => true): Promise<Answer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const answer = await ask(request);
      if (until(answer)) return answer;
      if (Date.now() > deadline) throw new Error(`${request.url} still answers ${answer.status} after 60 s`);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== "ECONNREFUSED" && code !== "ECONNRESET") || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
