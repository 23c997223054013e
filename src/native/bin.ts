#!/usr/bin/env node
/**
 * `pulumi-resource-analytics`: the native provider plugin. The engine starts it (with its own
 * address as argument, where notices are logged), reads the port from the first line of stdout and
 * speaks gRPC to it. The plugin exits when the engine closes its stdin, on SIGINT or SIGTERM.
 * `pulumi-resource-analytics --version` prints the version and the Node.js it runs on, e.g.
 * `0.1.0 (Node.js v24.21.0)` (for the single file, the one built into it), and exits.
 */
import { runPlugin } from "./plugin-main";

runPlugin();
