/**
 * Where a {@linkcode TuneCache} persists: a JSON file on Deno, IndexedDB in browsers. Both hold
 * one body per cache, `{ format, entries }`, validated alike by {@linkcode parseEntries}; the
 * namespace (package version, device, tuner name) is in the location, each entry carries the
 * checksum of its set's candidates.
 *
 * @module
 */

import type { CachedResult, CacheEntry } from "./cache.ts";

/** The stored body's format; a body of another format is ignored (and replaced on write). */
export const FORMAT = 1;

/** Entries by key. */
export type Entries = Record<string, CacheEntry>;

/** The body every store holds. */
export interface CacheBody {
  readonly format: number;
  readonly entries: Entries;
}

/**
 * A persistent store. `load` and `save` throw an `Error` whose message is the warning to show
 * when persistence must stop (the cache then stays in memory); `load` passes lesser problems,
 * such as a corrupt body it ignored, to `warn` and goes on.
 */
export interface CacheStore {
  /** `file` or `indexeddb`. */
  readonly kind: "file" | "indexeddb";
  /** The file path, or the IndexedDB key. */
  readonly location: string;
  /** The stored entries (none when nothing is stored yet). */
  load(warn: (text: string) => void): Promise<Entries>;
  /** Merges `mine` over the stored entries and stores the result whole. */
  save(mine: Entries): Promise<void>;
}

/** The entries of a stored body; `undefined` when it is not a body of this format. */
export function parseEntries(body: unknown): Entries | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { format, entries } = body as { format?: unknown; entries?: unknown };
  if (format !== FORMAT || typeof entries !== "object" || entries === null) return undefined;
  const valid: Entries = {};
  for (const [key, value] of Object.entries(entries)) {
    if (!isEntry(value)) return undefined;
    valid[key] = value;
  }
  return valid;
}

/** Whether a value has the shape of a `CacheEntry` (and its numbers survive JSON: finite). */
export function isEntry(value: unknown): value is CacheEntry {
  const e = value as Partial<CacheEntry> | null;
  return typeof e?.checksum === "string" && typeof e.fastest === "string" &&
    Array.isArray(e.results) && e.results.every(isResult) &&
    (e.checked === undefined || typeof e.checked === "boolean");
}

const STATUSES: readonly unknown[] = ["ok", "eliminated", "failed", "skipped"];

/** Whether a stored candidate outcome has the shape of a `CachedResult`. */
function isResult(value: unknown): value is CachedResult {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  const optional = (name: string, type: string) =>
    r[name] === undefined ||
    (typeof r[name] === type && (type !== "number" || Number.isFinite(r[name])));
  return typeof r.name === "string" && STATUSES.includes(r.status) &&
    optional("medianMs", "number") && optional("samples", "number") && optional("error", "string");
}

/** An error's message. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
