/**
 * Streams held by {@linkcode ComputeClient.waitFor}: after `hold(stream, wait)`, calls on that
 * stream run once the wait settles, in call order, and so does any later call on another stream
 * that touches memory a held call uses (the order the servers keep for streams: program order
 * per stream and per memory). Held calls keep clones of their handles, so disposing a handle
 * right after the call stays safe.
 *
 * Errors reach their caller:
 *
 * - A wait that fails (timeout, abort, a producer's error) fails every call held behind it: a
 *   held `read` rejects with the wait's error; held calls that return nothing (`execute`,
 *   `write`) are not run. The failure is recorded on the stream ({@linkcode
 *   HeldStreams.errors}, the stream layer's `StreamErrors`, by stream id), also when no call was
 *   held behind the wait: the stream's next call (`sync`...) throws it once. One failed wait is reported once: when a held call that returns (a
 *   `read`) rejected with it, it is not recorded for the calls that return nothing. Calls made
 *   after that run normally.
 * - Memory that calls held on a stream define (a handle made or allocated there, a copy's new
 *   handle: {@linkcode HeldStreams.define}) holds no defined value when that stream's wait fails:
 *   the failure also fails the calls held on that memory on other streams, each caller getting
 *   it, instead of letting them read what the memory held before. Memory the failed calls would
 *   only have changed keeps its earlier value, which other streams may still read.
 * - A held call that throws when it finally runs records its error the same way. A held call
 *   that returns nothing does not throw the errors recorded on its stream when it runs (it could
 *   only record them again, failing every held call after it): it runs, and the stream's next
 *   `read` or `sync` throws them once.
 * - `close` (the client's `destroy`) settles every held call at once with the given error and
 *   aborts the pending waits, so nothing held keeps the process alive.
 *
 * @module
 */

import { LostMemory } from "./_lost_memory.ts";
import { DeviceDeps } from "./_device_deps.ts";
import { AbortedError, ComputeError } from "../../core/errors.ts";
import type { HandleRef } from "../../core/handles/handle_ref.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { StreamErrors } from "../../stream/stream_errors.ts";

/**
 * How a tail ended: `undefined` when its wait succeeded, else the failure, shared by every call
 * held behind it; `reported` once a held call rejected with it (its caller has it).
 */
type Outcome = {
  readonly error: unknown;
  /** The stream whose wait failed. */
  readonly stream: StreamId;
  reported?: boolean;
  /** Other streams where a held call that reads memory the wait defines rejected with it. */
  reportedOn?: Set<StreamId>;
} | undefined;

const OK: Promise<Outcome> = Promise.resolve(undefined);

/** Memory a held stream's calls define: its wait's failure once known, and what to wait for. */
interface Defined {
  failed: Outcome;
  /** Settles with the stream's wait; undefined where calls elsewhere need not wait for it. */
  readonly wait: Promise<void> | undefined;
}

/** Per-stream and per-memory tails of the held calls, and each stream's recorded failure. */
export class HeldStreams {
  readonly #streams = new Map<StreamId, Promise<Outcome>>();
  readonly #memory = new Map<object, Promise<Outcome>>();
  /**
   * Memory that calls held on some stream define (a new handle's upload, a copy into one), by key:
   * a failure of that stream's wait leaves it undefined, which fails the calls held on it on any
   * stream. Removed once the stream's wait settled.
   */
  readonly #defining = new Map<object, Defined>();
  /**
   * Each stream's latest failed wait, from the moment it failed: a call made after that is not
   * held by it (the calls held at the time fail and report it), only ordered after those calls.
   * Otherwise a call made after the failure was reported would fail again or not, depending on
   * whether earlier held calls had settled yet.
   */
  readonly #failed = new Map<StreamId, Outcome>();
  /** Failures of held calls that returned nothing, thrown by their stream's next call. */
  readonly errors: StreamErrors = new StreamErrors();
  /** Memory whose defining calls failed: every later use fails (see `_lost_memory.ts`). */
  readonly lost: LostMemory = new LostMemory();
  /** Verdicts of other clients' device work that this client's device work runs behind. */
  readonly deps: DeviceDeps = new DeviceDeps(this.errors, this.lost);
  /** Rejects of the held calls still waiting (settled at once by `close`). */
  readonly #waiting = new Set<(error: unknown) => void>();
  readonly #abort = new AbortController();
  #closed: unknown = undefined;

