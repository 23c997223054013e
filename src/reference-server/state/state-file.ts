import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ReferenceStore, StateError, type StateSnapshot } from "./store";

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
  try {
    const dirHandle = await fs.promises.open(dir, "r");
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is done either way.
  }
}

/** Serializes a snapshot the way the state file stores it. */
export function serializeState(snapshot: StateSnapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/** The store saved in `file`, or an empty one if the file does not exist yet. */
export async function loadState(file: string, now: Date): Promise<ReferenceStore> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new ReferenceStore();
    throw new StateError(`cannot read state file ${file}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateError(`state file ${file} is not valid JSON`);
  }
  try {
    return ReferenceStore.fromSnapshot(raw, now);
  } catch (err) {
    throw err instanceof StateError ? new StateError(`${file}: ${err.message}`) : err;
  }
}

/**
 * Saves a store to its file with group commit: changes made while a write is running share
 * the next write, so many concurrent requests cost a handful of writes, and each caller's
 * promise settles only once a write that includes its change is on disk.
 */
export class StateWriter {
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    /** Destination file. */
    private readonly file: string,
    /** Returns the current state to write. */
    private readonly snapshot: () => StateSnapshot,
  ) {}

  /** Resolves once the state as of this call is on disk; rejects if that write failed. */
  save(): Promise<void> {
    if (this.queued) return this.queued;
    const previous = this.inFlight ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        // From here on, later changes need a later write: this one may already miss them.
        this.queued = undefined;
        const write = writeFileAtomic(this.file, serializeState(this.snapshot()));
        this.inFlight = write;
        try {
          await write;
        } finally {
          if (this.inFlight === write) this.inFlight = undefined;
        }
      });
    this.queued = run;
    return run;
  }

  /** Resolves once no write is running or queued (failures are the savers' to handle). */
  async idle(): Promise<void> {
    while (this.queued ?? this.inFlight) {
      await (this.queued ?? this.inFlight)!.catch(() => undefined);
    }
  }
}
