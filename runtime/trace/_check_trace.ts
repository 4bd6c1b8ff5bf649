/**
 * Argument checks of the trace writers: a `TypeError` naming the argument, not a property read of
 * `undefined` deep inside.
 *
 * @module
 */

import { describe } from "../core/_argument_checks.ts";
import type { Trace } from "../core/trace.ts";

/** Throws a `TypeError` unless `trace` looks like a {@linkcode Trace} (`TraceRecorder.stop`). */
export function checkTrace(trace: unknown, call: string): asserts trace is Trace {
  const t = trace as Partial<Trace> | null;
  if (
    typeof t !== "object" || t === null || !Array.isArray(t.events) ||
    typeof t.start !== "number" || typeof t.end !== "number"
  ) {
    throw new TypeError(
      `${call}: trace must be a Trace (from TraceRecorder.stop()), got ${describe(trace)}`,
    );
  }
}

/** Throws a `TypeError` unless `options` is an object (or `undefined`). */
export function checkOptionsObject(options: unknown, call: string): void {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError(`${call}: options must be an object, got ${describe(options)}`);
  }
}