  /** The signal that aborts every pending wait on `close`. */
  get abortSignal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * Holds the calls made on `stream` from now on until `wait` settles (and earlier holds): a
   * rejection fails the calls held behind it (see the module doc).
   */
  hold(stream: StreamId, wait: Promise<unknown>): void {
    const before = this.#streams.get(stream) ?? OK;
    // After the earlier holds even when this wait fails first (Promise.all alone would settle at
    // the first rejection: the calls held behind would not wait for the earlier holds, and sync
    // could return before their failure is recorded).
    const settled = wait.then(() => undefined, (error: unknown) => ({ error }));
    const tail = Promise.all([before, settled]).then(([earlier, failure]): Outcome => {
      if (failure === undefined) return earlier;
      const outcome = { error: failure.error, stream };
      this.#failed.set(stream, outcome);
      // For the stream's next sync or read when no held call reports it (none was held, or
      // only calls that return nothing); a held call that rejects with it discards it. Not after
      // `close`: every held call settled with the close's error then.
      if (this.#closed === undefined) this.errors.record(stream, failure.error, outcome);
      return outcome;
    });
    this.#track(stream, [], tail);
  }

  /**
   * Says that the calls held on `stream` now define the memory in `keys` in full (the upload of
   * a new handle, a copy into one): if the stream's wait fails, they do not run and the memory
   * holds no defined value, so the failure also fails the calls held on that memory on other
   * streams (each caller gets it; see {@linkcode run}). Nothing when the stream is not held.
   *
   * `wait`: whether calls on other streams that use the memory wait for the stream's wait (true:
   * the defining calls are held on the memory anyway). False for memory allocated on a held
   * stream (`empty`): a call that is not held otherwise runs at once (it may define the memory
   * itself), and one held behind the memory's users fails if the wait failed by then.
   */
  define(stream: StreamId, keys: readonly object[], wait = true): void {
    const tail = this.#streams.get(stream);
    if (tail === undefined) return;
    const known = this.#failed.get(stream); // failed before: not the held calls' failure
    const defined: Defined = {
      failed: undefined,
      wait: wait ? tail.then(() => {}) : undefined,
    };
    for (const key of keys) this.#defining.set(key, defined);
    tail.then((outcome) => {
      if (outcome !== known) defined.failed = outcome;
      // Defined in full by calls that never ran: undefined for good (not memory left `empty`).
      if (outcome !== known && outcome !== undefined && wait) this.lost.lose(keys, outcome.error);
      for (const key of keys) if (this.#defining.get(key) === defined) this.#defining.delete(key);
    });
  }

  /**
   * Runs `fn` now if nothing holds `stream` or the memory in `keys`; otherwise after them, with
   * clones of `handles` kept alive meanwhile. Returns what `fn` returns (a promise if held),
   * rejecting with the failure of a wait the stream was held by.
   */
  run<T>(
    stream: StreamId,
    keys: readonly object[],
    handles: readonly Keepable[],
    fn: () => T,
  ): T | Promise<T> {
    return this.#run(stream, keys, handles, fn, undefined);
  }

  #run<T>(
    stream: StreamId,
    keys: readonly object[],
    handles: readonly Keepable[],
    fn: () => T,
    /** For calls that return nothing: told when the call did not run (its wait failed). */
    notRun: ((error: unknown) => void) | undefined,
  ): T | Promise<T> {
    if (this.#closed !== undefined) throw this.#closed;
    if (this.lost.any) { for (const key of keys) this.lost.check(key); }
    const own = this.#streams.get(stream);
    const after: Promise<Outcome>[] = own === undefined ? [] : [own];
    const defining: Defined[] = [];
    for (const key of keys) {
      const tail = this.#memory.get(key);
      if (tail !== undefined && tail !== own) after.push(tail);
      const defined = this.#defining.get(key);
      if (defined === undefined) continue;
      defining.push(defined);
      if (defined.wait !== undefined) after.push(defined.wait as Promise<undefined>);
    }
    if (after.length === 0) {
      this.errors.throwFor(stream);
      // A call that returns something (a read) writes none of its memory.
      if (this.deps.any) this.deps.use(stream, keys, notRun === undefined ? [] : keys);
      return fn();
    }
    const known = this.#failed.get(stream); // failed before this call: not this call's failure
    const kept = handles.map((handle) => handle.clone());
    const result = new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      Promise.all(after).then((outcomes) => {
        if (!this.#waiting.delete(reject)) return; // settled by close
        // Only the stream's own wait fails the call; other streams' failures are theirs, except
        // a failure that left memory the call uses undefined.
        const failed = (own === undefined || outcomes[0] === known ? undefined : outcomes[0]) ??
          defining.find((defined) => defined.failed !== undefined)?.failed;
        if (failed !== undefined) {
          if (notRun !== undefined) {
            // Recorded for the stream's next call, unless a held read (of this stream, for a
            // failure of another stream's wait) got it already.
            const reported = failed.stream === stream
              ? failed.reported
              : failed.reportedOn?.has(stream);
            if (!reported) this.errors.record(stream, failed.error, failed);
            notRun(failed.error);
            return resolve(undefined as T);
          }
          failed.reported = true;
          (failed.reportedOn ??= new Set()).add(stream);
          this.errors.discard(stream, failed);
          this.errors.discard(failed.stream, failed);
          throw failed.error;
        }
        // A call that returns something (a read) throws the stream's recorded errors, as the
        // stream's next call does. One that returns nothing runs: throwing here would only record
        // the error again, failing every held call after it, and lose their work.
        if (notRun === undefined) this.errors.throwFor(stream);
        // A call that returns something (a read) writes none of its memory.
        if (this.deps.any) this.deps.use(stream, keys, notRun === undefined ? [] : keys);
        resolve(fn());
      }).catch(reject);
    }).finally(() => kept.forEach((handle) => handle.dispose()));
    // The next call on the stream waits for this one; its own outcome is not the stream's.
    this.#track(stream, keys, result.then(() => own ?? OK, () => own ?? OK));
    return result;
  }

  /**
   * Like {@linkcode run} for calls that return nothing: a held failure is recorded instead (and
   * passed to `failed`, when given).
   */
  runVoid(
    stream: StreamId,
    keys: readonly object[],
    handles: readonly Keepable[],
    fn: () => void,
    failed: (error: unknown) => void = () => {},
  ): void {
    const result = this.#run(stream, keys, handles, fn, failed);
    if (result instanceof Promise) {
      result.catch((error) => {
        this.errors.record(stream, error);
        failed(error);
      });
    }
  }

  /**
   * `server.flush(stream)`: at once when nothing is held (after the stream's recorded errors),
   * else held like any call. The client's flush: no closure here (V8 would allocate its context
   * on every call), the held one is made in {@linkcode #flushHeld}.
   */
  flush(server: { flush(stream: StreamId): void }, stream: StreamId): void {
    if (this.quiet(stream)) server.flush(stream);
    else this.#flushHeld(server, stream);
  }

  #flushHeld(server: { flush(stream: StreamId): void }, stream: StreamId): void {
    this.runVoid(stream, [], [], () => server.flush(stream));
  }

