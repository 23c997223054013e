/** Debian's Docker daemon for a test: bench/lib/dockerd.ts, which the bench's container scenario starts too. */
export { forwardPolicy, startDockerd, type Dockerd } from "../../bench/lib/dockerd";
