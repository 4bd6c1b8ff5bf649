/**
 * Gates of the client's streams ({@linkcode ComputeClient.waitFor}): after `hold(stream, until)`,
 * calls on that stream run once `until` settles, in call order, and so does any later call on
 * another stream that touches memory a held call uses (the same ordering the servers keep for
 * streams: program order per stream and per memory). Held calls keep clones of their handles,
 * so disposing a handle right after the call stays safe. A held call that fails records its
 * error; the stream's next call throws (or rejects with) it.
 *
 * @module
 */

import type { Handle } from "./core/handle.ts";
import type { StreamId } from "./core/stream_id.ts";

const noop = () => {};

/** Per-stream and per-memory tails of the held calls. */
export class StreamGates {
  readonly #streams = new Map<StreamId, Promise<void>>();
  readonly #memory = new Map<object, Promise<void>>();
  readonly #errors = new Map<StreamId, unknown>();

  /** Holds the calls made on `stream` from now on until `until` settles (and earlier holds). */
  hold(stream: StreamId, until: Promise<unknown>): void {
    const tail = Promise.all([this.#streams.get(stream), until]).then(noop, (error) => {
      this.#errors.set(stream, error);
    });
    this.#track(stream, [], tail);
  }

  /**
   * Runs `fn` now if nothing holds `stream` or the memory in `keys`; otherwise after them, with
   * clones of `handles` kept alive meanwhile. Returns what `fn` returns (a promise if held).
   */
  run<T>(
    stream: StreamId,
    keys: readonly object[],
    handles: readonly Handle[],
    fn: () => T,
  ): T | Promise<T> {
    const after = [this.#streams.get(stream), ...keys.map((key) => this.#memory.get(key))]
      .filter((tail) => tail !== undefined);
    if (after.length === 0) {
      this.throwRecorded(stream);
      return fn();
    }
    const kept = handles.map((handle) => handle.clone());
    const result = Promise.all(after).then(() => {
      this.throwRecorded(stream);
      return fn();
    }).finally(() => kept.forEach((handle) => handle.dispose()));
    this.#track(stream, keys, result.then(noop, noop));
    return result;
  }

  /** Like {@linkcode run} for calls that return nothing: a held failure is recorded instead. */
  runVoid(
    stream: StreamId,
    keys: readonly object[],
    handles: readonly Handle[],
    fn: () => void,
  ): void {
    const result = this.run(stream, keys, handles, fn);
    if (result instanceof Promise) result.catch((error) => this.#errors.set(stream, error));
  }

  /** Settles once every held call has run. */
  async drain(): Promise<void> {
    while (this.#streams.size > 0) await Promise.all(this.#streams.values());
  }

  /**
   * Whether any stream has held calls. When not, nothing is held on any memory either (a memory
   * tail is always some stream's tail, or settles before it), so a call may run at once.
   */
  get busy(): boolean {
    return this.#streams.size > 0;
  }

  /** Takes the recorded failure of `stream`, if any. */
  take(stream: StreamId): { error: unknown } | undefined {
    if (!this.#errors.has(stream)) return undefined;
    const error = this.#errors.get(stream);
    this.#errors.delete(stream);
    return { error };
  }

  /** Records a failure of `stream` that its next call reports. */
  record(stream: StreamId, error: unknown): void {
    this.#errors.set(stream, error);
  }

  /** Whether `stream` has held calls. */
  held(stream: StreamId): boolean {
    return this.#streams.has(stream);
  }

  #track(stream: StreamId, keys: readonly object[], tail: Promise<void>): void {
    this.#streams.set(stream, tail);
    for (const key of keys) this.#memory.set(key, tail);
    tail.then(() => {
      if (this.#streams.get(stream) === tail) this.#streams.delete(stream);
      for (const key of keys) if (this.#memory.get(key) === tail) this.#memory.delete(key);
    });
  }

  /** Throws (and forgets) the recorded failure of `stream`, if any. */
  throwRecorded(stream: StreamId): void {
    if (!this.#errors.has(stream)) return;
    const error = this.#errors.get(stream);
    this.#errors.delete(stream);
    throw error;
  }
}
