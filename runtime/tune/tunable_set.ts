/**
 * {@linkcode TunableSet}: the candidates of one operation, how to key its inputs, how to make
 * benchmark inputs, and how to read and free outputs.
 *
 * @module
 */

import { keyString, type TuneKey } from "./key.ts";
import { TuneFailedError } from "./errors.ts";
import { checkSetOptions } from "./_checks.ts";

/**
 * One candidate: a function that launches kernels on the inputs and returns the output.
 *
 * @example
 * ```ts
 * import type { Tunable } from "@gpucompute/runtime/tune";
 * const wide: Tunable<{ n: number }, number[], number> = {
 *   name: "wide",
 *   run: (xs) => xs.length,
 *   priority: (key) => (key.n >= 1024 ? 1 : -1), // never run on small inputs
 * };
 * ```
 */
export interface Tunable<K extends TuneKey, I, O> {
  /** Unique name within the set; the persistent cache stores the winner by name. */
  readonly name: string;
  /** Launches the work; may throw (the tuner records the candidate as failed). */
  readonly run: (inputs: I) => O | Promise<O>;
  /**
   * Priority for a key: candidates of equal priority form a group, groups run from the highest
   * priority down and the next group runs only if the previous one gave no decision. A negative
   * priority means the candidate never runs for that key (e.g. it does not support the shape).
   * @default {0}
   */
  readonly priority?: number | ((key: K) => number);
}

/**
 * Options of {@linkcode TunableSet}.
 *
 * @example
 * ```ts
 * import type { TunableSetOptions } from "@gpucompute/runtime/tune";
 * const options: TunableSetOptions<{ n: number }, number[], number[]> = {
 *   key: (xs) => ({ n: xs.length }),
 *   candidates: [{ name: "copy", run: (xs) => [...xs] }],
 *   tolerance: { absolute: 0, relative: 0 },
 * };
 * ```
 */
export interface TunableSetOptions<K extends TuneKey, I, O> {
  /** The key of some inputs; equal keys share one tuning result. */
  key: (inputs: I) => K;
  /** The candidates, in order. At least one. */
  candidates: readonly Tunable<K, I, O>[];
  /**
   * Inputs to benchmark with, from the key and the caller's inputs (e.g. random data of the
   * caller's shape: the first inputs of a key decide its winner). The tuner disposes them with
   * `disposeInputs` when done.
   * @default {the caller's inputs, unchanged}
   */
  inputs?: (key: K, inputs: I) => I | Promise<I>;
  /**
   * Frees benchmark inputs made by `inputs`.
   * @default {disposes every `Disposable` value among the inputs' own properties}
   */
  disposeInputs?: (inputs: I) => void;
  /**
   * Frees an output made while benchmarking.
   * @default {disposes the output if it is `Disposable`}
   */
  disposeOutput?: (output: O) => void;
  /**
   * Reads an output as numbers, for the tuner's `checks` (integers compare exactly, unless a
   * `tolerance` is given).
   * @default {`client.read(output)` for a handle (its own type; untyped bytes as f32), the value for an array}
   */
  read?: (output: O) => Promise<ArrayLike<number>> | ArrayLike<number>;
  /**
   * The candidate every other output is compared with when checks are on, for every key it may
   * run for (priority >= 0; for other keys, the default). Named, it is the truth: where it fails
   * no output is checked and none is picked.
   * @default {the first candidate that may run for the key; where it fails, the output most others agree on}
   */
  reference?: string;
  /**
   * The candidate run while a key is tuned in the background, for every key it may run for
   * (priority >= 0; for other keys, the default).
   * @default {the first candidate of the highest priority for the key}
   */
  fallback?: string;
  /**
   * Check tolerance: `|a - b| <= absolute + relative * |b|`.
   * @default {{ absolute: 1e-5, relative: 1e-3 }}
   */
  tolerance?: { absolute: number; relative: number };
  /**
   * Work of a key in the units of the tuner's `shortCircuit.throughput` (e.g. FLOPs), for the
   * short-circuit. Without it the set is never short-circuited.
   */
  work?: (key: K) => number;
}

