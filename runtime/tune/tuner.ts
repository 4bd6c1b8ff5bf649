/**
 * {@linkcode Tuner}: picks the fastest candidate of a {@linkcode TunableSet} for each key by
 * timing them on the device, and remembers the pick in memory and in a persistent JSON cache.
 *
 * Port of CubeCL's `Tuner` (runtime/tune/tuner.rs) with its newer plan: priority groups,
 * adaptive sampling with elimination and an optional short-circuit (see `sampling.ts`).
 * Timings come from the client's profiler: device timestamps where the device has them. A
 * profiling window counts the work of its stream only: give a tuner that runs in the background
 * a `stream` of its own and the caller's work stays out of its timings (the device is still
 * shared, so heavy concurrent work can slow the candidates alike).
 *
 * @module
 */

import { runtimeLogger } from "../core/logging.ts";
import { memoryCache, TuneCache } from "./cache/cache.ts";
import {
  CACHE_DIR_ENV,
  cacheNamespace,
  joinPath,
  parentDir,
  resolveCacheDir,
} from "./cache/_cache_dir.ts";
import { deno } from "../core/_platform.ts";
import { keyString, type TuneKey } from "./key.ts";
import { ProgressBar, stderrIsTerminal } from "./_progress.ts";
import type { TuneClient, TuneOutcome, TunerOptions, TunerStats } from "./tuner_types.ts";
import type { Tunable, TunableSet } from "./tunable_set.ts";
import type { CacheEntry } from "./cache/cache.ts";
import { tuneKey } from "./_tune_key.ts";
import { checkSampling } from "./sampling.ts";
import { assertKnownKeys, describe, optionalBoolean } from "../core/_argument_checks.ts";
import { retainInputs } from "./_retain.ts";
import { OutOfMemoryError } from "../core/errors/request_errors.ts";

const log = runtimeLogger("tune");

/**
 * Tunes sets on one client.
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import { matmulSet, Tuner } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * const tuner = new Tuner(client, { name: "demo" });
 * const matmul = matmulSet(client);
 * using a = client.createWithData(new Float32Array(64 * 64).fill(1));
 * using c = await tuner.execute(matmul, { a, b: a, m: 64, n: 64, k: 64 });
 * console.log(tuner.fastest(matmul, { a, b: a, m: 64, n: 64, k: 64 }));
 * ```
 */
export class Tuner {
  readonly #client: TuneClient;
  readonly #options: TunerOptions;
  readonly #inflight = new Map<string, Promise<TuneOutcome>>();
  readonly #failed = new Map<string, unknown>();
  #cache: TuneCache | undefined;
  #opening: Promise<TuneCache> | undefined;
  #stats = { tunings: 0, runs: 0, cacheHits: 0 };

