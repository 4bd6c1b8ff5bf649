/**
 * The tune cache in IndexedDB, for browsers: database `gpucompute`, object store `tune-cache`,
 * one `{ format, entries }` body per cache under the key the file store would use as a path
 * (`v<version>/<backend>-<device>/<tuner>`). A write reads, merges and puts in ONE readwrite
 * transaction, which IndexedDB runs atomically and in order with every other tab's: no tab ever
 * sees a torn body or drops another's entries. A connection is opened per operation and closed
 * after it, so nothing holds the database between tunings.
 *
 * @module
 */

import { type CacheStore, type Entries, FORMAT, message, parseEntries } from "./_cache_store.ts";

/** The IndexedDB database of the package. */
export const IDB_DATABASE = "gpucompute";
/** The object store of tuning results in it. */
export const IDB_STORE = "tune-cache";

// The part of the IndexedDB API used here (Deno's type library has none).
interface Request<T> {
  result: T;
  error: { message: string } | null;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface OpenRequest extends Request<Database> {
  onupgradeneeded: (() => void) | null;
  onblocked: (() => void) | null;
}
interface Database {
  readonly objectStoreNames: { contains(name: string): boolean };
  createObjectStore(name: string): unknown;
  transaction(store: string, mode: "readonly" | "readwrite"): Transaction;
  close(): void;
}
interface Transaction {
  objectStore(name: string): {
    get(key: string): Request<unknown>;
    put(value: unknown, key: string): Request<unknown>;
  };
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  error: { message: string } | null;
}
interface Factory {
  open(name: string, version: number): OpenRequest;
}

/** A cache body under one key of the package's IndexedDB object store. */
export class IndexedDbStore implements CacheStore {
  readonly kind = "indexeddb";
  readonly location: string;
  readonly #factory: Factory;

  constructor(key: string) {
    const factory = (globalThis as { indexedDB?: Factory }).indexedDB;
    if (factory === undefined) {
      throw new Error(`IndexedDB is not available here: tuning results stay in memory`);
    }
    this.location = key;
    this.#factory = factory;
  }

  async load(warn: (text: string) => void): Promise<Entries> {
    const stored = await this.#run("readonly", (store) => request(store.get(this.location)))
      .catch((error) => {
        throw new Error(
          `Cannot read the tune cache ${this}: ${message(error)}; results stay in memory`,
        );
      });
    if (stored === undefined) return {};
    const entries = parseEntries(stored);
    if (entries === undefined) warn(`The tune cache ${this} is corrupt and was ignored`);
    return entries ?? {};
  }

  async save(mine: Entries): Promise<void> {
    await this.#run("readwrite", async (store) => {
      const stored = parseEntries(await request(store.get(this.location))) ?? {};
      await request(store.put({ format: FORMAT, entries: { ...stored, ...mine } }, this.location));
    }).catch((error) => {
      throw new Error(
        `Cannot write the tune cache ${this}: ${message(error)}; results stay in memory`,
      );
    });
  }

  /** `indexeddb:<database>/<store>/<key>`, as in messages. */
  toString(): string {
    return `indexeddb:${IDB_DATABASE}/${IDB_STORE}/${this.location}`;
  }

  /** Runs `fn` in one transaction and resolves once the transaction committed. */
  async #run<T>(
    mode: "readonly" | "readwrite",
    fn: (store: ReturnType<Transaction["objectStore"]>) => Promise<T>,
  ): Promise<T> {
    const db = await this.#open();
    try {
      const tx = db.transaction(IDB_STORE, mode);
      const done = new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = tx.onabort = () => reject(new Error(tx.error?.message ?? "aborted"));
      });
      const [result] = await Promise.all([fn(tx.objectStore(IDB_STORE)), done]);
      return result;
    } finally {
      db.close();
    }
  }

  #open(): Promise<Database> {
    const open = this.#factory.open(IDB_DATABASE, 1);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(IDB_STORE)) {
        open.result.createObjectStore(IDB_STORE);
      }
    };
    return new Promise((resolve, reject) => {
      let blocked = false;
      open.onsuccess = () => blocked ? open.result.close() : resolve(open.result);
      open.onerror = () => reject(new Error(open.error?.message ?? "cannot open the database"));
      // A connection of another tab on an older version holds the upgrade: fail, do not wait
      // (and close the connection should it open later).
      open.onblocked = () => {
        blocked = true;
        reject(new Error("the database is held by another connection"));
      };
    });
  }
}

/** Resolves with a request's result (IndexedDB requests are events, not promises). */
function request<T>(req: Request<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new Error(req.error?.message ?? "request failed"));
  });
}
