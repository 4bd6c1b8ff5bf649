/**
 * The output a tuning run with `checks` on compares every candidate's with, and the comparison.
 *
 * A reference the set names (`reference`) is the truth: when it fails, no output can be checked
 * and every other candidate fails unchecked (none is picked). Without one, the reference is the
 * first candidate that may run for the key; when it fails (its error is its result, it is not run
 * again), the other candidates run once each and the output most of them agree on becomes the
 * reference: those that disagree fail with `TuneMismatchError`. With no such majority (two that
 * disagree, or a tie) no output is trusted and none is picked: a failing reference never lets an
 * unchecked or disputed output through. A single other candidate that runs has nothing to
 * disagree with and is checked against itself, as a set of one candidate is never checked.
 *
 * @module
 */

import { runtimeLogger } from "../core/logging.ts";
import { DestroyedError } from "../core/errors/state_errors.ts";
import { TuneMismatchError } from "./errors.ts";
import type { TuneKey } from "./key.ts";
import type { Tunable, TunableSet } from "./tunable_set.ts";

const log = runtimeLogger("tune");

/** Numbers an output reads as. */
export type Output = ArrayLike<number | bigint>;

/** What the checks compare with: {@linkcode findReference}'s answer. */
export interface Reference {
  /** The candidate whose output is the reference (the name a `TuneMismatchError` gives). */
  readonly name: string;
  /** The output every other candidate's is compared with; none where `unchecked` says why. */
  readonly output?: Output;
  /** Why no output can be checked: every candidate but `name` fails with it, unrun. */
  readonly unchecked?: Error;
  /** Candidates failed already, with their errors: not run again, never picked. */
  readonly failed: ReadonlyMap<string, unknown>;
}

/**
 * Runs the reference (see the module's documentation). `runOnce` runs a candidate once and reads
 * its output (the caller counts the run); a `DestroyedError`, or an error of the caller's
 * progress (`isStop`), ends the search at once.
 */
export async function findReference<K extends TuneKey, I, O>(
  set: TunableSet<K, I, O>,
  runnable: readonly Tunable<K, I, O>[],
  named: string | undefined,
  runOnce: (candidate: Tunable<K, I, O>) => Promise<Output>,
  isStop: (error: unknown) => boolean,
): Promise<Reference> {
  const failed = new Map<string, unknown>();
  const attempt = async (candidate: Tunable<K, I, O>): Promise<Output | undefined> => {
    try {
      return await runOnce(candidate);
    } catch (error) {
      if (error instanceof DestroyedError || isStop(error)) throw error;
      failed.set(candidate.name, error);
      return undefined;
    }
  };
  const first = runnable.find((c) => c.name === named) ?? runnable[0];
  const output = await attempt(first);
  if (output !== undefined) return { name: first.name, output, failed };
  const error = failed.get(first.name);
  if (named !== undefined && first.name === named) {
    failed.clear(); // run again in its warm-up: its own result says why
    log.warn("Reference {name} failed, outputs are not checked: {error}", {
      name: first.name,
      error: String(error),
    });
    return {
      name: first.name,
      unchecked: new Error(`Not checked: the reference ${first.name} failed: ${describe(error)}`, {
        cause: error,
      }),
      failed,
    };
  }
  // The default reference failed: the other candidates decide by majority.
  const outputs: { name: string; output: Output }[] = [];
  for (const candidate of runnable) {
    if (candidate === first) continue;
    const output = await attempt(candidate);
    if (output !== undefined) outputs.push({ name: candidate.name, output });
  }
  const agrees = (a: Output, b: Output) => {
    try {
      compare("", "", a, b, set.options);
      return true;
    } catch {
      return false;
    }
  };
  const counts = outputs.map((o) => outputs.filter((p) => agrees(p.output, o.output)).length);
  const best = counts.indexOf(Math.max(...counts));
  const winner = outputs[best];
  const tied = outputs.some((o, i) =>
    counts[i] === counts[best] && !agrees(o.output, winner.output)
  );
  if (winner !== undefined && !tied && (counts[best] >= 2 || outputs.length === 1)) {
    log.warn(
      "Reference {name} failed ({error}): {agreed} of the other {count} candidates agree with {winner}, the reference for this key",
      {
        name: first.name,
        error: String(error),
        agreed: counts[best],
        count: runnable.length - 1,
        winner: winner.name,
      },
    );
    for (const { name, output } of outputs) {
      try {
        compare(name, winner.name, output, winner.output, set.options);
      } catch (mismatch) {
        failed.set(name, mismatch);
      }
    }
    return { name: winner.name, output: winner.output, failed };
  }
  const why = outputs.length === 0
    ? "no other candidate runs"
    : `the other candidates disagree (${outputs.map((o) => o.name).join(", ")})`;
  log.warn("Reference {name} failed ({error}) and {why}: no output is trusted", {
    name: first.name,
    error: String(error),
    why,
  });
  for (const { name } of outputs) {
    failed.set(
      name,
      new Error(`Not checked: the reference ${first.name} failed (${describe(error)}) and ${why}`, {
        cause: error,
      }),
    );
  }
  return { name: first.name, failed };
}

/**
 * Throws `TuneMismatchError` when `actual` differs from `expected` beyond the set's tolerance
 * (integers compare exactly unless a tolerance is given; NaN matches NaN).
 */
export function compare<K extends TuneKey, I, O>(
  candidate: string,
  referenceName: string,
  actual: Output,
  expected: Output,
  options: TunableSet<K, I, O>["options"],
): void {
  if (actual.length !== expected.length) {
    throw new TuneMismatchError(candidate, referenceName, {
      length: actual.length,
      expected: expected.length,
    });
  }
  // Integers (a typed integer handle's elements) compare exactly unless a tolerance is given.
  const exact = options.tolerance === undefined && isIntegerArray(actual);
  const { absolute, relative } = options.tolerance ?? { absolute: 1e-5, relative: 1e-3 };
  for (let i = 0; i < actual.length; i++) {
    const [a, b] = [actual[i], expected[i]];
    if (typeof a === "bigint" || typeof b === "bigint" || exact) {
      if (typeof a === typeof b ? a === b : Number(a) === Number(b)) continue;
      throw new TuneMismatchError(candidate, referenceName, {
        index: i,
        actual: Number(a),
        expected: Number(b),
      });
    }
    const close = Math.abs(a - b) <= absolute + relative * Math.abs(b);
    if (!close && !(Number.isNaN(a) && Number.isNaN(b))) {
      throw new TuneMismatchError(candidate, referenceName, { index: i, actual: a, expected: b });
    }
  }
}

/** An error as `Name: message`, anything else as its string. */
export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function isIntegerArray(values: Output): boolean {
  return values instanceof Int8Array || values instanceof Uint8Array ||
    values instanceof Int16Array || values instanceof Uint16Array ||
    values instanceof Int32Array || values instanceof Uint32Array ||
    values instanceof BigInt64Array || values instanceof BigUint64Array;
}
