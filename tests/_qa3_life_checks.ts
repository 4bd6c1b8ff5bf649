/**
 * The checks of the random lifecycle programs (`_qa3_life_programs.ts`): what a call may end with,
 * and the check of its outcome within a bound.
 */
import assert from "node:assert/strict";
import { ComputeError } from "../mod.ts";

/** What a call may end with. */
export type Expect =
  | { kind: "value"; model?: Uint32Array } // resolves (to `model` for a read)
  | { kind: "error"; code: string } // fails with this code (thrown or rejected)
  | { kind: "valueOr"; code: string; model?: Uint32Array } // either (pending at a destroy)
  | { kind: "abort"; reason: unknown }; // rejects with the abort reason

/** Bounded wait of every promise, in milliseconds. */
export const BOUND = 5000;

/** Checks a pending call's outcome: settled within {@linkcode BOUND}, as `entry.expect` says. */
export async function settleOf(
  entry: { name: string; promise: Promise<unknown>; expect: Expect },
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = Symbol("late");
  const outcome = await Promise.race([
    entry.promise.then(
      (value) => ({ value }),
      (error) => ({ error: error ?? new Error("rejected with nothing") }),
    ),
    new Promise<typeof late>((resolve) => timer = setTimeout(() => resolve(late), BOUND)),
  ]);
  clearTimeout(timer);
  assert.ok(outcome !== late, `${entry.name}: still pending after ${BOUND} ms`);
  if ("error" in outcome) return checkError(entry.name, entry.expect, outcome.error);
  const expect = entry.expect;
  assert.ok(
    expect.kind === "value" || expect.kind === "valueOr",
    `${entry.name}: resolved, expected ${JSON.stringify(expect)}`,
  );
  if (expect.model !== undefined) {
    assert.deepEqual(
      [...(outcome.value as Uint32Array)],
      [...expect.model],
      `${entry.name}: wrong data`,
    );
  }
}

/** Checks an error against what the call may end with. */
export function checkError(name: string, expect: Expect, error: unknown): void {
  if (expect.kind === "abort") {
    assert.equal(error, expect.reason, `${name}: rejected with ${error}, not the abort reason`);
    return;
  }
  assert.ok(
    error instanceof ComputeError,
    `${name}: untyped error ${(error as Error)?.stack ?? error}`,
  );
  assert.ok(
    expect.kind === "error" || expect.kind === "valueOr",
    `${name}: failed with ${error.code}: ${error.message}`,
  );
  assert.equal(error.code, expect.code, `${name}: ${error.message}`);
}
