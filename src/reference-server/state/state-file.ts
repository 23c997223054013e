import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ApiKeyRecord } from "./auth";
import { GroupCommit } from "./group-commit";
import { RELEASE, STATE_FORMAT, STATE_VERSION, parseStateRecord, parseStateFileContents, type StateRecordKind, type StateFileContents } from "./state-format";
import { ReferenceStore, StateError, type DataSourceRecord, type OrganizationRecord } from "./store";

/**
 * Writes `data` to `file` so readers see the old or the new content, never a torn one: a temp
 * file in the same directory (same filesystem, so rename is atomic), fsync, rename, then fsync
 * of the directory so the rename itself survives a crash. The file is readable by its owner only.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await fs.promises.open(temp, "wx", 0o600);
  try {
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temp, file);
  } catch (err) {
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  // Some filesystems refuse fsync on directories; the rename is done either way.
  await syncDirectory(dir);
}

/** Serializes the state file's contents the way the file stores them. */
export function serializeState(contents: StateFileContents): string {
  return `${JSON.stringify(contents, null, 2)}\n`;
}

/** The journal beside a state file: `<file>.journal`. */
export function journalPathOf(file: string): string {
  return `${file}.journal`;
}

/** What a journal line records: a key, an organization or a data source as it now is (added or replaced whole). */
export type JournalOp = StateRecordKind;

/** One line of the journal. */
export interface JournalEntry {
  /** Sequence number: each line's is the previous one's plus 1; the state file names the last it includes. */
  seq: number;
  /** The kind of record. */
  op: JournalOp;
  /** The record, whole (never a credential: the same shapes as the state file's, checked by the same rules). */
  record: ApiKeyRecord | OrganizationRecord | DataSourceRecord;
}

/** A journal as read: the lines to apply, and where its last complete line ends. */
export interface JournalRead {
  /** Lines after the state file's `journalSeq`, in order. */
  entries: JournalEntry[];
  /** Complete lines the state file already includes (a crash between a compaction's two steps leaves them). */
  skipped: number;
  /** Bytes up to the end of the last complete line. */
  validBytes: number;
  /** True when the journal ends in an unfinished line (a crash mid-append): it is ignored. */
  torn: boolean;
}

const JOURNAL_OPS: readonly JournalOp[] = ["apiKey", "organization", "dataSource"];

/**
 * Reads the journal `file` against a state file whose last included line is `afterSeq`: a torn
 * last line (no newline: a crash mid-append) is ignored; any other line that is not a valid
 * record, or out of sequence, is a {@link StateError} naming the file and line. Its records are of
 * the release the state file names ({@link StateFile.open} writes a new state file before a release
 * appends to another's journal), checked as the file's are: a record of an earlier release gets the
 * fields it lacks. Undefined when there is no journal.
 */
export async function readJournal(file: string, afterSeq: number): Promise<JournalRead | undefined> {
  let bytes: Buffer;
  try {
    bytes = await fs.promises.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateError(`cannot read state journal ${file}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}`);
  }
  const validBytes = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.toString("utf8", 0, validBytes).split("\n");
  lines.pop(); // "" after the last newline
  const entries: JournalEntry[] = [];
  let skipped = 0;
  let previous: number | undefined;
  lines.forEach((text, index) => {
    const fail = (why: string): never => {
      throw new StateError(`state journal ${file} line ${index + 1}: ${why}`);
    };
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      fail("not valid JSON");
    }
    const line = raw as { seq?: unknown; op?: unknown; record?: unknown };
    if (typeof line !== "object" || line === null || Object.keys(line).length !== 3) fail("not a journal line");
    if (!Number.isSafeInteger(line.seq) || (line.seq as number) < 1) fail("no valid seq");
    if (!JOURNAL_OPS.includes(line.op as JournalOp)) fail("unknown op");
    const seq = line.seq as number;
    if (previous !== undefined && seq !== previous + 1) fail(`seq ${seq} follows ${previous}`);
    previous = seq;
    if (seq <= afterSeq) {
      skipped++;
      return;
    }
    if (entries.length === 0 && seq !== afterSeq + 1) fail(`seq ${seq} follows the state file's ${afterSeq}: lines are missing`);
    const op = line.op as JournalOp;
    let record: JournalEntry["record"] | undefined;
    try {
      record = parseStateRecord(op, line.record);
    } catch (err) {
      fail((err as Error).message);
    }
    entries.push({ seq, op, record: record! });
  });
  return { entries, skipped, validBytes, torn: validBytes < bytes.length };
}

