export {
  MINIMUM_GO_VERSION,
  MINIMUM_PULUMI_VERSION,
  PINNED_JAVA_VERSION,
  PINNED_PULUMI_VERSION,
  PINNED_YAML_VERSION,
  DOTNET_GENERATOR,
  GO_LANGUAGE_HOST,
  JAVA_LANGUAGE_HOST,
  PYTHON_EXEC,
  PYTHON_LANGUAGE_HOST,
  POLICY_ANALYZER,
  ToolchainError,
  YAML_LANGUAGE_HOST,
  compareVersions,
  pulumiEnvironment,
  resolvePinnedGoTool,
  resolveNewestPulumiToolchain,
  resolvePulumiToolchain,
  toolchainPathDirs,
} from "./pulumi-cli";
export type { PinnedGoTool, PulumiToolchain, ResolveOptions, ToolchainSource } from "./pulumi-cli";
export { runPulumi } from "./run-pulumi";
export type { PulumiRunResult, RunPulumiOptions } from "./run-pulumi";
export { descendantPids, signalGroup, signalProcessTree, stopProcessTree, trackProcessTree } from "./process-group";
export type { StopOptions, TreeMember } from "./process-group";
