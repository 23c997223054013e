/**
 * Child process for the server scenario's floor: a bare node:http server on 127.0.0.1
 * that reads and JSON-parses the body and answers 201 with a fixed body (a real response of the
 * reference server, from BENCH_BARE_RESPONSE), so both servers put the same bytes on the wire.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

const answer = process.env.BENCH_BARE_RESPONSE ?? "{}";
/** Port to listen on (default 0, a free one): the start-up measurement starts it on a known port. */
const port = Number(process.env.BENCH_BARE_PORT ?? 0);
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(201, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(answer) }).end(answer);
  });
});
server.listen(port, "127.0.0.1", () => {
  const { port: listening } = server.address() as AddressInfo;
  process.stdout.write(`ready ${JSON.stringify({ url: `http://127.0.0.1:${listening}`, apiKey: "" })}\n`);
});
