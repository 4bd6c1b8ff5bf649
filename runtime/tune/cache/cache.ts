/**
 * {@linkcode TuneCache}: tuning results by key, in memory and optionally persisted: to one JSON
 * file on Deno, to IndexedDB in browsers (see {@linkcode TuneCacheOptions.store}). Both stores
 * hold the same `{ format, entries }` body, namespaced by package version, device and tuner
 * name, every entry with its set's checksum; both merge on write under a lock (a lock file, an
 * IndexedDB transaction), so concurrent writers (other processes, other tabs) never leave a torn
 * body nor drop each other's entries, and each write carries every entry this cache stored. A body that does not parse is
 * reported once and ignored. Where persistence is impossible (no permission, no IndexedDB, a
 * failed write) the cache keeps working in memory and warns once. Permissions are queried,
 * never requested: a missing one never prompts.
 *
 * @module
 */

import { runtimeLogger, warnVisibly } from "../../core/logging.ts";
import { deno } from "../../core/_platform.ts";
import { type CacheStore, type Entries, isEntry, message } from "./_cache_store.ts";
import { IndexedDbStore } from "./_idb_store.ts";

const log = runtimeLogger("tune");
/** Issues a warning of a cache (set by `TuneCache`'s static block: `#warn` is private). */
let warnOf: (cache: TuneCache, text: string) => void;

/**
 * One candidate's outcome as stored.
 *
 * @example
 * ```ts
 * import type { CachedResult } from "@gpucompute/runtime/tune";
 * const result: CachedResult = { name: "vec4_8x8_wg8x8", status: "ok", medianMs: 4.5, samples: 3 };
 * ```
 */
export interface CachedResult {
  /** The candidate's name. */
  readonly name: string;
  /** `ok`, `eliminated`, `failed`, or `skipped` (not run: a decision came from an earlier group). */
  readonly status: "ok" | "eliminated" | "failed" | "skipped";
  /** Median time in milliseconds, when measured. */
  readonly medianMs?: number;
  /** Number of timed samples. */
  readonly samples?: number;
  /** Why it failed. */
  readonly error?: string;
}

/**
 * A tuning result.
 *
 * @example
 * ```ts
 * import type { CacheEntry } from "@gpucompute/runtime/tune";
 * const entry: CacheEntry = { checksum: "0123456789abcdef", fastest: "a", results: [] };
 * ```
 */
export interface CacheEntry {
  /** The set's checksum when it was tuned; an entry with another checksum is ignored. */
  readonly checksum: string;
  /** The winner's name. */
  readonly fastest: string;
  /** Every candidate's outcome. */
  readonly results: readonly CachedResult[];
  /**
   * Whether every candidate's output was checked against the reference's (the tuner's `checks`):
   * a tuner with checks on tunes a key again rather than serve an unchecked pick.
   * @default {false}
   */
  readonly checked?: boolean;
}

/**
 * Options of {@linkcode TuneCache.open}.
 *
 * @example
 * ```ts
 * import type { TuneCacheOptions } from "@gpucompute/runtime/tune";
 * const options: TuneCacheOptions = { store: "indexeddb" };
 * ```
 */
export interface TuneCacheOptions {
  /**
   * Where results persist: `"file"` (the location is a path; Deno only) or `"indexeddb"` (the
   * location is a key in the `gpucompute` database's `tune-cache` store; browsers).
   * @default {"file" on Deno, "indexeddb" elsewhere}
   */
  store?: "file" | "indexeddb";
}

/**
 * Tuning results by entry key (`<set>/<key string>`), in memory and, when a location is given
 * and usable, persisted there.
 *
 * @example In memory only
 * ```ts
 * import { TuneCache } from "@gpucompute/runtime/tune";
 * const cache = await TuneCache.open();
 * await cache.set("sum/n=64", { checksum: "c1", fastest: "loop", results: [] });
 * console.log(cache.get("sum/n=64", "c1")?.fastest, cache.get("sum/n=64", "c2")); // loop undefined
 * ```
 */
