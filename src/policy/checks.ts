/**
 * The policies' decisions as pure functions of a resource's inputs and the policy's settings, free
 * of the policy SDK so they are table-tested without an engine.
 */
import { BlockList, isIP } from "node:net";
import { plainTextFieldNames, secretFieldNames, type KindSpec } from "../kinds";

/** Inputs of a data source as a policy sees them: plain values, secrets already unwrapped. */
export type DataSourceProps = Record<string, unknown>;

/** Default of the host policy's `productionStacks`: stack names containing `prod` or `production` as a word. */
export const DEFAULT_PRODUCTION_STACKS = ["(^|[-_./])prod(uction)?($|[-_./])"];

/** Default of the naming policy's patterns: a letter or digit, then letters, digits, spaces, `_` or `-`; at most 100 characters. */
export const DEFAULT_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9 _-]{0,99}$";

/** Why `sslEnabled` violates the SSL policy, or undefined. Omitted means the API's default, true. */
export function sslViolation(props: DataSourceProps): string | undefined {
  if (props.sslEnabled === false) return "sslEnabled is false: the connection to the database would not be encrypted. Set sslEnabled: true.";
  return undefined;
}

/** Why the SSH tunnel's authentication violates the key policy, or undefined. */
export function sshAuthViolation(props: DataSourceProps): string | undefined {
  if (props.sshEnabled !== true) return undefined;
  if (present(props.sshPassword)) return "the SSH tunnel authenticates with sshPassword. Use sshPrivateKey (a Pulumi secret) and drop the password.";
  if (!present(props.sshPrivateKey)) return "the SSH tunnel has no sshPrivateKey. Authenticate it with a private key.";
  return undefined;
}

/**
 * Names of the credential inputs of an object of `spec` whose value also appears in one of its
 * plain-text inputs, where it would be stored and shown unencrypted. Values are never returned.
 */
export function credentialsInPlainFields(spec: KindSpec, props: Readonly<Record<string, unknown>>, minLength = 4): string[] {
  const found: string[] = [];
  const plainFields = plainTextFieldNames(spec);
  for (const field of secretFieldNames(spec)) {
    const secret = props[field];
    if (typeof secret !== "string" || secret.length < minLength) continue;
    const leaked = plainFields.filter((plain) => typeof props[plain] === "string" && (props[plain] as string).includes(secret));
    if (leaked.length) found.push(`${field} (in ${leaked.join(", ")})`);
  }
  return found;
}

/** The stack name in a resource URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export function stackOfUrn(urn: string): string {
  return /^urn:pulumi:(.*?)::/.exec(urn)?.[1] ?? "";
}

/** Whether a stack name matches one of the patterns (regular expressions, case-insensitive). */
export function isProductionStack(stack: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => new RegExp(pattern, "i").test(stack));
}

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  nonPublic.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const)
  nonPublic.addSubnet(net, prefix, "ipv6");

/**
 * What kind of non-public address a host is (`loopback`, `link-local` or `private`), or undefined
 * for a public address or a DNS name. Names are not resolved (a preview must not depend on DNS),
 * except `localhost` and `*.localhost`, which are loopback by definition.
 */
export function nonPublicHost(host: string): string | undefined {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  const family = isIP(name);
  if (family === 0) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name)?.[1];
  const [address, type] = mapped ? [mapped, "ipv4" as const] : [name, family === 4 ? ("ipv4" as const) : ("ipv6" as const)];
  if (!nonPublic.check(address, type)) return undefined;
  if (/^127\./.test(address) || address === "::1") return "loopback";
  if (/^169\.254\./.test(address) || /^fe[89ab]/.test(address)) return "link-local";
  return "private";
}

/**
 * Why a data source's hosts violate the production-host policy, or undefined. Through an SSH
 * tunnel the database host is resolved by the bastion, so only `sshHost` must be public.
 */
export function hostViolation(props: DataSourceProps): string | undefined {
  const field = props.sshEnabled === true ? "sshHost" : "host";
  const host = props[field];
  if (typeof host !== "string") return undefined;
  const kind = nonPublicHost(host);
  return kind ? `${field} ${host} is a ${kind} address, which the service cannot reach. Use a public host or an SSH tunnel.` : undefined;
}

/** Why a name violates a pattern, or undefined; an invalid pattern is reported as such. */
export function nameViolation(what: string, name: unknown, pattern: string): string | undefined {
  if (typeof name !== "string") return undefined;
  if (new RegExp(pattern).test(name)) return undefined;
  return `${what} "${name}" does not match the required pattern /${pattern}/.`;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}