  /**
   * Creates a tuner; the cache file is opened on first use. `RangeError` for a short-circuit
   * throughput that is negative or not a finite number (0 turns the short-circuit off), and for
   * sampling counts that are not integers with 1 <= minSamples <= maxSamples or a `minSampleMs`
   * that is not a finite number >= 0; `TypeError` for a `name` or `cacheDir` that is not a string
   * and an `onProgress` that is not a function.
   */
  constructor(client: TuneClient, options: TunerOptions = {}) {
    checkTunerArguments(client, options);
    const throughput = options.shortCircuit?.throughput;
    if (options.shortCircuit !== undefined && !(Number.isFinite(throughput) && throughput! >= 0)) {
      throw new RangeError(
        `shortCircuit.throughput must be a finite number >= 0 (0: off), got ${throughput}`,
      );
    }
    checkSampling(options.sampling ?? {}); // a bad option is refused here, not at every tune
    for (const [option, type] of [["name", "string"], ["cacheDir", "string"]] as const) {
      const value = options[option];
      if (value !== undefined && typeof value !== type) {
        throw new TypeError(`${option} must be a ${type}, got ${typeof value}`);
      }
    }
    if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
      throw new TypeError(`onProgress must be a function, got ${typeof options.onProgress}`);
    }
    this.#client = client;
    this.#options = options;
  }

  /** The client this tuner times candidates on (its device names the cache). */
  get client(): TuneClient {
    return this.#client;
  }

  /** Counters since creation. */
  get stats(): TunerStats {
    return { ...this.#stats };
  }

  /**
   * The file this tuner's results persist to, or `undefined` when they do not persist to a file:
   * `persistent: false`, no Deno, no cache directory known, or no read and write permission for
   * it (then the first run warns, on `console.warn` too while LogTape is not configured).
   */
  get cacheFile(): string | undefined {
    if (this.#cache !== undefined) return this.#cache.file; // what the open cache writes to
    const file = this.#filePath();
    return file !== undefined && writable(file) ? file : undefined;
  }

  /** Where the file would be, permissions aside. */
  #filePath(): string | undefined {
    if (this.#options.persistent === false || deno === undefined) return undefined;
    const dir = resolveCacheDir(this.#options.cacheDir);
    if (dir === undefined) return undefined;
    const [version, device, name] = this.#namespace();
    return joinPath(dir, version, device, `${name}.json`);
  }

  /**
   * The cache, opened (and loaded) on first call: the {@linkcode cacheFile} on Deno, IndexedDB
   * elsewhere (the key `v<version>/<backend>-<device>/<name>`), memory when not persistent.
   */
  cache(): Promise<TuneCache> {
    this.#opening ??= this.#openCache().then((cache) => (this.#cache = cache));
    return this.#opening;
  }

  #openCache(): Promise<TuneCache> {
    // Opened even without permission: the store says so once, and results stay in memory.
    if (deno !== undefined) {
      const file = this.#filePath();
      if (file === undefined && this.#options.persistent !== false) {
        // No directory known (no permission to read the variables that name it, or none set):
        // said once, as for a missing permission, rather than silently tuning on every run.
        return memoryCache(
          `No tune cache directory: set ${CACHE_DIR_ENV} (or HOME, XDG_CACHE_HOME, LOCALAPPDATA) ` +
            "and allow reading it (--allow-env), or pass cacheDir; tuning results stay in memory",
        );
      }
      return TuneCache.open(file, { store: "file" });
    }
    if (this.#options.persistent === false) return TuneCache.open();
    return TuneCache.open(this.#namespace().join("/"), { store: "indexeddb" });
  }

  #namespace(): string[] {
    return cacheNamespace(this.#client.server.properties, this.#options.name ?? "default");
  }

  /** The cached winner for some inputs, if known now (memory only; no tuning). */
  fastest<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): string | undefined {
    if (this.#cache === undefined) return undefined;
    const key = set.key(inputs);
    return cachedPick(this.#cache, set, key, entryKey(set, keyString(key)))?.entry.fastest;
  }

  /** Whether the key of these inputs is being tuned now. */
  isTuning<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): boolean {
    return this.#inflight.has(entryKey(set, keyString(set.key(inputs))));
  }

  /** Resolves once every tuning run in flight (background ones included) has settled. */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
  }

  /**
   * Runs the best candidate for the inputs: the cached winner, or, on a new key, tunes first (or,
   * with `background`, runs the fallback at once and tunes behind it). Concurrent calls for one
   * key share one tuning run. Rejects with `TuneFailedError` when every candidate
   * failed, with the client's `DestroyedError` when it is destroyed mid-tune, and with what
   * `onProgress` threw when it aborts the run. A failed key fails again at once on later calls
   * (no new benchmark), unless a candidate ran out of memory or `onProgress` aborted it. The
   * winner launches at the call when its pick is in memory, after the tuning otherwise: it then
   * reads the inputs as they are at that point, so keep them unchanged and undisposed until the
   * promise resolves (`matmul` copies them for you).
   */
  async execute<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): Promise<O> {
    const key = set.key(inputs);
    const id = entryKey(set, keyString(key));
    const cache = this.#cache ?? await this.cache();
    const cached = cachedPick(cache, set, key, id);
    if (cached !== undefined) {
      this.#stats.cacheHits++;
      return await cached.candidate.run(inputs);
    }
    if (this.#failed.has(id)) throw this.#failed.get(id);
    if (this.#options.background) {
      // Without an `inputs` option the run benchmarks on the caller's inputs, which the caller
      // may dispose once this call returns (every candidate failed on them, and the key with it).
      const kept = set.options.inputs === undefined && !this.#inflight.has(id)
        ? retainInputs(inputs)
        : undefined;
      this.#start(set, key, id, kept?.inputs ?? inputs)
        .finally(() => kept?.release())
        .catch(() => {}); // failures are logged and remembered
      return await set.fallback(key).run(inputs);
    }
    const outcome = await this.#start(set, key, id, inputs);
    return await set.candidate(outcome.fastest)!.run(inputs);
  }

  /** Tunes the key of the inputs now (or returns the cached outcome) without running the winner. */
  async tune<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): Promise<TuneOutcome> {
    const key = set.key(inputs);
    const id = entryKey(set, keyString(key));
    const cache = await this.cache();
    const hit = cachedPick(cache, set, key, id)?.entry;
    if (hit !== undefined) {
      this.#stats.cacheHits++;
      const { fastest, results } = hit;
      const persisted = cache.store !== "memory";
      return {
        key: keyString(key),
        fastest,
        results,
        fromCache: true,
        persisted,
        errors: new Map(),
      };
    }
    if (this.#failed.has(id)) throw this.#failed.get(id);
    return await this.#start(set, key, id, inputs);
  }

  #start<K extends TuneKey, I, O>(
    set: TunableSet<K, I, O>,
    key: K,
    id: string,
    inputs: I,
  ): Promise<TuneOutcome> {
    const running = this.#inflight.get(id);
    if (running !== undefined) return running;
    const run = this.#run(set, key, inputs).finally(() => this.#inflight.delete(id));
    this.#inflight.set(id, run);
    return run;
  }

  async #run<K extends TuneKey, I, O>(
    set: TunableSet<K, I, O>,
    key: K,
    inputs: I,
  ): Promise<TuneOutcome> {
    const cache = await this.cache();
    const text = keyString(key);
    const id = entryKey(set, text);
    this.#stats.tunings++;
    log.info("Tuning {set} {key}", { set: set.name, key: text });
    const bar = (this.#options.progressBar ?? stderrIsTerminal()) ? new ProgressBar() : undefined;
    /** What `onProgress` threw: it aborts the run, and the key may be tuned again later. */
    let aborted: { error: unknown } | undefined;
    try {
      const { entry, errors } = await tuneKey(set, key, text, inputs, {
        client: this.#client,
        sampling: this.#options.sampling ?? {},
        checks: this.#options.checks ?? false,
        throughput: this.#options.shortCircuit?.throughput,
        stream: this.#options.stream,
        progress: (progress) => {
          this.#stats.runs += progress.runs;
          bar?.update(progress);
          try {
            this.#options.onProgress?.(progress);
          } catch (error) {
            aborted = { error };
            throw error;
          }
        },
      });
      await cache.set(id, entry);
      return {
        key: text,
        fastest: entry.fastest,
        results: entry.results,
        fromCache: false,
        persisted: cache.store !== "memory", // after the write: a failed one falls back to memory
        errors,
      };
    } catch (error) {
      if (aborted !== undefined && aborted.error === error) {
        log.info("Tuning {set} {key} aborted by onProgress: {error}", {
          set: set.name,
          key: text,
          error,
        });
        throw error;
      }
      // Out of memory is not remembered: once memory is freed, the next call tunes again (it
      // used to fail every later call of the key, matmul's too, for the tuner's life).
      const oom = error instanceof OutOfMemoryError ||
        (error as { cause?: unknown })?.cause instanceof OutOfMemoryError;
      if (!oom) this.#failed.set(id, error);
      log.warn("Tuning {set} {key} failed: {error}", { set: set.name, key: text, error });
      throw error;
    } finally {
      bar?.finish();
    }
  }
}

/**
 * The cached entry of a key and its winner, when the winner is a candidate of the set that runs
 * for the key (priority >= 0). A cache file is only data: an entry naming a candidate the set no
 * longer has, or one that must not run for the key (a vec4 matmul for a width that is not a
 * multiple of 4: a wrong product), is ignored with a warning, and the key is tuned again.
 */
function cachedPick<K extends TuneKey, I, O>(
  cache: TuneCache,
  set: TunableSet<K, I, O>,
  key: K,
  id: string,
): { entry: CacheEntry; candidate: Tunable<K, I, O> } | undefined {
  const entry = cache.get(id, set.checksum);
  if (entry === undefined) return undefined;
  const candidate = set.candidate(entry.fastest);
  if (candidate !== undefined && set.priority(candidate, key) >= 0) return { entry, candidate };
  const why = candidate === undefined
    ? "is not a candidate of the set"
    : "does not run for this key";
  log.warn("Cached pick {fastest} for {id} ignored: it {why}; tuning again", {
    fastest: entry.fastest,
    id,
    why,
  });
  return undefined;
}

function entryKey<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, key: string): string {
  return `${set.name}/${key}`;
}

