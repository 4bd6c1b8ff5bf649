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
  const { maxSamples = 10, minSamples = 3, minSampleMs = 5 } = options;
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
