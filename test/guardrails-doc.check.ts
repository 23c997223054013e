// Type-checks the custom-pack example of docs/guardrails.md ("Extend"; tsc only, never run).
import { validateResourceOfType } from "@pulumi/policy";
import { DataSource } from "pulumi-analytics";
import { createPolicyPack } from "pulumi-analytics/policy";

createPolicyPack({
  name: "acme-analytics",
  policies: [
    {
      name: "acme-standard-port",
      description: "Data sources use the standard Postgres port.",
      enforcementLevel: "mandatory",
      validateResource: validateResourceOfType(DataSource, (ds, args, reportViolation) => {
        if (ds.port !== undefined && ds.port !== 5432) reportViolation(`${args.name}: port ${ds.port} is not 5432.`);
      }),
    },
  ],
});
