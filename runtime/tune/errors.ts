/**
 * Errors of the autotuner.
 *
 * @module
 */

import { ComputeError } from "../core/errors.ts";

/**
 * Why one candidate could not take part in a tuning run.
 *
 * @example
 * ```ts
 * import type { CandidateFailure } from "@gpucompute/runtime/tune";
 * const failure: CandidateFailure = { name: "vec4", reason: "CompilationError: ..." };
 * ```
 */
export interface CandidateFailure {
  /** The candidate's name. */
  readonly name: string;
  /** What went wrong, in one line. */
  readonly reason: string;
}

/**
 * Every candidate of a tuning run failed (threw, failed to compile or failed its check).
 *
 * @example
 * ```ts
 * import { TuneFailedError } from "@gpucompute/runtime/tune";
 * const error = new TuneFailedError("matmul", "m=512", [{ name: "naive", reason: "boom" }]);
 * console.log(error.message); // Cannot tune matmul for m=512: all 1 candidates failed (naive: boom)
 * ```
 */
export class TuneFailedError extends ComputeError {
  /** Always `"TUNE_FAILED"`. */
  declare readonly code: "TUNE_FAILED";
  /** Each candidate and its reason. */
  readonly failures: readonly CandidateFailure[];

  /** Creates the error from the set, the key and every candidate's reason. */
  constructor(
    set: string,
    key: string,
    failures: readonly CandidateFailure[],
    options?: ErrorOptions,
  ) {
    const reasons = failures.map((f) => `${f.name}: ${f.reason}`).join("; ");
    super(
      "TUNE_FAILED",
      `Cannot tune ${set} for ${key}: all ${failures.length} candidates failed (${reasons})`,
      options,
    );
    this.name = "TuneFailedError";
    this.failures = failures;
  }
}

/**
 * A candidate's output differs from the reference candidate's beyond the tolerance (only with
 * the tuner's `checks` on). The candidate is never picked.
 *
 * @example
 * ```ts
 * import { TuneMismatchError } from "@gpucompute/runtime/tune";
 * const error = new TuneMismatchError("fast", "naive", { index: 3, actual: 1, expected: 2 });
 * console.log(error.candidate, error.message);
 * ```
 */
export class TuneMismatchError extends ComputeError {
  /** Always `"TUNE_MISMATCH"`. */
  declare readonly code: "TUNE_MISMATCH";
  /** The candidate whose output is wrong. */
  readonly candidate: string;
  /** The candidate it was compared with. */
  readonly reference: string;

  /** Creates the error from both names and the first differing element (or a length mismatch). */
  constructor(
    candidate: string,
    reference: string,
    first: { index: number; actual: number; expected: number } | {
      length: number;
      expected: number;
    },
    options?: ErrorOptions,
  ) {
    const detail = "index" in first
      ? `element ${first.index} is ${first.actual}, expected ${first.expected}`
      : `${first.length} elements, expected ${first.expected}`;
    super(
      "TUNE_MISMATCH",
      `Candidate '${candidate}' disagrees with reference '${reference}': ${detail}`,
      options,
    );
    this.name = "TuneMismatchError";
    this.candidate = candidate;
    this.reference = reference;
  }
}
