/**
 * One tuning run: the plan's groups in order, each sampled by `sampleGroup`, with output checks
 * against the reference candidate, the short-circuit, progress, and the top three logged.
 */

import { DeviceLostError } from "../core/errors.ts";
import { runtimeLogger } from "../core/logging.ts";
import { Handle } from "../core/handles/handle.ts";
import { arrayTypeOf, type TypedArray } from "../core/dtype.ts";
import { type StreamId, withStream } from "../core/stream_id.ts";
import type { CachedResult, CacheEntry } from "./cache/cache.ts";
import { TuneFailedError } from "./errors.ts";
import { compare, describe, findReference, type Output } from "./_reference.ts";
import { DestroyedError } from "../core/errors/state_errors.ts";
import { OutOfMemoryError } from "../core/errors/request_errors.ts";
import type { TuneKey } from "./key.ts";
import {
  type Contender,
  fastestOf,
  sampleGroup,
  type SampleResult,
  type SamplingOptions,
} from "./sampling.ts";
import type { Tunable, TunableSet } from "./tunable_set.ts";
import type { TuneClient, TuneProgress } from "./tuner_types.ts";

const log = runtimeLogger("tune");
/** Most runs of a candidate in one timed sample (see `SamplingOptions.minSampleMs`). */
const MAX_REPS = 64;

/** What a tuning run needs from its tuner. */
export interface TuneRunContext {
  readonly client: TuneClient;
  readonly sampling: SamplingOptions;
  readonly checks: boolean;
  readonly throughput: number | undefined;
  /** The stream to benchmark on; `undefined`: the current stream. */
  readonly stream: StreamId | undefined;
  /** Called after every candidate run (warm-up or sample). */
  readonly progress: (progress: TuneProgress) => void;
}

/** The entry of a finished run, with the failures as error objects (not cached). */
export interface TuneRunResult {
  readonly entry: CacheEntry;
  readonly errors: ReadonlyMap<string, unknown>;
  /** Candidate runs made (warm-ups, samples, the reference run). */
  readonly runs: number;
}

