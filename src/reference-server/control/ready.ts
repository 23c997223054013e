/**
 * The readiness route: answered by every server, with or without the inspection surface, never
 * counted as API traffic and never shaped by faults. A server answers it only once it listens,
 * which is after its state was loaded, so any answer means ready.
 */
import type { ServerResponse } from "node:http";
import { sendData, unmatchedRoute } from "../http/envelope";
import { INSPECTION_PREFIX } from "./inspection";

/** Where the server says it is ready. */
export const READY_PATH = `${INSPECTION_PREFIX}/ready`;

/** Answers `GET`/`HEAD` of {@link READY_PATH} with `{"data":{"ready":true}}`; 405 for other methods. */
export async function answerReady(res: ServerResponse, method: string): Promise<void> {
  if (method !== "GET" && method !== "HEAD") {
    throw unmatchedRoute({ kind: "method-not-allowed", route: { id: "ready", pattern: READY_PATH, methods: ["GET", "HEAD"] }, allow: ["GET", "HEAD"] }, "");
  }
  sendData(res, 200, { ready: true });
}
