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
import type { TunableSet } from "./tunable_set.ts";
import { tuneKey } from "./_tune_key.ts";
import { checkTunerOptions } from "./_checks.ts";
import { retainInputs } from "./_retain.ts";
import { cachedPick, ranInstead } from "./_cached_pick.ts";
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
   * throughput that is negative or not a finite number (0 turns the short-circuit off), for
   * sampling options out of their range (see `SamplingOptions`), a bad `stream` id and an empty
   * `cacheDir`; `TypeError` for a client that is not one, an unknown option (or sampling option),
   * a `name` or `cacheDir` that is not a string, a flag (`persistent`, `background`, `checks`,
   * `progressBar`) that is not a boolean and an `onProgress` that is not a function.
   */
  constructor(client: TuneClient, options: TunerOptions = {}) {
    checkTunerOptions(client, options); // a bad option is refused here, not at every tune
    const throughput = options.shortCircuit?.throughput;
    if (options.shortCircuit !== undefined && !(Number.isFinite(throughput) && throughput! >= 0)) {
      throw new RangeError(
        `shortCircuit.throughput must be a finite number >= 0 (0: off), got ${throughput}`,
      );
    }
    for (const [option, type] of [["name", "string"], ["cacheDir", "string"]] as const) {
      const value = options[option];
      if (value !== undefined && typeof value !== type) {
        throw new TypeError(`${option} must be a ${type}, got ${typeof value}`);
      }
    }
    if (options.cacheDir?.trim() === "") {
      // It used to name the file system's root: "/v<version>/<device>/<name>.json".
      throw new RangeError("cacheDir must name a directory, got an empty string");
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

  /** Whether candidates' outputs are checked (and cached picks must have been). */
  get #checks(): boolean {
    return this.#options.checks ?? false;
  }

  #namespace(): string[] {
    return cacheNamespace(this.#client.server.properties, this.#options.name ?? "default");
  }

  /** The cached winner for some inputs, if known now (memory only; no tuning). */
  fastest<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): string | undefined {
    if (this.#cache === undefined) return undefined;
    const key = set.key(inputs);
    return cachedPick(this.#cache, set, key, entryKey(set, keyString(key)), this.#checks)?.entry
      .fastest;
  }

  /** Whether the key of these inputs is being tuned now. */
  isTuning<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): boolean {
    return this.#inflight.has(runId(set, entryKey(set, keyString(set.key(inputs)))));
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
   * (no new benchmark), unless a candidate ran out of memory or `onProgress` aborted it. A cached
   * winner that throws where the set's fallback (the next planned candidate where that is the
   * winner) runs on the same inputs is marked failed (the key is tuned again on the next call) and
   * the fallback's result returned; where the fallback throws too, the winner's error is (out of
   * memory: the fallback's result, the entry kept; the client destroyed or its device lost: that
   * error, no fallback). The winner launches at the call when its pick is in memory, after the
   * tuning otherwise: it then reads the inputs as they are at that point, so keep them unchanged
   * and undisposed until the promise resolves (`matmul` copies them for you).
   */
  async execute<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, inputs: I): Promise<O> {
    const key = set.key(inputs);
    const id = entryKey(set, keyString(key));
    const cache = this.#cache ?? await this.cache();
    const cached = cachedPick(cache, set, key, id, this.#checks);
    if (cached !== undefined) {
      try {
        const output = await cached.candidate.run(inputs);
        this.#stats.cacheHits++; // served by the pick: one that failed was not
        return output;
      } catch (error) {
        return await ranInstead(cache, set, key, id, cached, inputs, error);
      }
    }
    if (this.#failed.has(runId(set, id))) throw this.#failed.get(runId(set, id));
    if (this.#options.background) {
      // Without an `inputs` option the run benchmarks on the caller's inputs, which the caller
      // may dispose once this call returns (every candidate failed on them, and the key with it).
      const kept = set.options.inputs === undefined && !this.#inflight.has(runId(set, id))
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
    const hit = cachedPick(cache, set, key, id, this.#checks)?.entry;
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
    if (this.#failed.has(runId(set, id))) throw this.#failed.get(runId(set, id));
    return await this.#start(set, key, id, inputs);
  }

  #start<K extends TuneKey, I, O>(
    set: TunableSet<K, I, O>,
    key: K,
    id: string,
    inputs: I,
  ): Promise<TuneOutcome> {
    // Runs and failures are the set's own: another set of the same name (another candidate
    // list) shares neither, though both write the entry (each with its checksum).
    const tuning = runId(set, id);
    const running = this.#inflight.get(tuning);
    if (running !== undefined) return running;
    const run = this.#run(set, key, inputs).finally(() => this.#inflight.delete(tuning));
    this.#inflight.set(tuning, run);
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
      if (!oom) this.#failed.set(runId(set, id), error);
      log.warn("Tuning {set} {key} failed: {error}", { set: set.name, key: text, error });
      throw error;
    } finally {
      bar?.finish();
    }
  }
}

function entryKey<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, key: string): string {
  return `${set.name}/${key}`;
}

/** The id of a set's tuning run (and failure) of an entry: the entry's, per candidate list. */
function runId<K extends TuneKey, I, O>(set: TunableSet<K, I, O>, id: string): string {
  return `${set.checksum}:${id}`;
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