/** Tunes one key. Throws {@linkcode TuneFailedError} when every planned candidate failed. */
export async function tuneKey<K extends TuneKey, I, O>(
  set: TunableSet<K, I, O>,
  key: K,
  keyText: string,
  callerInputs: I,
  context: TuneRunContext,
): Promise<TuneRunResult> {
  const plan = set.plan(key);
  const planned = plan.flat();
  if (planned.length === 0) {
    const failures = set.names.map((name) => ({ name, reason: "negative priority for this key" }));
    throw new TuneFailedError(set.name, keyText, failures);
  }
  if (set.candidates.length === 1 || planned.length === 1) {
    // Nothing to choose between: no benchmark.
    const entry = { checksum: set.checksum, fastest: planned[0].name, results: [] };
    return { entry, errors: new Map(), runs: 0 };
  }
  const { options } = set;
  const inputs = options.inputs === undefined
    ? callerInputs
    : await onStream(context.stream, () => options.inputs!(key, callerInputs));
  const started = performance.now();
  const stream = context.stream === undefined ? {} : { stream: context.stream };
  const maxSamples = context.sampling.maxSamples ?? 10;
  let total = planned.length * (1 + maxSamples) + (context.checks ? 1 : 0);
  let steps = 0;
  let runs = 0;
  /**
   * Why the run stops at once: the progress callback threw (the caller's abort), or the client
   * was destroyed. Thrown as is, never blamed on a candidate; no candidate runs after it.
   */
  let stop: { error: unknown } | undefined;
  /** A step (warm-up, sample or reference run) of `count` runs of `candidate` ended. */
  const ran = (candidate: string, count: number) => {
    steps++;
    runs += count;
    try {
      context.progress({
        set: set.name,
        key: keyText,
        candidate,
        done: steps,
        total,
        runs: count,
        elapsedMs: performance.now() - started,
      });
    } catch (error) {
      stop ??= { error };
      throw error;
    }
  };
  /** Throws the reason to stop, if any. */
  const halt = (): void => {
    if (stop !== undefined) throw stop.error;
  };
  /** Runs a step of a candidate unless the run stops; a destroyed client stops it. */
  const step = async <T>(fn: () => Promise<T>): Promise<T> => {
    halt();
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      if (error instanceof DestroyedError) stop ??= { error };
      throw stop !== undefined ? stop.error : error;
    }
    halt();
    return result;
  };
  const read = async (output: O): Promise<ArrayLike<number | bigint>> => {
    if (options.read !== undefined) return await options.read(output);
    if (output instanceof Handle) {
      // A typed handle reads as its own type (reading a u32 handle as f32 is a TypeError, which
      // used to turn the checks off); untyped bytes as f32.
      const type = output.dtype === "bytes" ? Float32Array : arrayTypeOf(output.dtype);
      return await context.client.read<TypedArray>(output, type, stream);
    }
    if (isNumbers(output)) return output;
    throw new TypeError(`Tunable set '${set.name}' needs a read option for output checks`);
  };
  const dispose = (output: O) => (options.disposeOutput ?? disposeIfDisposable)(output);
  const errors = new Map<string, unknown>();
  const results = new Map<string, CachedResult>();
  try {
    let reference: Output | undefined;
    /** Why the reference gave no output to check against (checks on): no candidate is checked. */
    let unchecked: Error | undefined;
    /** Candidates failed before their warm-up (checks on): the failed default reference... */
    let decided: ReadonlyMap<string, unknown> = new Map();
    // Never one that must not run for the key (its output there is no reference).
    const mayRun = (c?: Tunable<K, I, O>) => c !== undefined && set.priority(c, key) >= 0;
    const named = options.reference === undefined ? undefined : set.candidate(options.reference);
    let referenceName = (mayRun(named) ? named : set.candidates.find((c) => mayRun(c)))!.name;
    if (context.checks) {
      const runnable = set.candidates.filter((c) => mayRun(c));
      const runOnce = async (candidate: Tunable<K, I, O>): Promise<Output> => {
        try {
          const output = await onStream(context.stream, () => candidate.run(inputs));
          try {
            return copyOf(await read(output));
          } finally {
            dispose(output);
          }
        } finally {
          if (candidate.name !== referenceName) total++; // runs beyond the one planned
          ran(candidate.name, 1);
        }
      };
      const found = await findReference(
        set,
        runnable,
        mayRun(named) ? named!.name : undefined,
        runOnce,
        () => stop !== undefined,
      );
      ({ name: referenceName, output: reference, unchecked, failed: decided } = found);
    }
    const minSampleMs = context.sampling.minSampleMs ?? 5;
    if (!(minSampleMs >= 0)) {
      throw new RangeError(`minSampleMs must be a number >= 0, got ${minSampleMs}`);
    }
    const timed = async (candidate: Tunable<K, I, O>, reps: number): Promise<number> => {
      const { duration } = await context.client.profile(async () => {
        // Each run enters the stream itself: where `withStream` scopes only synchronous code
        // (browsers), runs after the first await would otherwise leave the profiled stream.
        for (let r = 0; r < reps; r++) {
          dispose(await onStream(context.stream, () => candidate.run(inputs)));
        }
      }, stream);
      // A time that is no duration (a profiler's NaN, Infinity, a negative) would win or lose at
      // random, and JSON would store it as null (a cache file that no longer parses): the
      // candidate fails instead, and is never picked.
      const ms = duration.milliseconds;
      if (!(Number.isFinite(ms) && ms >= 0)) {
        throw new RangeError(`The profiler timed ${candidate.name} at ${ms} ms: not a duration`);
      }
      return ms / reps;
    };
    const contender = (candidate: Tunable<K, I, O>): Contender => {
      let reps = 1;
      return {
        name: candidate.name,
        warmup: () => step(warmup),
        sample: () => step(sample),
      };
      async function warmup() {
        let count = 1;
        try {
          if (decided.has(candidate.name)) {
            count = 0; // not run again
            throw decided.get(candidate.name);
          }
          if (unchecked !== undefined && candidate.name !== referenceName) {
            count = 0; // not run
            throw unchecked;
          }
          const output = await onStream(context.stream, () => candidate.run(inputs));
          try {
            if (reference === undefined || candidate.name === referenceName) {
              await context.client.sync(stream); // surfaces deferred errors (compilation) here
            } else {
              compare(candidate.name, referenceName, await read(output), reference, options);
            }
          } finally {
            dispose(output);
          }
          // Second warm-up run, timed: how many runs one sample takes to last minSampleMs.
          if (minSampleMs > 0) {
            count++;
            const once = await timed(candidate, 1);
            reps = Math.min(MAX_REPS, Math.max(1, Math.ceil(minSampleMs / Math.max(once, 1e-3))));
          }
        } finally {
          ran(candidate.name, count);
        }
      }
      async function sample() {
        try {
          return await timed(candidate, reps);
        } finally {
          ran(candidate.name, reps);
        }
      }
    };
    // A throughput of 0 (unknown) turns the short-circuit off, as in CubeCL: `work / 0` would
    // accept the first candidate whatever its time.
    const throughput = context.throughput ?? 0;
    const accept = options.work !== undefined && throughput > 0
      ? (ms: number) => ms <= options.work!(key) / throughput
      : undefined;
    let fastest: string | undefined;
    for (const group of plan) {
      if (fastest !== undefined) {
        for (const c of group) results.set(c.name, { name: c.name, status: "skipped" });
        continue;
      }
      const outcome = await sampleGroup(group.map(contender), { ...context.sampling, accept });
      halt();
      for (const r of outcome.results) {
        results.set(r.name, toCached(r));
        if (r.status === "failed") errors.set(r.name, r.error);
      }
      fastest = outcome.accepted ??
        fastestOf(outcome.results, context.sampling.score ?? "median");
    }
    const ordered = set.names.flatMap((name) => results.get(name) ?? []);
    if (fastest === undefined) {
      // The client was destroyed or its device lost while tuning: that is the caller's error
      // (the same as a launch gets), not that the candidates failed.
      const gone = [...errors.values()].find((e) =>
        e instanceof DestroyedError || e instanceof DeviceLostError
      );
      if (gone !== undefined) throw gone;
      const failures = ordered.map((r) => ({ name: r.name, reason: r.error ?? r.status }));
      // A candidate out of memory may run once memory is freed: the cause tells the tuner not to
      // remember this failure.
      const oom = [...errors.values()].find((error) => error instanceof OutOfMemoryError);
      throw new TuneFailedError(set.name, keyText, failures, oom && { cause: oom });
    }
    logTop(set.name, keyText, fastest, ordered);
    const checked = context.checks ? { checked: true } : {};
    return {
      entry: { checksum: set.checksum, fastest, results: ordered, ...checked },
      errors,
      runs,
    };
  } finally {
    if (options.inputs !== undefined) (options.disposeInputs ?? disposeProperties)(inputs);
  }
}

