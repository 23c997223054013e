/**
 * Which analytics objects a stack has left in the service, from its state history. The API cannot
 * delete, so every object that was once in the stack's state and is no longer there still exists.
 */

import { kindOfTypeToken } from "../kinds";

/** One resource of a state snapshot, as in `pulumi stack export`. */
export interface SnapshotResource {
  /** Pulumi URN; its last `::` segment is the resource name in the program. */
  urn: string;
  /** Type token. */
  type: string;
  /** The object's id in the service. */
  id?: string;
  /** Outputs; only the kind's label (`name`, `displayName`; never a secret) is read. */
  outputs?: Record<string, unknown>;
}

/** The stack's state after one update. */
export interface Snapshot {
  /** When the state was written, ISO 8601. */
  time: string;
  /** Every resource in the state. */
  resources: readonly SnapshotResource[];
}

/** An object the stack once managed and no longer does: it is still in the service. */
export interface Orphan {
  /** The kind's type name: `Organization`, `DataSource`. */
  type: string;
  /** Id in the service. */
  id: string;
  /** The object's name in the service (its kind's label: `name`, `displayName`). */
  name: string;
  /** Resource name in the Pulumi program. */
  resourceName: string;
  /** Time of the first state without it: when the stack let it go (replace or destroy). */
  leftAt: string;
}

/** Every object present in some snapshot and absent from the last one, oldest departure first. */
export function findOrphans(snapshots: readonly Snapshot[]): Orphan[] {
  const ordered = [...snapshots].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const known = new Map<string, Omit<Orphan, "leftAt">>();
  const left = new Map<string, string>();
  let current = new Set<string>();
  for (const snapshot of ordered) {
    const present = new Set<string>();
    for (const resource of snapshot.resources) {
      const spec = kindOfTypeToken(resource.type);
      if (spec === undefined || !resource.id) continue;
      present.add(resource.id);
      left.delete(resource.id);
      const shown = resource.outputs?.[spec.labelField];
      known.set(resource.id, {
        type: spec.typeName,
        id: resource.id,
        name: typeof shown === "string" ? shown : "",
        resourceName: resource.urn.split("::").pop() ?? "",
      });
    }
    for (const id of current) if (!present.has(id) && !left.has(id)) left.set(id, snapshot.time);
    current = present;
  }
  return [...left.entries()]
    .filter(([id]) => !current.has(id))
    .map(([id, leftAt]) => ({ ...known.get(id)!, leftAt }))
    .sort((a, b) => Date.parse(a.leftAt) - Date.parse(b.leftAt) || a.id.localeCompare(b.id));
}

/** A plain-text table, one object per line, for people; tab-separated so it can be copied into a sheet. */
export function formatOrphans(orphans: readonly Orphan[]): string {
  if (orphans.length === 0) return "This stack has left no analytics objects in the service.\n";
  const header = ["TYPE", "ID", "NAME", "RESOURCE", "LEFT AT"];
  const rows = orphans.map((o) => [o.type, o.id, JSON.stringify(o.name), o.resourceName, o.leftAt]);
  const noun = orphans.length === 1 ? "object" : "objects";
  return `${orphans.length} analytics ${noun} left in the service by this stack (the API cannot delete them; remove them in the service if unneeded):\n${[header, ...rows].map((row) => row.join("\t")).join("\n")}\n`;
}
