import type * as pulumi from "@pulumi/pulumi";
import { ImportUnsupportedError } from "../client/errors";
import type { KindSpec } from "../kinds";
import { importUnsupportedMessage } from "../provider-core/import-refusal";

/** Throws {@link ImportUnsupportedError} when a resource is declared with the `import` option. */
export function rejectImport(spec: KindSpec, name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  if (opts?.import !== undefined) throw new ImportUnsupportedError(importUnsupportedMessage(spec, name));
}