/** Runs `fn` with `stream` as the current stream (or as is without one). */
function onStream<T>(stream: StreamId | undefined, fn: () => T): T {
  return stream === undefined ? fn() : withStream(stream, fn);
}

function toCached(r: SampleResult): CachedResult {
  return {
    name: r.name,
    status: r.status,
    samples: r.samples.length,
    ...(r.median !== undefined ? { medianMs: r.median } : {}),
    ...(r.status === "failed" ? { error: describe(r.error) } : {}),
  };
}

function logTop(set: string, key: string, fastest: string, results: readonly CachedResult[]) {
  const top = results
    .filter((r) => r.status === "ok" && r.medianMs !== undefined)
    .sort((a, b) => a.medianMs! - b.medianMs!)
    .slice(0, 3)
    .map((r) => `${r.name} ${r.medianMs!.toFixed(3)} ms`)
    .join(", ");
  log.info("Fastest for {set} {key}: {fastest}. Top 3: {top}", { set, key, fastest, top });
}

/** A copy of an output read (its type kept: integers compare exactly). */
function copyOf(values: Output): Output {
  return ArrayBuffer.isView(values)
    ? (values as unknown as TypedArray).slice()
    : Array.from(values);
}

function isNumbers(value: unknown): value is ArrayLike<number> {
  return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
}

function disposeIfDisposable(value: unknown): void {
  if (typeof (value as Partial<Disposable>)?.[Symbol.dispose] === "function") {
    (value as Disposable)[Symbol.dispose]();
  }
}

function disposeProperties(inputs: unknown): void {
  if (typeof inputs !== "object" || inputs === null) return;
  for (const value of Object.values(inputs)) disposeIfDisposable(value);
}
