/**
 * What a schema sync reads, as the store keeps it. The types live in the state room, not beside
 * the sync, so records can hold tables while the sync room depends on state and never the reverse.
 */

/** One column of a synced table. */
export interface SyncedColumn {
  /** Column name. */
  name: string;
  /** Type as Postgres prints it (`format_type`), e.g. `integer`, `numeric(12,2)`, `text[]`. */
  type: string;
  /** False when the column is declared NOT NULL. */
  nullable: boolean;
}

/** One table, view, materialized view or foreign table of the synced database. */
export interface SyncedTable {
  /** Schema (namespace) name. */
  schema: string;
  /** Table name. */
  name: string;
  /** Columns in declaration order. */
  columns: SyncedColumn[];
}
