#!/usr/bin/env node
import * as nodeModule from "node:module";

// Node 22.1 and later can keep compiled code on disk between runs, which shortens every later
// start; on older versions there is no such function and nothing changes. Called before the
// server's modules load, so they are the ones cached.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

(require("./main") as typeof import("./main")).runReferenceServer();
