/**
 * The cached pick of a key ({@linkcode cachedPick}) and what a tuner does when it throws
 * ({@linkcode ranInstead}).
 *
 * @module
 */

import { runtimeLogger } from "../core/logging.ts";
import { DestroyedError, DeviceLostError } from "../core/errors/state_errors.ts";
import { OutOfMemoryError } from "../core/errors/request_errors.ts";
import type { CacheEntry, TuneCache } from "./cache/cache.ts";
import type { TuneKey } from "./key.ts";
import type { Tunable, TunableSet } from "./tunable_set.ts";

const log = runtimeLogger("tune");

/**
 * The cached entry of a key and its winner, when the winner is a candidate of the set that runs
 * for the key (priority >= 0). A cache file is only data: an entry naming a candidate the set no
 * longer has, one that must not run for the key (a vec4 matmul for a width that is not a
 * multiple of 4: a wrong product), one whose own outcome in the entry is not `ok` (failed, or a
 * mismatch), or, for a tuner with `checks` on, a choice between candidates made without checking
 * their outputs, is ignored with a warning, and the key is tuned again.
 */
export function cachedPick<K extends TuneKey, I, O>(
  cache: TuneCache,
  set: TunableSet<K, I, O>,
  key: K,
  id: string,
  checks: boolean,
): { entry: CacheEntry; candidate: Tunable<K, I, O> } | undefined {
  const entry = cache.get(id, set.checksum);
  if (entry === undefined) return undefined;
  const candidate = set.candidate(entry.fastest);
  const why = candidate === undefined
    ? "is not a candidate of the set"
    : set.priority(candidate, key) < 0 || Number.isNaN(set.priority(candidate, key))
    ? "does not run for this key"
    : entry.results.length > 0 &&
        entry.results.find((r) => r.name === entry.fastest)?.status !== "ok"
    ? "has no ok outcome in the entry"
    : checks && entry.checked !== true && set.plan(key).flat().length > 1
    ? "was picked without output checks"
    : undefined;
  if (why === undefined) return { entry, candidate: candidate! };
  log.warn("Cached pick {fastest} for {id} ignored: it {why}; tuning again", {
    fastest: entry.fastest,
    id,
    why,
  });
  return undefined;
}

/**
 * A cached pick that threw on `inputs`: the set's fallback (the next planned candidate where the
 * fallback is the pick itself) runs on the same inputs. If it succeeds, the pick was at fault (a kernel this device or driver no longer compiles
 * or launches, a cache file from elsewhere): its outcome in the entry becomes `failed`, so the
 * next call tunes the key again (before, every later call threw), and the fallback's result is
 * returned. If the fallback throws too, the inputs are the likely cause: the pick's own error is
 * rethrown and the entry kept (a caller's mistake does not cost a tuning). Neither is the pick at
 * fault when it found the client destroyed or its device lost (that error is rethrown, no fallback
 * runs) or ran out of memory (the fallback's result is returned, the entry kept: memory is
 * freed later, as a tuning does not remember it), and an entry replaced meanwhile (a tuning that
 * ended while the fallback ran) is not written over.
 */
export async function ranInstead<K extends TuneKey, I, O>(
  cache: TuneCache,
  set: TunableSet<K, I, O>,
  key: K,
  id: string,
  cached: { entry: CacheEntry; candidate: Tunable<K, I, O> },
  inputs: I,
  error: unknown,
): Promise<O> {
  if (error instanceof DestroyedError || error instanceof DeviceLostError) throw error;
  let fallback: Tunable<K, I, O>;
  try {
    fallback = set.fallback(key);
  } catch {
    throw error;
  }
  if (fallback === cached.candidate) {
    // The pick is the fallback (the set names none and the pick is its first planned
    // candidate): the next planned one runs instead; a set of one candidate has none.
    const next = set.plan(key).flat().find((c) => c !== cached.candidate);
    if (next === undefined) throw error;
    fallback = next;
  }
  let result: O;
  try {
    result = await fallback.run(inputs);
  } catch {
    throw error;
  }
  const { entry } = cached;
  const oom = error instanceof OutOfMemoryError ||
    (error as { cause?: unknown })?.cause instanceof OutOfMemoryError;
  const now = cache.get(id, set.checksum);
  if (oom || (now !== entry && JSON.stringify(now) !== JSON.stringify(entry))) {
    log.warn("Cached pick {fastest} for {id} failed ({error}); ran {fallback}", {
      fastest: entry.fastest,
      id,
      error,
      fallback: fallback.name,
    });
    return result;
  }
  log.warn("Cached pick {fastest} for {id} failed ({error}); ran {fallback}, tuning again", {
    fastest: entry.fastest,
    id,
    error,
    fallback: fallback.name,
  });
  const failed = { name: entry.fastest, status: "failed" as const, error: String(error) };
  await cache.set(id, {
    ...entry,
    results: [...entry.results.filter((r) => r.name !== entry.fastest), failed],
  }).catch(() => {}); // a write that fails leaves the entry in memory, marked
  return result;
}
