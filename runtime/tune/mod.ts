/**
 * The autotuner: pick the fastest of several kernels for each shape on the device at hand, by
 * timing them with the client's profiler, and remember the pick in a persistent cache.
 *
 * @example Tune a matmul and run the winner
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import { matmulSet, Tuner } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * const tuner = new Tuner(client);
 * const matmul = matmulSet(client);
 * const [m, n, k] = [256, 256, 256];
 * using a = client.createWithData(new Float32Array(m * k).fill(1));
 * using b = client.createWithData(new Float32Array(k * n).fill(1));
 * using c = await tuner.execute(matmul, { a, b, m, n, k });
 * console.log(tuner.fastest(matmul, { a, b, m, n, k }));
 * ```
 *
 * @module
 */

export { anchor, type AnchorOptions, keyString, type TuneKey } from "./key.ts";
export { type Tunable, TunableSet, type TunableSetOptions } from "./tunable_set.ts";
export { Tuner } from "./tuner.ts";
export type {
  TuneClient,
  TuneOutcome,
  TuneProgress,
  TunerOptions,
  TunerStats,
} from "./tuner_types.ts";
export {
  type Contender,
  fastestOf,
  sampleGroup,
  type SampleGroupOptions,
  type SampleResult,
  type SamplingOptions,
} from "./sampling.ts";
export {
  type CachedResult,
  type CacheEntry,
  TuneCache,
  type TuneCacheOptions,
} from "./cache/cache.ts";
export { type CandidateFailure, TuneFailedError, TuneMismatchError } from "./errors.ts";
export {
  MATMUL_VARIANTS,
  type MatmulInputs,
  matmulKernel,
  type MatmulKey,
  matmulSet,
} from "./sets/matmul.ts";
export type { MatmulVariant } from "./sets/_matmul_wgsl.ts";
export {
  REDUCE_VARIANTS,
  type ReduceInputs,
  type ReduceKey,
  reduceSet,
  type ReduceVariant,
} from "./sets/reduce.ts";
