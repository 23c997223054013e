/**
 * A throwaway third kind, declared as a new spec file would be (CONTRIBUTING's "Add a kind" shows
 * this declaration as its first step); tests register it where they need it.
 */
import type { KindSpec } from "../../src/kinds";

/** The widget kind's spec: owned by an organization, with one credential and one default. */
export const widgetSpec = {
  kind: "widget",
  typeName: "Widget",
  noun: "widget",
  labelField: "title",
  endpoint: { method: "POST", pattern: "/api/public/organizations/{orgId}/widgets" },
  inputs: {
    /** Id of the owning organization, typically `org.id`. */
    orgId: { type: "string", required: true, minLength: 1, owner: "organization" },
    /** Title shown in the service. */
    title: { type: "string", required: true, minLength: 1 },
    /** Access token; a credential, never returned by the API. */
    token: { type: "string", secret: true, minLength: 12 },
    /** Whether the widget is pinned to the organization's home page. */
    pinned: { type: "boolean", default: false },
  },
  outputs: {
    /** Widget id. */
    id: { type: "string" },
    /** Title. */
    title: { type: "string" },
    /** Whether it is pinned. */
    pinned: { type: "boolean" },
  },
} as const satisfies KindSpec;