/** `contents` with the journal's records applied in order: each replaces the record of its id, or is added after the others. */
function applyJournal(contents: StateFileContents, entries: readonly JournalEntry[]): StateFileContents {
  if (entries.length === 0) return contents;
  const apiKeys = new Map(contents.apiKeys.map((k) => [k.digest, k]));
  const organizations = new Map(contents.organizations.map((o) => [o.id, o]));
  const dataSources = new Map(contents.dataSources.map((d) => [d.fields.id, d]));
  for (const { op, record } of entries) {
    if (op === "apiKey") apiKeys.set((record as ApiKeyRecord).digest, record as ApiKeyRecord);
    else if (op === "organization") organizations.set((record as OrganizationRecord).id, record as OrganizationRecord);
    else dataSources.set((record as DataSourceRecord).fields.id, record as DataSourceRecord);
  }
  return { ...contents, apiKeys: [...apiKeys.values()], organizations: [...organizations.values()], dataSources: [...dataSources.values()] };
}

/** A state file and its journal, as loaded. */
export interface LoadedState {
  /** The store they hold. */
  store: ReferenceStore;
  /** Layout version of the state file; undefined when there is none yet. */
  version: StateFileContents["version"] | undefined;
  /** The release that wrote the state file; undefined when there is none, or it predates the field. */
  release: string | undefined;
  /** The last journal line the store includes. */
  journalSeq: number;
  /** Size of the state file, bytes (0 when there is none). */
  fileBytes: number;
  /** The journal as read; undefined when there is none, or when it was ignored (beside no state file or a version 1 one, it cannot be this file's). */
  journal: JournalRead | undefined;
  /** True when a journal exists that is not this state file's: it must be emptied before anything is appended. */
  staleJournal: boolean;
}

/**
 * Loads the state file `file` and replays its journal (`<file>.journal`) over it. A missing file
 * means an empty state; one of a newer release is refused ({@link parseStateFileContents}). A journal
 * is only read beside a version 2 state file, whose `journalSeq` says which lines it already includes.
 */