/** Whether Deno grants reading `file` and writing its directory (queried, never requested). */
function writable(file: string): boolean {
  const dir = parentDir(file); // either separator: a Windows path has no "/"
  try {
    const { permissions } = deno!;
    return permissions.querySync({ name: "read", path: file }).state === "granted" &&
      permissions.querySync({ name: "write", path: dir }).state === "granted";
  } catch {
    return false;
  }
}

/** `TunerOptions`' keys: a misspelt one (`persistant`) would otherwise be ignored. */
const TUNER_OPTIONS = [
  "name",
  "persistent",
  "cacheDir",
  "background",
  "checks",
  "stream",
  "sampling",
  "shortCircuit",
  "onProgress",
  "progressBar",
];

/** `TypeError` for a client that is not one, options that are not an object or a key it lacks. */
function checkTunerArguments(client: unknown, options: unknown): void {
  const given = client as Partial<Record<"profile" | "sync" | "read" | "server", unknown>> | null;
  if (
    typeof given !== "object" || given === null || typeof given.profile !== "function" ||
    typeof given.sync !== "function" || typeof given.read !== "function" ||
    typeof (given.server as { properties?: unknown } | undefined)?.properties !== "object"
  ) {
    throw new TypeError(`client must be a ComputeClient (a TuneClient), got ${describe(client)}`);
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${describe(options)}`);
  }
  assertKnownKeys(options, TUNER_OPTIONS, "Tuner");
  for (const key of ["persistent", "background", "checks", "progressBar"] as const) {
    optionalBoolean((options as Record<string, unknown>)[key], `Tuner: options.${key}`);
  }
}
