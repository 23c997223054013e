import { ConfigurationError } from "../client/errors";

/** The npm package the policies are built on: an optional peer dependency of this package. */
export const POLICY_SDK_PACKAGE = "@pulumi/policy";

/**
 * Throws a {@link ConfigurationError} naming the package to install when the policy SDK cannot
 * be resolved; other resolution errors pass through. `resolve` is injectable for tests.
 */
export function assertPolicySdk(resolve: (id: string) => string = require.resolve): void {
  try {
    resolve(POLICY_SDK_PACKAGE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
    throw new ConfigurationError(
      `pulumi-analytics/policy needs the ${POLICY_SDK_PACKAGE} package (an optional peer dependency, >= 1.21, with @pulumi/pulumi >= 3.204). Install it next to pulumi-analytics: npm install --save-dev ${POLICY_SDK_PACKAGE}`,
    );
  }
}
