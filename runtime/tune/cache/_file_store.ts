/**
 * The tune cache's JSON file on Deno (loaded by dynamic import, so browser bundles leave it
 * out). The file is only ever replaced whole, by writing a temporary file next to it and renaming
 * it over the old one (atomic on one file system), so concurrent writers never leave a torn
 * file. Each write re-reads the file and merges its own entries in while it holds a lock file
 * next to it (`<file>.lock`, created exclusively), so writers in other processes (or caches of
 * the same file under another spelling of its path) never drop each other's entries. A lock
 * older than {@linkcode LOCK_STALE_MS} is a crashed writer's and is taken over.
 * Permissions are queried, never requested: a missing one never prompts.
 *
 * @module
 */

import { parentDir } from "./_cache_dir.ts";
import { type CacheStore, type Entries, FORMAT, message, parseEntries } from "./_cache_store.ts";

/** A cache body in one JSON file. */
export class FileStore implements CacheStore {
  readonly kind = "file";
  readonly location: string;

  constructor(file: string) {
    this.location = file;
  }

  async load(warn: (text: string) => void): Promise<Entries> {
    const file = this.location;
    if (!permitted("read", file)) {
      throw new Error(`No read permission for ${file}: tuning results stay in memory`);
    }
    return await this.#read((text) => warn(text)) ?? {};
  }

  save(mine: Entries): Promise<void> {
    // One write of a file at a time in this process: each reads what the previous one wrote, so
    // two caches of one file (two tuners) never drop each other's entries. Other processes can
    // still race (the last rename wins), but never tear the body.
    const file = this.location;
    const previous = writing.get(file) ?? Promise.resolve();
    const next = previous.then(() => this.#save(mine));
    const tail = next.catch(() => {});
    writing.set(file, tail);
    tail.then(() => writing.get(file) === tail && writing.delete(file));
    return next;
  }

  async #save(mine: Entries): Promise<void> {
    const file = this.location;
    const dir = parentDir(file);
    if (!permitted("write", dir)) {
      throw new Error(`No write permission for ${dir}: tuning results stay in memory`);
    }
    const temp = `${file}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      await Deno.mkdir(dir, { recursive: true });
      await withLock(file, async () => {
        const onDisk = await this.#read() ?? {};
        const body = { format: FORMAT, entries: { ...onDisk, ...mine } };
        await Deno.writeTextFile(temp, JSON.stringify(body, null, 1) + "\n");
        await Deno.rename(temp, file);
      });
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw new Error(
        `Cannot write the tune cache ${file}: ${message(error)}; results stay in memory`,
      );
    }
  }

  /** The file's entries; `undefined` when missing, unreadable or corrupt (told to `warn`). */
  async #read(warn?: (text: string) => void): Promise<Entries | undefined> {
    const file = this.location;
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      warn?.(`Cannot read the tune cache ${file}: ${message(error)}`);
      return undefined;
    }
    let entries: Entries | undefined;
    try {
      entries = parseEntries(JSON.parse(text));
    } catch {
      entries = undefined;
    }
    if (entries === undefined) warn?.(`The tune cache ${file} is corrupt and was ignored`);
    return entries;
  }
}

/** The last write of each file in this process (see `FileStore.save`). */
const writing = new Map<string, Promise<void>>();

function permitted(name: "read" | "write", path: string): boolean {
  try {
    return Deno.permissions.querySync({ name, path }).state === "granted";
  } catch {
    return false;
  }
}

/** A lock file older than this (ms) was left by a writer that died: it is taken over. */
export const LOCK_STALE_MS = 5_000;

/**
 * Runs `fn` holding `<file>.lock`, created exclusively (`createNew`, atomic on every file system
 * Deno writes to), retried with a growing pause while another writer holds it; a stale lock is
 * removed. Failing to take it for another reason (no permission) is thrown.
 */
async function withLock(file: string, fn: () => Promise<void>): Promise<void> {
  const lock = `${file}.lock`;
  const started = Date.now();
  for (let pause = 1;; pause = Math.min(pause * 2, 16)) {
    try {
      (await Deno.open(lock, { write: true, createNew: true })).close();
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    // Stale: its time says so, or (a file system without times) this writer waited that long.
    const since = await Deno.stat(lock).then((info) => info.mtime, () => undefined);
    const age = Date.now() - (since?.getTime() ?? started);
    if (age > LOCK_STALE_MS) {
      try {
        await Deno.remove(lock);
      } catch (error) {
        // Not removable (a directory of that name...): give up rather than spin.
        if (!(error instanceof Deno.errors.NotFound)) {
          throw new Error(`cannot take the lock ${lock}: ${message(error)}`);
        }
      }
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  try {
    await fn();
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}
