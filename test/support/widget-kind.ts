/** A throwaway third kind, declared as a new spec file would be; tests register it where they need it. */
import type { KindSpec } from "../../src/kinds";

/** The widget kind: owned by an organization, with one credential and one default. */
export const widgetSpec = {
  kind: "widget",
  typeName: "Widget",
  noun: "widget",
  labelField: "title",
  endpoint: { method: "POST", pattern: "/api/public/organizations/{orgId}/widgets" },
  inputs: {
    orgId: { type: "string", required: true, minLength: 1, owner: "organization" },
    title: { type: "string", required: true, minLength: 1 },
    token: { type: "string", secret: true, minLength: 12 },
    pinned: { type: "boolean", default: false },
  },
  outputs: { id: { type: "string" }, title: { type: "string" }, pinned: { type: "boolean" } },
} as const satisfies KindSpec;
