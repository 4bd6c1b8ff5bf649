/**
 * The shapes of the `Tuner`'s API: the client it needs, its options, its outcomes,
 * progress reports and counters.
 *
 * @module
 */

import type { Handle } from "../core/handles/handle.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { Profiled, StreamOptions } from "../client/options.ts";
import type { TypedArray, TypedArrayConstructor } from "../core/dtype.ts";
import type { DeviceProperties } from "../server/server.ts";
import type { CachedResult } from "./cache/cache.ts";
import type { SamplingOptions } from "./sampling.ts";

/**
 * What the tuner needs of a client; a `ComputeClient` has it all.
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import type { TuneClient } from "@gpucompute/runtime/tune";
 * using client: TuneClient = await createClient();
 * ```
 */
export interface TuneClient {
  /** Runs `fn` in a profiling window. */
  profile<T>(fn: () => T | Promise<T>, options?: StreamOptions): Promise<Profiled<T>>;
  /** Waits for submitted work (and reports deferred errors). */
  sync(options?: StreamOptions): Promise<void>;
  /** Reads a handle (for output checks). */
  read<T extends TypedArray = Uint8Array>(
    handle: Handle,
    type?: TypedArrayConstructor<T>,
    options?: StreamOptions,
  ): Promise<T>;
  /** The server, for the device's name in the cache's namespace. */
  readonly server: { readonly properties: DeviceProperties };
}

/**
 * A progress report, after every candidate run of a tuning run.
 *
 * @example
 * ```ts
 * import type { TuneProgress } from "@gpucompute/runtime/tune";
 * const show = (p: TuneProgress) => `${p.set} ${p.key}: ${p.done}/${p.total} (${p.candidate})`;
 * ```
 */
export interface TuneProgress {
  /** The set being tuned. */
  readonly set: string;
  /** The key's string form. */
  readonly key: string;
  /** The candidate that just ran. */
  readonly candidate: string;
  /**
   * Steps made so far: warm-ups and timed samples (a sample of a short candidate batches several
   * runs, see `SamplingOptions.minSampleMs`).
   */
  readonly done: number;
  /** Most steps the plan may take (adaptive runs usually stop well before). */
  readonly total: number;
  /** Candidate runs in the step just made. */
  readonly runs: number;
  /** Milliseconds since the run started. */
  readonly elapsedMs: number;
}

/**
 * The outcome of tuning one key.
 *
 * @example
 * ```ts
 * import type { TuneOutcome } from "@gpucompute/runtime/tune";
 * const describe = (o: TuneOutcome) => `${o.key}: ${o.fastest}${o.fromCache ? " (cached)" : ""}`;
 * ```
 */
export interface TuneOutcome {
  /** The key's string form. */
  readonly key: string;
  /** The winner's name. */
  readonly fastest: string;
  /** Every candidate's outcome (empty when chosen without benchmarking). */
  readonly results: readonly CachedResult[];
  /** Whether the outcome came from the cache (memory or file) rather than a tuning run. */
  readonly fromCache: boolean;
  /**
   * Whether the outcome is in the persistent cache (file or IndexedDB), so the next run finds it
   * without tuning; `false` when results stay in memory (no permission, `persistent: false`).
   */
  readonly persisted: boolean;
  /** The error of each failed candidate (from a fresh run only). */
  readonly errors: ReadonlyMap<string, unknown>;
}

/**
 * Counters of a tuner.
 *
 * @example
 * ```ts
 * import type { TunerStats } from "@gpucompute/runtime/tune";
 * const benchmarked = (s: TunerStats) => s.runs > 0;
 * ```
 */
export interface TunerStats {
  /** Keys tuned (benchmarked or chosen without benchmark). */
  readonly tunings: number;
  /** Candidate runs made while tuning (warm-ups, samples, reference runs). */
  readonly runs: number;
  /** Calls served from the cache. */
  readonly cacheHits: number;
}

/**
 * Options of `Tuner`.
 *
 * @example
 * ```ts
 * import type { TunerOptions } from "@gpucompute/runtime/tune";
 * const options: TunerOptions = { name: "app", background: true, checks: true };
 * ```
 */
export interface TunerOptions {
  /**
   * The tuner's name: the persistent cache file's name (its IndexedDB key's last part).
   * @default {"default"}
   */
  name?: string;
  /**
   * Whether results persist: to a JSON file on Deno, to IndexedDB in browsers (they are always
   * cached in memory).
   * @default {true}
   */
  persistent?: boolean;
  /**
   * The cache directory on Deno; the `GPUCOMPUTE_CACHE_DIR` environment variable overrides it.
   * @default {the per-user cache directory + "/gpucompute"}
   */
  cacheDir?: string;
  /**
   * Whether `execute` on an untuned key runs the set's fallback at once while the key is tuned
   * in the background. The caller may dispose its inputs once `execute` returns: a set without
   * an `inputs` option is benchmarked on clones of the handles among them (same memory, freed
   * when the run ends).
   * @default {false}
   */
  background?: boolean;
  /**
   * Compare every candidate's output with the reference candidate's; one that differs is
   * rejected with a `TuneMismatchError` and never picked. A `reference` the set names that fails
   * leaves every other candidate unchecked: none is picked. The default reference (the first
   * candidate that may run) that fails is not run again (its error is its result), and the
   * output most other candidates agree on becomes the reference; with no majority (two that
   * disagree, a tie) none is picked, and a lone other candidate that runs is picked.
   * @default {false}
   */
  checks?: boolean;
  /**
   * The stream to benchmark on. Profiling counts only the profiled stream's work, so a tuner on
   * a stream of its own (e.g. in `background` mode) is not blurred by the caller's work.
   * @default {the current stream}
   */
  stream?: StreamId;
  /** How candidates are sampled. */
  sampling?: SamplingOptions;
  /**
   * Accept the first candidate whose median is within the set's `work(key) / throughput`
   * milliseconds (`throughput`: work units per millisecond the device can reach; 0 when unknown
   * turns the short-circuit off).
   */
  shortCircuit?: { throughput: number };
  /**
   * Called after every candidate run. An error it throws aborts the tuning run at once: the
   * call (`tune`, `execute`) rejects with that error, no candidate is blamed or run after it,
   * nothing is cached, and a later call tunes the key again.
   */
  onProgress?: (progress: TuneProgress) => void;
  /**
   * Draw a progress bar on stderr for tuning runs longer than a second.
   * @default {whether stderr is a terminal}
   */
  progressBar?: boolean;
}
