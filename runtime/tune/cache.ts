/**
 * {@linkcode TuneCache}: tuning results by key, in memory and optionally in one JSON file.
 *
 * The file is only ever replaced whole, by writing a temporary file next to it and renaming it
 * over the old one (atomic on one file system), so concurrent writers never leave a torn file:
 * each write re-reads the file and merges its own entry in, the last rename wins. A file that
 * does not parse is reported once and ignored. Each write merges the file's entries with every
 * entry this process stored, so the last writer never drops its own results. Without read or write permission (Deno's or the
 * file system's) the cache keeps working in memory and warns once. Permissions are queried, never
 * requested: a missing one never prompts.
 *
 * @module
 */

import { dirname } from "node:path";
import { runtimeLogger } from "../core/logging.ts";

const log = runtimeLogger("tune");
const FORMAT = 1;

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
}

/**
 * Tuning results by entry key (`<set>/<key string>`), in memory and, when a file is given and
 * permitted, persisted to that file.
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
  /** Entries set by this process: every write carries them all, so none is lost to a race. */
  readonly #mine = new Map<string, CacheEntry>();
  #file: string | undefined;
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string | undefined) {
    this.#file = file;
  }

  /** Opens a cache, loading `file` when given, readable and valid. */
  static async open(file?: string): Promise<TuneCache> {
    const cache = new TuneCache(file);
    if (file !== undefined) await cache.#load(file);
    return cache;
  }

  /** The file results persist to, or `undefined` once persistence is off. */
  get file(): string | undefined {
    return this.#file;
  }

  /** The warnings issued so far (each issued once): corrupt file, missing permission... */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** Number of entries in memory. */
  get size(): number {
    return this.#entries.size;
  }

  /** The entry for a key, unless missing or tuned with another checksum. */
  get(key: string, checksum: string): CacheEntry | undefined {
    const entry = this.#entries.get(key);
    return entry?.checksum === checksum ? entry : undefined;
  }

  /** Stores an entry in memory and, when persistent, in the file (resolves once written). */
  set(key: string, entry: CacheEntry): Promise<void> {
    this.#entries.set(key, entry);
    this.#mine.set(key, entry);
    const file = this.#file;
    if (file === undefined) return Promise.resolve();
    // One write at a time within this process; other processes are handled by the rename.
    this.#writing = this.#writing.then(() => this.#persist(file));
    return this.#writing;
  }

  async #load(file: string): Promise<void> {
    if (!permitted("read", file)) {
      this.#warn(`No read permission for ${file}: tuning results stay in memory`);
      this.#file = undefined;
      return;
    }
    const entries = await this.#readFile(file, true);
    for (const [key, entry] of Object.entries(entries ?? {})) this.#entries.set(key, entry);
  }

  /** The file's entries; `undefined` when missing, unreadable or corrupt. */
  async #readFile(file: string, report: boolean): Promise<Record<string, CacheEntry> | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      if (report) this.#warn(`Cannot read the tune cache ${file}: ${message(error)}`);
      return undefined;
    }
    const entries = parseEntries(text);
    if (entries === undefined && report) {
      this.#warn(`The tune cache ${file} is corrupt and was ignored`);
    }
    return entries;
  }

  async #persist(file: string): Promise<void> {
    if (this.#file === undefined) return;
    if (!permitted("write", dirname(file))) {
      this.#warn(`No write permission for ${dirname(file)}: tuning results stay in memory`);
      this.#file = undefined;
      return;
    }
    const temp = `${file}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      await Deno.mkdir(dirname(file), { recursive: true });
      const onDisk = await this.#readFile(file, false) ?? {};
      const body = { format: FORMAT, entries: { ...onDisk, ...Object.fromEntries(this.#mine) } };
      await Deno.writeTextFile(temp, JSON.stringify(body, null, 1) + "\n");
      await Deno.rename(temp, file);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      this.#warn(`Cannot write the tune cache ${file}: ${message(error)}; results stay in memory`);
      this.#file = undefined;
    }
  }

  #warn(text: string): void {
    if (this.#warnings.includes(text)) return;
    this.#warnings.push(text);
    log.warn("{message}", { message: text });
  }
}

function permitted(name: "read" | "write", path: string): boolean {
  try {
    return Deno.permissions.querySync({ name, path }).state === "granted";
  } catch {
    return false;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Parses the file's text; `undefined` when it is not a cache of this format. */
function parseEntries(text: string): Record<string, CacheEntry> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null) return undefined;
  const { format, entries } = body as { format?: unknown; entries?: unknown };
  if (format !== FORMAT || typeof entries !== "object" || entries === null) return undefined;
  const valid: Record<string, CacheEntry> = {};
  for (const [key, value] of Object.entries(entries)) {
    const e = value as Partial<CacheEntry> | null;
    if (
      typeof e?.checksum === "string" && typeof e.fastest === "string" && Array.isArray(e.results)
    ) {
      valid[key] = e as CacheEntry;
    } else {
      return undefined;
    }
  }
  return valid;
}
