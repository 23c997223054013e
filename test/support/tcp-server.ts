/**
 * A raw TCP server for tests that play a network peer byte by byte (a fake Postgres, a proxy that
 * cuts connections, a server that never answers). It tracks its sockets so a test can drop every
 * connection mid-exchange and so closing it leaves no socket behind to keep the worker alive.
 */
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

/** Listens on 127.0.0.1, on a port the OS picks, and hands each accepted socket to `onSocket`. */
export async function startTcpServer(onSocket: (socket: net.Socket) => void): Promise<TcpTestServer> {
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
    server.listen(0, "127.0.0.1", () => {
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

/** A port nothing listens on: bound once on 127.0.0.1 by the OS, then released. */
export async function unusedPort(): Promise<number> {
  const probe = await startTcpServer(() => undefined);
  await probe.close();
  return probe.port;
}
