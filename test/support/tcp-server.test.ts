import * as fs from "node:fs";
import * as net from "node:net";
import { describe, expect, it } from "vitest";
import { startTcpServer, unusedPort } from "./tcp-server";

/** Connects to 127.0.0.1:`port` and resolves once the socket is open, with a promise of its close. */
async function connect(port: number): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  const socket = net.connect(port, "127.0.0.1");
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () => resolve());
  });
  // Resets from the server's side are what the test provokes.
  socket.on("error", () => undefined);
  return { socket, closed };
}

describe("startTcpServer", () => {
  it("hands each socket over, drops them all while still listening, and closes twice harmlessly", async () => {
    const received: string[] = [];
    const server = await startTcpServer((socket) => socket.on("data", (chunk: Buffer) => received.push(chunk.toString())));
    expect(server.port).toBeGreaterThan(0);
    const first = await connect(server.port);
    first.socket.write("hello");
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received).toEqual(["hello"]);
    server.dropAll();
    await first.closed;
    const second = await connect(server.port);
    await server.close();
    await second.closed;
    await server.close();
    await expect(connect(server.port)).rejects.toThrow();
  });
});

describe("unusedPort", () => {
  it("gives a refused port below the kernel's range for port 0, which a server on port 0 can never be given", async () => {
    const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const port = await unusedPort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(low);
    await expect(connect(port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
