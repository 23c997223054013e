/**
 * CrossGuard policies for analytics resources, and a ready pack of them. Needs the optional peer
 * dependency @pulumi/policy; without it, loading this module fails with a message naming it.
 */
import { assertPolicySdk } from "./policy-sdk";

assertPolicySdk();

// Loaded only after the check above, so a missing SDK surfaces as that message.
const sdk = require("@pulumi/policy") as typeof import("@pulumi/policy");
const policies = require("./policies") as typeof import("./policies");

export type { NamingConventionConfig, ProductionHostsConfig } from "./policies";
export { POLICY_SDK_PACKAGE } from "./policy-sdk";

/** Every analytics policy, in pack order. */
export const analyticsPolicies = policies.analyticsPolicies;
/** Data sources must connect with SSL (mandatory). */
export const sslRequired = policies.sslRequired;
/** SSH tunnels must authenticate with a private key (advisory). */
export const sshKeyAuthentication = policies.sshKeyAuthentication;
/** Credentials must not be repeated in plain-text inputs (mandatory). */
export const noPlaintextCredentials = policies.noPlaintextCredentials;
/** No loopback, link-local or private hosts in production stacks (mandatory). */
export const productionHosts = policies.productionHosts;
/** Organization and data-source names match patterns (disabled until configured). */
export const namingConvention = policies.namingConvention;

/** Options of {@link createPolicyPack}. */
export interface PolicyPackOptions {
  /** Pack name shown by the CLI; defaults to `pulumi-analytics`. */
  name?: string;
  /** Policies added after the analytics ones (your own typed checks). */
  policies?: import("@pulumi/policy").Policies;
  /** Level for policies that set none; defaults to advisory, as in @pulumi/policy. */
  enforcementLevel?: import("@pulumi/policy").EnforcementLevel;
}

/**
 * Starts serving the analytics policies (plus `options.policies`) as a policy pack. Call it once,
 * from the pack's entry file: a pack process serves exactly one pack.
 */
export function createPolicyPack(options: PolicyPackOptions = {}): import("@pulumi/policy").PolicyPack {
  return new sdk.PolicyPack(options.name ?? "pulumi-analytics", {
    policies: [...policies.analyticsPolicies, ...(options.policies ?? [])],
    ...(options.enforcementLevel ? { enforcementLevel: options.enforcementLevel } : {}),
  });
}