/**
 * The candidates of one operation. The set's name and its candidates' names form its checksum:
 * cached results of a set whose candidates changed are ignored and tuned again.
 *
 * @example Two ways to sum numbers (on the host, for brevity)
 * ```ts
 * import { TunableSet } from "@gpucompute/runtime/tune";
 * const sum = new TunableSet("sum", {
 *   key: (xs: number[]) => ({ n: xs.length }),
 *   candidates: [
 *     { name: "loop", run: (xs) => [xs.reduce((a, b) => a + b, 0)] },
 *     { name: "pairs", run: (xs) => [xs.reduce((a, b) => a + b, 0)], priority: 1 },
 *   ],
 * });
 * console.log(sum.checksum.length, sum.names); // 16 [ "loop", "pairs" ]
 * ```
 */
export class TunableSet<K extends TuneKey, I, O> {
  /** The set's name (part of every cache entry's key). */
  readonly name: string;
  readonly #options: TunableSetOptions<K, I, O>;
  readonly #checksum: string;

  /**
   * Creates a set; throws `TypeError` for no candidates, duplicate names, and options that are
   * not what they must be (an unknown option, a `key` or candidate `run` that is not a function,
   * a candidate without a name, a priority that is neither a number nor a function), `RangeError`
   * for a tolerance that is not two finite numbers >= 0.
   */
  constructor(name: string, options: TunableSetOptions<K, I, O>) {
    if (typeof name !== "string" || name === "") throw new TypeError("A set needs a name");
    checkSetOptions(name, options);
    const names = options.candidates.map((c) => c.name);
    if (names.length === 0) throw new TypeError(`Tunable set '${name}' has no candidates`);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate !== undefined) {
      throw new TypeError(`Tunable set '${name}' has two candidates named '${duplicate}'`);
    }
    for (const option of ["reference", "fallback"] as const) {
      const value = options[option];
      if (value !== undefined && !names.includes(value)) {
        throw new TypeError(`${option} '${value}' is not a candidate of '${name}'`);
      }
    }
    this.name = name;
    this.#options = options;
    this.#checksum = fnv1a64([name, ...names].join("\u0000"));
  }

  /** The candidates, in order. */
  get candidates(): readonly Tunable<K, I, O>[] {
    return this.#options.candidates;
  }

  /** The candidates' names, in order. */
  get names(): string[] {
    return this.#options.candidates.map((c) => c.name);
  }

  /** 16 hex digits over the set's name and its candidates' names. */
  get checksum(): string {
    return this.#checksum;
  }

  /** The options the set was made with. */
  get options(): Readonly<TunableSetOptions<K, I, O>> {
    return this.#options;
  }

  /** The key of some inputs. */
  key(inputs: I): K {
    return this.#options.key(inputs);
  }

  /** The stable string of the key of some inputs. */
  keyString(inputs: I): string {
    return keyString(this.key(inputs));
  }

  /** A candidate's priority for a key. */
  priority(candidate: Tunable<K, I, O>, key: K): number {
    const p = candidate.priority ?? 0;
    return typeof p === "function" ? p(key) : p;
  }

  /**
   * The plan for a key: groups of candidates of equal priority, highest priority first, with
   * every candidate of negative priority left out.
   */
  plan(key: K): Tunable<K, I, O>[][] {
    const groups = new Map<number, Tunable<K, I, O>[]>();
    for (const c of this.candidates) {
      const p = this.priority(c, key);
      if (!(p >= 0)) continue; // negative (or NaN): never run for this key
      groups.set(p, [...groups.get(p) ?? [], c]);
    }
    return [...groups.entries()].sort((a, b) => b[0] - a[0]).map(([, group]) => group);
  }

  /** The candidate by name. */
  candidate(name: string): Tunable<K, I, O> | undefined {
    return this.#options.candidates.find((c) => c.name === name);
  }

  /**
   * The fallback candidate for a key (see {@linkcode TunableSetOptions.fallback}): never one of
   * negative priority for the key. `TuneFailedError` when no candidate may run for it.
   */
  fallback(key: K): Tunable<K, I, O> {
    const named = this.#options.fallback;
    const candidate = named === undefined ? undefined : this.candidate(named)!;
    if (candidate !== undefined && this.priority(candidate, key) >= 0) return candidate;
    const first = this.plan(key)[0]?.[0];
    if (first !== undefined) return first;
    const failures = this.names.map((name) => ({ name, reason: "negative priority for this key" }));
    throw new TuneFailedError(this.name, keyString(key), failures);
  }
}

/** FNV-1a over UTF-16 code units, 64 bits, as 16 hex digits: stable and synchronous. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
