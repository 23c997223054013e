/**
 * The entry of the single file's V8 start-up snapshot (tools/lib/start-up-snapshot.js). Run once,
 * when the single file is built: it loads the server and its command line, all the server loads
 * before it listens, and names main.ts's {@link runReferenceServer} as what the single file runs
 * when it starts. zod and pg stay out, loaded on first use as from the npm package: zod's modules
 * and schemas held in the snapshot made every start slower than building them at the first
 * validation. node:http cannot be held in a snapshot: the single file's bundle loads it when the
 * server starts. Nothing here opens a handle or reads the arguments, the environment or the clock.
 */
import * as v8 from "node:v8";
import { runReferenceServer } from "./main";

v8.startupSnapshot.setDeserializeMainFunction(runReferenceServer);
