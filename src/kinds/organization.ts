/** The organization kind: what `POST /api/public/organizations` takes and returns. */
import type { InputValues, KindSpec, OutputValues } from "./spec";

/** The organization kind's spec. */
export const organizationSpec = {
  kind: "organization",
  typeName: "Organization",
  noun: "organization",
  labelField: "name",
  endpoint: { method: "POST", pattern: "/api/public/organizations" },
  inputs: {
    /** Organization name. */
    name: { type: "string", required: true, minLength: 1 },
  },
  outputs: {
    /** Organization id (`org_...`). */
    id: { type: "string" },
    /** Organization name, as declared. */
    name: { type: "string" },
    /** URL-style short name the service derived from the name. */
    slug: { type: "string" },
    /** Custom AI context; null when unset. */
    customAiContext: { type: "string", nullable: true },
    /** As reported when created (never updated; see `statusObservedAt`): onboarding state, observed `STARTED`. */
    onboardingStatus: { type: "string" },
  },
} as const satisfies KindSpec;

/** Inputs of an organization, as plain values. */
export type OrganizationInputs = InputValues<typeof organizationSpec.inputs>;

/** An organization as the API returns it. */
export type OrganizationOutputs = OutputValues<typeof organizationSpec.outputs>;
