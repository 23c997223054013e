/**
 * Scenario container: the reference server's image started by podman and by Docker, each against
 * its engine's floor image, and against its single file on the host and `node
 * dist/reference-server/bin.js`, start to ready; the image's size per platform (bench/lib/container.ts).
 */
import { runContainerScenario, type ContainerResult } from "../lib/container";
import type { RunContext } from "../lib/figure";

export { containerFigures as figures } from "../lib/container";

export function run({ args, log }: RunContext): Promise<ContainerResult> {
  return runContainerScenario(args.quick ? 2 : 15, log);
}
