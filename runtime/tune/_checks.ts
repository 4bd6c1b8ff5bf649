/**
 * Argument checks of the tuner. `new Tuner(client, options)` refuses every bad option at once,
 * naming it, rather than found by every tuning run (a bad `stream` used to fail each candidate,
 * and the key with it, for the tuner's life) or silently ignored (a misspelt option, a string
 * where a boolean goes: `persistent: "no"` persisted).
 *
 * @module
 */

import { assertKnownKeys, describe } from "../core/_argument_checks.ts";
import { resolveStreamId } from "../core/stream_id.ts";
import type { SamplingOptions } from "./sampling.ts";
import type { TuneClient, TunerOptions } from "./tuner_types.ts";

const TUNER_KEYS: readonly (keyof TunerOptions)[] = [
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

const SAMPLING_KEYS: readonly string[] = [
  "adaptive",
  "maxSamples",
  "score",
  "minSampleMs",
  "minSamples",
  "tolerance",
  "eliminate",
  "margin",
  "minSurvivors",
  "minSamplesToEliminate",
];

/** Throws `TypeError` / `RangeError` naming the first bad argument of `new Tuner`. */
export function checkTunerOptions(client: unknown, options: unknown): void {
  const c = client as Partial<TuneClient> | null;
  if (
    typeof c !== "object" || c === null || typeof c.profile !== "function" ||
    typeof c.server?.properties !== "object"
  ) {
    throw new TypeError(`Tuner: client must be a ComputeClient (a TuneClient), got ${describe(c)}`);
  }
  assertKnownKeys(options, TUNER_KEYS, "Tuner");
  const o = options as TunerOptions;
  for (const option of ["persistent", "background", "checks", "progressBar"] as const) {
    const value = o[option];
    if (value !== undefined && typeof value !== "boolean") {
      throw new TypeError(`Tuner: ${option} must be a boolean, got ${describe(value)}`);
    }
  }
  if (o.stream !== undefined) resolveStreamId(o.stream);
  if (o.sampling !== undefined) assertKnownKeys(o.sampling, SAMPLING_KEYS, "Tuner", "sampling");
  checkSampling(o.sampling ?? {});
}

/**
 * `RangeError` naming the option for sampling options that could never end or mean nothing:
 * sample counts that are not integers with 1 <= minSamples <= maxSamples (`maxSamples: Infinity`
 * kept contested candidates sampling forever), a `minSampleMs`, `tolerance` or `margin` that is
 * not a finite number >= 0, an `eliminate` below 1, a `score` that is neither `median` nor
 * `min`, survivor counts that are not integers; `TypeError` for an `adaptive` that is not a
 * boolean (by `sampleGroup` and `new Tuner`).
 */
export function checkSampling(options: SamplingOptions): void {
  const { maxSamples = 10, minSampleMs = 5 } = options;
  const { minSamples = Math.min(3, maxSamples) } = options; // maxSamples 2 alone is fine
  if (
    !Number.isInteger(maxSamples) || !Number.isInteger(minSamples) || minSamples < 1 ||
    minSamples > maxSamples
  ) {
    throw new RangeError(
      `Sampling needs integers 1 <= minSamples <= maxSamples, got ${minSamples}, ${maxSamples}`,
    );
  }
  if (!(Number.isFinite(minSampleMs) && minSampleMs >= 0)) {
    throw new RangeError(`minSampleMs must be a finite number >= 0, got ${minSampleMs}`);
  }
  const { adaptive, score, tolerance = 0, margin = 0, eliminate = 1.5 } = options;
  const { minSurvivors = 2, minSamplesToEliminate = 2 } = options;
  if (adaptive !== undefined && typeof adaptive !== "boolean") {
    throw new TypeError(`adaptive must be a boolean, got ${typeof adaptive}`);
  }
  if (score !== undefined && score !== "median" && score !== "min") {
    throw new RangeError(`score must be "median" or "min", got ${JSON.stringify(score)}`);
  }
  for (const [name, value] of [["tolerance", tolerance], ["margin", margin]] as const) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
    }
  }
  if (!(eliminate >= 1)) { // Infinity: never eliminate
    throw new RangeError(`eliminate must be a number >= 1 (Infinity: never), got ${eliminate}`);
  }
  for (
    const [name, value, min] of [
      ["minSurvivors", minSurvivors, 1],
      ["minSamplesToEliminate", minSamplesToEliminate, 0],
    ] as const
  ) {
    if (!Number.isInteger(value) || value < min) {
      throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
    }
  }
}

const SET_KEYS: readonly string[] = [
  "key",
  "candidates",
  "inputs",
  "disposeInputs",
  "disposeOutput",
  "read",
  "reference",
  "fallback",
  "tolerance",
  "work",
];

/**
 * `TypeError` naming the option for `new TunableSet(name, options)` options that are not what
 * they must be (an unknown option, a `key` or `run` that is not a function, a candidate without
 * a name, a priority that is neither a number nor a function), `RangeError` for a tolerance
 * that is not two finite numbers >= 0 (NaN failed every check). Names, duplicates and the
 * reference and fallback are checked by the constructor.
 */
export function checkSetOptions(set: string, options: unknown): void {
  assertKnownKeys(options, SET_KEYS, `TunableSet '${set}'`);
  const o = options as Partial<Record<string, unknown>>;
  if (typeof o.key !== "function") {
    throw new TypeError(`TunableSet '${set}': key must be a function, got ${describe(o.key)}`);
  }
  for (const option of ["inputs", "disposeInputs", "disposeOutput", "read", "work"]) {
    if (o[option] !== undefined && typeof o[option] !== "function") {
      throw new TypeError(
        `TunableSet '${set}': ${option} must be a function, got ${describe(o[option])}`,
      );
    }
  }
  if (!Array.isArray(o.candidates)) {
    throw new TypeError(
      `TunableSet '${set}': candidates must be an array, got ${describe(o.candidates)}`,
    );
  }
  o.candidates.forEach((candidate: unknown, i: number) => {
    const c = candidate as { name?: unknown; run?: unknown; priority?: unknown } | null;
    const at = `TunableSet '${set}': candidates[${i}]`;
    if (typeof c !== "object" || c === null) {
      throw new TypeError(`${at} must be an object, got ${describe(c)}`);
    }
    if (typeof c.name !== "string" || c.name === "") {
      throw new TypeError(`${at}.name must be a non-empty string, got ${describe(c.name)}`);
    }
    if (typeof c.run !== "function") {
      throw new TypeError(`${at}.run must be a function, got ${describe(c.run)}`);
    }
    const p = c.priority;
    if (p !== undefined && typeof p !== "number" && typeof p !== "function") {
      throw new TypeError(`${at}.priority must be a number or a function, got ${describe(p)}`);
    }
  });
  if (o.tolerance !== undefined) {
    const t = o.tolerance as { absolute?: unknown; relative?: unknown } | null;
    const ok = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;
    if (typeof t !== "object" || t === null || !ok(t.absolute) || !ok(t.relative)) {
      throw new RangeError(
        `TunableSet '${set}': tolerance must be { absolute, relative }, finite numbers >= 0`,
      );
    }
  }
}
