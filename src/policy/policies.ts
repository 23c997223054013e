/** The analytics policies: typed CrossGuard wrappers around the pure checks in ./checks. */
import type { ReportViolation, ResourceValidation, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { dataSourceSpec, kindOfTypeToken, organizationSpec, secretFieldNames, type KindSpec } from "../kinds";
import {
  DEFAULT_NAME_PATTERN,
  DEFAULT_PRODUCTION_STACKS,
  credentialsInPlainFields,
  hostViolation,
  isProductionStack,
  nameViolation,
  sshAuthViolation,
  sslViolation,
  stackOfUrn,
} from "./checks";

/** Settings of {@link productionHosts}. */
export interface ProductionHostsConfig {
  /** Regular expressions (case-insensitive) for the stack names the policy applies to. */
  productionStacks: string[];
}

/** Settings of {@link namingConvention}. */
export interface NamingConventionConfig {
  /** Regular expression organization names must match. */
  organizationPattern: string;
  /** Regular expression data-source display names must match. */
  dataSourcePattern: string;
}

/** A data source's inputs as a policy reads them (secrets arrive unwrapped). */
type Props = Record<string, unknown>;

/**
 * A validation of the resources of `spec`'s kind, whichever provider declares them: the dynamic
 * classes and the native provider record different type tokens for the same kind.
 */
function validateKind(spec: KindSpec, validate: (props: Props, args: ResourceValidationArgs, reportViolation: ReportViolation) => void): ResourceValidation {
  return (args, reportViolation) => {
    if (kindOfTypeToken(args.type) === spec) validate(args.props as Props, args, reportViolation);
  };
}

function report(args: ResourceValidationArgs, reportViolation: ReportViolation, reason: string | undefined): void {
  if (reason) reportViolation(`Data source "${args.name}": ${reason}`);
}

/** Data sources must connect with SSL (mandatory). */
export const sslRequired: ResourceValidationPolicy = {
  name: "analytics-ssl-required",
  description: "Data sources must connect to their database with SSL (sslEnabled: true; omitted means true).",
  enforcementLevel: "mandatory",
  validateResource: validateKind(dataSourceSpec, (props, args, reportViolation) => report(args, reportViolation, sslViolation(props))),
};

/** SSH tunnels must authenticate with a private key, not a password (advisory). */
export const sshKeyAuthentication: ResourceValidationPolicy = {
  name: "analytics-ssh-key-auth",
  description: "SSH tunnels of data sources must authenticate with sshPrivateKey rather than sshPassword.",
  enforcementLevel: "advisory",
  validateResource: validateKind(dataSourceSpec, (props, args, reportViolation) => report(args, reportViolation, sshAuthViolation(props))),
};

/**
 * Credentials must not travel in plain-text fields (mandatory), for every kind that has them. The
 * policy SDK hands policies every input with secrets unwrapped and no secret marker, and the
 * resources make their credential fields secrets anyway, so whether the program passed a secret
 * cannot be seen; what can be seen is a credential repeated in a field that is stored and
 * displayed unencrypted.
 */
export const noPlaintextCredentials: ResourceValidationPolicy = {
  name: "analytics-no-plaintext-credentials",
  description:
    "A credential (a data source's password, SSH password or key, ...) must not also appear in a plain-text input (display name, host, username, ...), which is stored and shown unencrypted.",
  enforcementLevel: "mandatory",
  validateResource: (args, reportViolation) => {
    const spec = kindOfTypeToken(args.type);
    if (spec === undefined || secretFieldNames(spec).length === 0) return;
    const leaks = credentialsInPlainFields(spec, args.props as Props);
    const what = `${spec.noun[0]!.toUpperCase()}${spec.noun.slice(1)} "${args.name}"`;
    if (leaks.length) reportViolation(`${what}: credential value repeated in plain text: ${leaks.join("; ")}. Keep credentials only in their secret fields.`);
  },
};

/** Production stacks must not point at loopback, link-local or private addresses (mandatory). */
export const productionHosts: ResourceValidationPolicy = {
  name: "analytics-production-hosts",
  description: "In stacks named like production, a data source's host (or sshHost through a tunnel) must not be a loopback, link-local or private address.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      productionStacks: {
        type: "array",
        items: { type: "string" },
        default: DEFAULT_PRODUCTION_STACKS,
        description: "Regular expressions (case-insensitive) matching the stack names this policy applies to.",
      },
    },
  },
  validateResource: validateKind(dataSourceSpec, (props, args, reportViolation) => {
    const { productionStacks } = { productionStacks: DEFAULT_PRODUCTION_STACKS, ...args.getConfig<Partial<ProductionHostsConfig>>() };
    const stack = stackOfUrn(args.urn);
    if (!isProductionStack(stack, productionStacks)) return;
    const reason = hostViolation(props);
    report(args, reportViolation, reason && `${reason} (stack "${stack}" counts as production)`);
  }),
};

/** Organization and data-source names must match patterns (disabled until configured). */
export const namingConvention: ResourceValidationPolicy = {
  name: "analytics-naming",
  description: "Organization names and data-source display names must match configurable regular expressions.",
  enforcementLevel: "disabled",
  configSchema: {
    properties: {
      organizationPattern: { type: "string", default: DEFAULT_NAME_PATTERN, description: "Regular expression organization names must match." },
      dataSourcePattern: { type: "string", default: DEFAULT_NAME_PATTERN, description: "Regular expression data-source display names must match." },
    },
  },
  validateResource: [
    validateKind(organizationSpec, (props, args, reportViolation) => {
      const reason = nameViolation("organization name", props.name, namingConfig(args).organizationPattern);
      if (reason) reportViolation(`Organization "${args.name}": ${reason}`);
    }),
    validateKind(dataSourceSpec, (props, args, reportViolation) => {
      report(args, reportViolation, nameViolation("display name", props.displayName, namingConfig(args).dataSourcePattern));
    }),
  ],
};

function namingConfig(args: ResourceValidationArgs): NamingConventionConfig {
  return { organizationPattern: DEFAULT_NAME_PATTERN, dataSourcePattern: DEFAULT_NAME_PATTERN, ...args.getConfig<Partial<NamingConventionConfig>>() };
}

/** Every analytics policy, in the order the pack lists them. */
export const analyticsPolicies: ResourceValidationPolicy[] = [sslRequired, sshKeyAuthentication, noPlaintextCredentials, productionHosts, namingConvention];