export async function readState(file: string, now: Date): Promise<LoadedState> {
  let text: string | undefined;
  let fileBytes = 0;
  try {
    const bytes = await fs.promises.readFile(file);
    fileBytes = bytes.length;
    text = bytes.toString("utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new StateError(`cannot read state file ${file}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}`);
    }
  }
  const journalFile = journalPathOf(file);
  if (text === undefined) {
    return {
      store: new ReferenceStore(),
      version: undefined,
      release: undefined,
      journalSeq: 0,
      fileBytes: 0,
      journal: undefined,
      staleJournal: fs.existsSync(journalFile),
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateError(`state file ${file} is not valid JSON`);
  }
  try {
    const contents = parseStateFileContents(raw);
    const journalSeq = contents.version === 1 ? 0 : contents.journalSeq!;
    const journal = contents.version === 1 ? undefined : await readJournal(journalFile, journalSeq);
    const store = ReferenceStore.fromParsed(applyJournal(contents, journal?.entries ?? []), now);
    return {
      store,
      version: contents.version,
      release: contents.release,
      journalSeq: journal?.entries.at(-1)?.seq ?? journalSeq,
      fileBytes,
      journal,
      staleJournal: contents.version === 1 && fs.existsSync(journalFile),
    };
  } catch (err) {
    throw err instanceof StateError && !err.message.includes(file) ? new StateError(`${file}: ${err.message}`) : err;
  }
}

/** The store saved in `file` and its journal, or an empty one if the file does not exist yet. */
export async function loadState(file: string, now: Date): Promise<ReferenceStore> {
  return (await readState(file, now)).store;
}

/** A JSON array with one item per line. */
function jsonLines(items: Iterable<unknown>): string {
  const lines: string[] = [];
  for (const item of items) lines.push(JSON.stringify(item));
  return lines.length === 0 ? "[]" : `[\n${lines.join(",\n")}\n]`;
}

/** The store as a version 2 state file of this release including the journal up to `journalSeq`: one record per line, no credential (the store's records hold none). */
export function serializeStore(store: ReferenceStore, journalSeq: number): string {
  return (
    `{"format":${JSON.stringify(STATE_FORMAT)},"version":${STATE_VERSION},"release":${JSON.stringify(RELEASE)},"journalSeq":${journalSeq},\n` +
    `"apiKeys":${jsonLines(store.apiKeys.values())},\n` +
    `"organizations":${jsonLines(store.organizations.values())},\n` +
    `"dataSources":${jsonLines(store.dataSources.values())}}\n`
  );
}

/** The journal grows to the state file's size, and at least this much, before it is folded into a new state file. */
export const DEFAULT_COMPACT_MIN_BYTES = 8 * 2 ** 20;

/** Options of {@link StateFile.open}. */
export interface StateFileOptions {
  /** Journal size below which it is never compacted, bytes; default {@link DEFAULT_COMPACT_MIN_BYTES}. */
  compactMinBytes?: number;
}

/**
 * A store kept in a state file plus an append-only journal beside it (`<file>.journal`). A save
 * appends one JSON line per record changed since the last save (whole records: keys, organizations,
 * data sources) and fsyncs once; saves requested while one runs share the next ({@link GroupCommit}),
 * and each resolves only once a write including its change is on disk. When the journal outgrows the
 * state file, or something was removed (reset, contents restore), or at close, the save writes a
 * new state file instead (atomically) and empties the journal: a compaction.
 */
export class StateFile {
  private readonly commits = new GroupCommit(() => this.flush(false));
  private handle: fs.promises.FileHandle | undefined;
  /** Set when the next save must write the whole state: no state file of version 2 yet, or an append failed midway. */
  private compactDue: boolean;
  private closed = false;

  private constructor(
    /** The state file. */
    readonly file: string,
    /** The store saved. */
    readonly store: ReferenceStore,
    private nextSeq: number,
    private fileBytes: number,
    private journalBytes: number,
    compactDue: boolean,
    private readonly compactMinBytes: number,
  ) {
    this.compactDue = compactDue;
  }

  /** The journal's path. */
  get journalFile(): string {
    return journalPathOf(this.file);
  }

  /**
   * Loads `file` and its journal and returns them ready for saving: changes to the store are
   * tracked from here on. A torn last journal line is cut off, and a journal that is not this
   * file's is emptied, before anything is appended.
   */
  static async open(file: string, now: Date, options: StateFileOptions = {}): Promise<StateFile> {
    const loaded = await readState(file, now);
    const journalFile = journalPathOf(file);
    if (loaded.staleJournal) await truncateDurably(journalFile, 0);
    else if (loaded.journal?.torn) await truncateDurably(journalFile, loaded.journal.validBytes);
    loaded.store.trackChanges();
    // Another release's file (a version 1 one, or one another release wrote) is rewritten by this
    // release before anything is appended: a journal's lines are always of the release its state file names.
    const compactDue = loaded.version !== STATE_VERSION || loaded.release !== RELEASE || (loaded.journal?.skipped ?? 0) > 0;
    const journalBytes = loaded.staleJournal ? 0 : (loaded.journal?.validBytes ?? 0);
    return new StateFile(
      file,
      loaded.store,
      loaded.journalSeq + 1,
      loaded.fileBytes,
      journalBytes,
      compactDue,
      options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES,
    );
  }

  /** Resolves once the state as of this call is on disk; rejects if that write failed. */
  save(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the state file is closed"));
    return this.commits.request();
  }

  /** Resolves once no write is running or queued (failures are the savers' to handle). */
  idle(): Promise<void> {
    return this.commits.idle();
  }

  /**
   * Waits for running saves, writes the whole state once more if anything is not in the state
   * file yet, and removes the emptied journal. Later saves are refused.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.idle();
    this.closed = true;
    try {
      await this.flush(true);
      await fs.promises.rm(this.journalFile, { force: true });
    } finally {
      await this.handle?.close();
      this.handle = undefined;
    }
  }

  /** Appends the changes since the last save, or writes the whole state (compaction) when due or `final`. */
  private async flush(final: boolean): Promise<void> {
    const changes = this.store.takeChanges();
    const changed = changes.replaced || changes.apiKeys.size + changes.organizations.size + changes.dataSources.size > 0;
    if (
      final
        ? changed || this.compactDue || this.journalBytes > 0
        : changes.replaced || this.compactDue || this.journalBytes >= Math.max(this.fileBytes, this.compactMinBytes)
    ) {
      return this.compact();
    }
    if (!changed) return;
    const { store } = this;
    let text = "";
    const line = (op: JournalOp, record: unknown): void => {
      if (record !== undefined) text += `{"seq":${this.nextSeq++},"op":"${op}","record":${JSON.stringify(record)}}\n`;
    };
    // Keys, then organizations, then data sources: each line's references precede it, even in a torn batch.
    for (const digest of changes.apiKeys) line("apiKey", store.apiKeys.get(digest));
    for (const id of changes.organizations) line("organization", store.organizations.get(id));
    for (const id of changes.dataSources) line("dataSource", store.dataSources.get(id));
    try {
      const handle = await this.journal();
      const bytes = Buffer.from(text, "utf8");
      await handle.write(bytes);
      await handle.datasync();
      // A journal removed under an open handle takes appends without an error, and keeps none of
      // them. fstat of an open descriptor reads no disk, so it runs here rather than in the pool.
      if (fs.fstatSync(handle.fd).nlink === 0) {
        this.handle = undefined;
        await handle.close();
        throw Object.assign(new Error("the state journal was removed"), { code: "ENOENT" });
      }
      this.journalBytes += bytes.length;
    } catch (err) {
      // Part of the batch may be on disk: nothing more may be appended after it. The next save rewrites all.
      this.compactDue = true;
      throw err;
    }
  }

  /** Writes the whole state as a new state file (atomically), then empties the journal. */
  private async compact(): Promise<void> {
    this.compactDue = true;
    const text = serializeStore(this.store, this.nextSeq - 1);
    await writeFileAtomic(this.file, text);
    // The state file now includes every line: a crash before the journal is emptied only leaves lines it skips.
    if (this.handle) {
      await this.handle.truncate(0);
      await this.handle.datasync();
    } else {
      await truncateDurably(this.journalFile, 0);
    }
    this.journalBytes = 0;
    this.fileBytes = Buffer.byteLength(text);
    this.compactDue = false;
  }

  /** The journal, opened for appending on first use (created with mode 0600, its directory entry fsynced). */
  private async journal(): Promise<fs.promises.FileHandle> {
    if (this.handle) return this.handle;
    const handle = await fs.promises.open(this.journalFile, "a", 0o600);
    try {
      await syncDirectory(path.dirname(this.journalFile));
    } catch (err) {
      await handle.close();
      throw err;
    }
    this.handle = handle;
    return handle;
  }
}

/** fsyncs a directory, so a file created or renamed in it survives a crash; a no-op where the filesystem refuses. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const dirHandle = await fs.promises.open(dir, "r");
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories.
  }
}

/** Cuts `file` to `length` bytes and fsyncs it; nothing if it does not exist. */
async function truncateDurably(file: string, length: number): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r+");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  try {
    await handle.truncate(length);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
