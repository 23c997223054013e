/**
 * A raw TCP server for tests that play a network peer byte by byte (a fake Postgres, a proxy that
 * cuts connections, a server that never answers). It tracks its sockets so a test can drop every
 * connection mid-exchange and so closing it leaves no socket behind to keep the worker alive.
 */
import * as fs from "node:fs";
import * as net from "node:net";

/** A running {@link startTcpServer}; plain closures, so its methods survive being spread or passed on. */
export interface TcpTestServer {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** Destroys every open connection; the server keeps listening. */
  dropAll(): void;
  /** Drops every connection and stops listening; calling it again is harmless. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, on `port` (by default one the OS picks), and hands each accepted socket to `onSocket`. */
export async function startTcpServer(onSocket: (socket: net.Socket) => void, port = 0): Promise<TcpTestServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A peer's reset is part of what these tests provoke, not a failure of the test.
    socket.on("error", () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      dropAll();
      server.close(() => resolve());
    });
    return closed;
  };
  return { port: (server.address() as net.AddressInfo).port, dropAll, close };
}

/**
 * The lowest port the kernel hands out for port 0 (`ip_local_port_range`; Linux's default where
 * that file is missing).
 */
function ephemeralLow(): number {
  try {
    return Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A port nothing listens on, on 127.0.0.1, taken below the range the kernel hands out for port 0:
 * a server another test starts on port 0 meanwhile cannot land on it while a test expects its
 * connections refused (one in the range, released, was once taken by another file's server).
 */
export async function unusedPort(): Promise<number> {
  const low = Math.max(ephemeralLow(), 20_001);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * (low - 20_000));
    const probe = await startTcpServer(() => undefined, port).catch(() => undefined);
    if (!probe) continue;
    await probe.close();
    return port;
  }
  throw new Error("no free port on 127.0.0.1 between 20000 and the kernel's range for port 0");
}
