/**
 * {@linkcode StreamErrors}: the per-stream record of errors that no call could throw when they
 * happened, and the one rule of who reports them.
 *
 * **The rule.** An error that surfaces after the call that caused it returned (a launch WebGPU
 * rejects at submit, a kernel whose validation arrives later, a GC wait on the stream's work that
 * fails, a call held by `waitFor` that cannot run) is recorded on the stream whose work caused
 * it, and thrown once by that stream's next call that waits for its work (`sync` or `read`; the
 * client's held calls: its next call), never by another stream's. Ids equal modulo `maxStreams`
 * share one stream, so they share one record. Several errors of one stream are thrown together:
 * the first alone when it is the only one, else one {@linkcode ComputeError} with the first's
 * code, every message, and a `cause` listing them all (an `AggregateError`). Errors that arrive
 * together elsewhere (a `drain` of several failed GC waits) are joined the same way.
 *
 * The servers and the client each own one record: WebGPU's encoder (launch validation), the event
 * multi-stream (failed GC waits), the client's held streams (failed waits).
 *
 * @module
 */

import { errorList, joinErrors } from "../core/_join_errors.ts";
import { assertPositiveInteger } from "../core/_argument_checks.ts";
import type { StreamId } from "../core/stream_id.ts";

/**
 * Options of {@linkcode StreamErrors}.
 *
 * @example
 * ```ts
 * import { StreamErrors, type StreamErrorsOptions } from "@gpucompute/runtime/backend";
 * const options: StreamErrorsOptions = { maxStreams: 4 }; // ids 1 and 5 share a record
 * const errors = new StreamErrors(options);
 * console.log(errors.has(5)); // false
 * ```
 */
export interface StreamErrorsOptions {
  /**
   * Number of streams: errors are recorded by pool index (`id % maxStreams`). Without it, by id.
   * @default {undefined}
   */
  readonly maxStreams?: number;
}

/**
 * Errors recorded per stream, each thrown once by that stream's next `sync` or `read`.
 *
 * @example
 * ```ts
 * import { ComputeError, StreamErrors } from "@gpucompute/runtime/backend";
 * const errors = new StreamErrors({ maxStreams: 4 });
 * errors.record(5, new ComputeError("DRIVER", "kernel rejected"));
 * console.log(errors.has(1)); // true: 5 % 4 is stream 1
 * try {
 *   errors.throwFor(1);
 * } catch (error) {
 *   console.log((error as ComputeError).message); // kernel rejected
 * }
 * console.log(errors.has(1)); // false: thrown once
 * ```
 */
export class StreamErrors {
  readonly #maxStreams: number | undefined;
  /** Recorded errors with the key each was deduplicated by, per stream. */
  readonly #errors = new Map<number, { error: unknown; key: unknown }[]>();

  /** Creates an empty record. */
  constructor(options: StreamErrorsOptions = {}) {
    if (options.maxStreams !== undefined) assertPositiveInteger(options.maxStreams, "maxStreams");
    this.#maxStreams = options.maxStreams;
  }

  /** Whether any error is recorded (no lookup: the hot paths' check). */
  get empty(): boolean {
    return this.#errors.size === 0;
  }

  /**
   * Records `error` on `stream`, unless an error recorded there has the same `key` (by default
   * the error itself): one failure reaching a stream by several paths is reported once.
   */
  record(stream: StreamId, error: unknown, key: unknown = error): void {
    const index = this.#index(stream);
    const list = this.#errors.get(index);
    if (list === undefined) this.#errors.set(index, [{ error, key }]);
    else if (!list.some((entry) => entry.key === key)) list.push({ error, key });
  }

  /** Forgets the error recorded on `stream` with `key` (it reached a caller another way). */
  discard(stream: StreamId, key: unknown): void {
    if (this.#errors.size === 0) return;
    const index = this.#index(stream);
    const list = this.#errors.get(index);
    if (list === undefined) return;
    const kept = list.filter((entry) => entry.key !== key);
    if (kept.length === 0) this.#errors.delete(index);
    else this.#errors.set(index, kept);
  }

  /** Whether `stream` has errors to report. */
  has(stream: StreamId): boolean {
    return this.#errors.size > 0 && this.#errors.has(this.#index(stream));
  }

  /** Takes the errors of `stream` as one (see the module doc), or `undefined` when there are none. */
  take(stream: StreamId): unknown {
    const errors = this.peek(stream);
    if (errors !== undefined) this.#errors.delete(this.#index(stream));
    return errors;
  }

  /**
   * The errors of `stream` as one, as {@linkcode take} gives them, but left recorded (still
   * thrown once by the stream's next call); `undefined` when there are none.
   */
  peek(stream: StreamId): unknown {
    if (this.#errors.size === 0) return undefined;
    const list = this.#errors.get(this.#index(stream));
    if (list === undefined) return undefined;
    const errors = list.map((entry) => entry.error);
    return joinErrors(errors, `${errors.flatMap(errorList).length} errors on stream ${stream}`);
  }

  /** Throws the errors of `stream` (see {@linkcode take}), if any. */
  throwFor(stream: StreamId): void {
    if (this.#errors.size === 0) return;
    const taken = this.take(stream);
    if (taken !== undefined) throw taken;
  }

  /** Forgets every recorded error. */
  clear(): void {
    this.#errors.clear();
  }

  #index(stream: StreamId): number {
    return this.#maxStreams === undefined ? stream : stream % this.#maxStreams;
  }
}