export class TuneCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #warnings: string[] = [];
  /** Entries set by this cache: every write carries them all, so none is lost to a race. */
  readonly #mine = new Map<string, CacheEntry>();
  /** Keys whose entry had another checksum, logged once. */
  readonly #stale = new Set<string>();
  #store: CacheStore | undefined;
  #writing: Promise<void> = Promise.resolve();

  private constructor() {}

  static {
    warnOf = (cache, text) => cache.#warn(text);
  }

  /**
   * Opens a cache, loading what `location` holds when given, readable and valid. A `store` other
   * than `"file"` or `"indexeddb"` is a `RangeError`; an unusable one leaves the cache in memory.
   */
  static async open(location?: string, options: TuneCacheOptions = {}): Promise<TuneCache> {
    const kind = options.store ?? (deno === undefined ? "indexeddb" : "file");
    if (kind !== "file" && kind !== "indexeddb") {
      throw new RangeError(`store must be "file" or "indexeddb", got ${JSON.stringify(kind)}`);
    }
    const cache = new TuneCache();
    if (location !== undefined) await cache.#attach(kind, location);
    return cache;
  }

  /** Where results persist: `"file"`, `"indexeddb"`, or `"memory"` once persistence is off. */
  get store(): "file" | "indexeddb" | "memory" {
    return this.#store?.kind ?? "memory";
  }

  /** The file path or IndexedDB key results persist to, or `undefined` in memory. */
  get location(): string | undefined {
    return this.#store?.location;
  }

  /** The file results persist to, or `undefined` when not persisted to a file. */
  get file(): string | undefined {
    return this.#store?.kind === "file" ? this.#store.location : undefined;
  }

  /** The warnings issued so far (each issued once): corrupt body, missing permission... */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** Number of entries in memory. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The entry for a key, unless missing or tuned with another checksum (another candidate list:
   * another version of the set, or another backend's; logged once per key, and tuned again).
   */
  get(key: string, checksum: string): CacheEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.checksum === checksum) return entry;
    if (!this.#stale.has(key)) {
      this.#stale.add(key);
      log.info("Cached entry {key} ignored: tuned with another candidate list ({was}, now {now})", {
        key,
        was: entry.checksum,
        now: checksum,
      });
    }
    return undefined;
  }

  /**
   * Stores an entry in memory and, when persistent, in the store (resolves once written). Rejects
   * with a `TypeError`, storing nothing, for a key that is not a string or an entry that is not a
   * `CacheEntry` (finite numbers only: the stored body is JSON, which has no NaN).
   */
  set(key: string, entry: CacheEntry): Promise<void> {
    if (typeof key !== "string") {
      return Promise.reject(new TypeError(`key must be a string, got ${typeof key}`));
    }
    if (!isEntry(entry)) {
      const what = "{ checksum, fastest, results } with finite numbers";
      return Promise.reject(new TypeError(`entry for ${key} must be a CacheEntry (${what})`));
    }
    this.#entries.set(key, entry);
    this.#mine.set(key, entry);
    if (this.#store === undefined) return Promise.resolve();
    // One write at a time within this cache; other writers are handled by the store's merge.
    this.#writing = this.#writing.then(() => this.#persist());
    return this.#writing;
  }

  async #attach(kind: "file" | "indexeddb", location: string): Promise<void> {
    let entries: Entries;
    let store: CacheStore;
    try {
      store = await openStore(kind, location);
      entries = await store.load((text) => this.#warn(text));
    } catch (error) {
      this.#warn(message(error));
      return;
    }
    for (const [key, entry] of Object.entries(entries)) this.#entries.set(key, entry);
    this.#store = store;
  }

  async #persist(): Promise<void> {
    const store = this.#store;
    if (store === undefined) return;
    try {
      await store.save(Object.fromEntries(this.#mine));
    } catch (error) {
      this.#warn(message(error));
      this.#store = undefined;
    }
  }

  #warn(text: string): void {
    if (this.#warnings.includes(text)) return;
    this.#warnings.push(text);
    // Seen on the first run even without logging set up: otherwise the tuner would silently
    // tune again on every run.
    warnVisibly(log, text);
  }
}

/**
 * An in-memory cache that warns once why results cannot persist (for the tuner, when it knows
 * no cache directory): the warning is in {@linkcode TuneCache.warnings} and on the console.
 */
export async function memoryCache(why: string): Promise<TuneCache> {
  const cache = await TuneCache.open();
  warnOf(cache, why);
  return cache;
}

/** The store of a kind; the file store is loaded on demand, so browser bundles leave it out. */
async function openStore(kind: "file" | "indexeddb", location: string): Promise<CacheStore> {
  if (kind === "indexeddb") return new IndexedDbStore(location);
  if (deno === undefined) {
    throw new Error(`No file system in this host: tuning results for ${location} stay in memory`);
  }
  const { FileStore } = await import("./_file_store.ts");
  return new FileStore(location);
}
