import { digestApiKey, generateApiKey } from "./auth";
import { StateFile } from "./state-file";
import { ReferenceStore, USER_NAME_PATTERN } from "./store";

/** Throws unless `userName` is a valid user name. */
export function assertUserName(userName: string): void {
  if (!USER_NAME_PATTERN.test(userName)) {
    throw new RangeError("user name must be 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit");
  }
}

/** Words for a failed save that never quote a path or data: the error code alone. */
function saveFailure(err: unknown): string {
  return `could not save state: ${(err as NodeJS.ErrnoException).code ?? "write failed"}`;
}

/**
 * The server's state: the store, and (with a state file) the state file and journal that save it
 * after each change. Once closed, saves stop except {@link ServerState.finalSave}.
 */
export class ServerState {
  private closed = false;

  private constructor(
    /** Organizations, data sources, keys and credentials. */
    readonly store: ReferenceStore,
    private readonly writer: StateFile | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Loads the state file at `statePath` (in memory only when undefined). */
  static async open(statePath: string | undefined, now: Date, log: (line: string) => void): Promise<ServerState> {
    if (statePath === undefined) return new ServerState(new ReferenceStore(), undefined, log);
    const file = await StateFile.open(statePath, now);
    return new ServerState(file.store, file, log);
  }

  /** True when changes are saved to a file. */
  get persistent(): boolean {
    return this.writer !== undefined;
  }

  /** True once {@link ServerState.markClosed} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Saves the state (no-op in memory-only mode or once closing). Rejects if the write failed. */
  async persist(): Promise<void> {
    if (this.writer === undefined || this.closed) return;
    await this.writer.save();
  }

  /** Saves the state; a failure is logged (by its code only) instead of thrown. */
  persistOrLog = (): Promise<void> => this.persist().catch((err: unknown) => this.log(saveFailure(err)));

  /** Mints a key for `userName` (creating the user) and saves; the key is returned once, stored as a digest. */
  async mintApiKey(userName: string, keyPrefix: string, now: Date): Promise<string> {
    assertUserName(userName);
    if (this.closed) throw new Error("the reference server is closed");
    const key = generateApiKey(keyPrefix);
    this.store.addApiKey({ digest: digestApiKey(key), userName, createdAt: now.toISOString() });
    await this.persist();
    return key;
  }

  /**
   * Registers `key` (already checked for shape) for `userName` and saves; nothing changes when it
   * is registered for that user already. Throws when another user holds it (the key is never shown).
   */
  async registerApiKey(userName: string, key: string, now: Date): Promise<void> {
    assertUserName(userName);
    if (this.closed) throw new Error("the reference server is closed");
    const digest = digestApiKey(key);
    const holder = this.store.apiKeys.get(digest)?.userName;
    if (holder === userName) return;
    if (holder !== undefined) throw new RangeError(`the API key given for ${userName} is registered for another user (${holder}) in this state`);
    this.store.addApiKey({ digest, userName, createdAt: now.toISOString() });
    await this.persist();
  }

  /** True when `userName` holds at least one key. */
  hasApiKey(userName: string): boolean {
    for (const record of this.store.apiKeys.values()) if (record.userName === userName) return true;
    return false;
  }

  /** Stops saving on change: from now on requests still running leave nothing to save. */
  markClosed(): void {
    this.closed = true;
  }

  /**
   * Waits for a running save, then writes the whole state file once more if anything is not in it
   * yet (changes whose own save was cut short by closing too) and removes the journal (no-op in memory).
   */
  async finalSave(): Promise<void> {
    if (this.writer === undefined) return;
    await this.writer.close().catch((err: unknown) => this.log(saveFailure(err)));
  }
}