  /**
   * Whether a call on `stream` may run at once: nothing is held (see {@linkcode busy}); the
   * stream's recorded errors are thrown first. One call for a replay's short path.
   */
  quiet(stream: StreamId): boolean {
    if (this.#streams.size > 0) return false;
    this.errors.throwFor(stream);
    return true;
  }

  /** Settles once every held call has run (or failed). */
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

  /** Whether `stream` has held calls. */
  held(stream: StreamId): boolean {
    return this.#streams.has(stream);
  }

  /**
   * Settles every held call with `error` now, aborts the pending waits, and refuses later calls
   * with it. Idempotent.
   */
  close(error: unknown): void {
    if (this.#closed !== undefined) return;
    this.#closed = error;
    this.deps.close(); // before the waits are aborted: their failures are the close's
    for (const reject of this.#waiting) reject(error);
    this.#waiting.clear();
    this.#abort.abort(error);
    this.#streams.clear();
    this.#memory.clear();
    this.#defining.clear();
  }

  #track(stream: StreamId, keys: readonly object[], tail: Promise<Outcome>): void {
    this.#streams.set(stream, tail);
    for (const key of keys) this.#memory.set(key, tail);
    tail.then(() => {
      if (this.#streams.get(stream) === tail) this.#streams.delete(stream);
      for (const key of keys) if (this.#memory.get(key) === tail) this.#memory.delete(key);
    });
  }
}

/** The error held calls get when the wait holding `stream` for `value` failed with `cause`. */
export function heldError(cause: unknown, stream: StreamId, value: bigint | number): unknown {
  if (cause instanceof ComputeError) return cause;
  return new AbortedError(
    `The wait of stream ${stream} for timeline value ${value} failed: ${
      cause instanceof Error ? cause.message : String(cause)
    }`,
    { cause },
  );
}

/**
 * What a held call keeps alive until it ran: a handle (its clone), or a texture's memory
 * ({@linkcode keepRef}), so that disposing it right after the call is safe, as for a launch.
 */
export interface Keepable {
  clone(): { dispose(): void };
}

/** Keeps `ref`'s memory (a texture's) owned while a held call waits to use it. */
export function keepRef(ref: HandleRef): Keepable {
  const record = ref.slice.record;
  return {
    clone() {
      record.retainOwner();
      let kept = true;
      return {
        dispose() {
          if (kept) record.releaseOwner();
          kept = false;
        },
      };
    },
  };
}
