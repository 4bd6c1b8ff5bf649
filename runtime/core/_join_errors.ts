/**
 * Errors that arrive together (two GC waits that time out, two backend calls of one flush that
 * fail) become one {@linkcode ComputeError}: the first one's code (`UNKNOWN` when it has none),
 * every message, and a `cause` that lists them all (an `AggregateError` whose `errors` are the
 * errors, in the order they arrived). A single error is kept as it is.
 *
 * @module
 */

import { ComputeError } from "./errors/compute_error.ts";

const joined = new WeakSet<ComputeError>();

/** The errors `error` joins (see {@linkcode joinErrors}), or `[error]`. */
export function errorList(error: unknown): unknown[] {
  if (error instanceof ComputeError && joined.has(error)) {
    return [...(error.cause as AggregateError).errors];
  }
  return [error];
}

/**
 * One error for `errors` (nested joins flattened): `undefined` for none, the error itself for
 * one, else a `ComputeError` saying `what` (e.g. "2 GC waits failed") with every message.
 */
export function joinErrors(errors: readonly unknown[], what: string): unknown {
  const all = errors.flatMap(errorList);
  if (all.length <= 1) return all[0];
  const code = all.find((e) => e instanceof ComputeError)?.code ?? "UNKNOWN";
  const messages = all.map((e) => e instanceof Error ? e.message : String(e)).join("; ");
  const error = new ComputeError(code, `${what}: ${messages}`, {
    cause: new AggregateError(all, what),
  });
  joined.add(error);
  return error;
}
