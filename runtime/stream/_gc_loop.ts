/**
 * The garbage collector of the event multi-stream (CubeCL's GC thread, with its bounded channel).
 *
 * A task holds payloads (memory pins, staging buffers, host buffers that a copy reads) until an
 * event completed. JavaScript has no thread to park on an event, so two paths settle tasks, both
 * from the oldest one on:
 *
 * - **Asynchronous**: one worker awaits each task's host wait in turn, when the event loop turns.
 * - **Synchronous back-pressure**: when more than `maxPending` tasks are pending, `register`
 *   blocks on the oldest ones with the backend's synchronous host wait until `maxPending` remain,
 *   as CubeCL's GC channel of 8 blocked its producer. So a long synchronous loop of cross-stream
 *   work keeps at most `maxPending` tasks (and their memory) alive. A backend without a
 *   synchronous wait gets the asynchronous path only (logged once).
 *
 * A failed or timed-out wait does NOT release the task's payloads: the work behind the event may
 * still run, so its memory stays pinned and its buffers reachable, for good. `onFailure` is told
 * at once (the multi-stream poisons the stream), and {@linkcode GcLoop.drain} reports the error too.
 *
 * @module
 */

import { ComputeError, RuntimeError } from "../core/errors.ts";

/** Waits on the host for an event; rejects with a typed error when the event failed. */
export type HostWait<E> = (event: E) => Promise<void>;

/** Blocks the host until an event completed; throws a typed error when it failed. */
export type HostWaitSync<E> = (event: E) => void;

/**
 * What the GC holds until an event completed: a `Disposable` is disposed then (a memory pin, a
 * staging buffer); a buffer is only kept reachable until then (a host buffer that an
 * asynchronous copy reads), since dropping the last reference is how JavaScript frees it.
 */
export type GcPayload = Disposable | ArrayBufferLike | ArrayBufferView;

/** @internal One registered task. */
export interface GcTask<E> {
  readonly event: E;
  /** The pool index of the stream whose work the event covers. */
  readonly stream: number;
  readonly payloads: readonly GcPayload[];
}

/** @internal Options of {@linkcode GcLoop}. */
export interface GcLoopOptions<E> {
  wait: HostWait<E>;
  waitSync: HostWaitSync<E> | undefined;
  /** Pending tasks allowed before `register` blocks on the oldest. */
  maxPending: number;
  /** A wait failed: the task's payloads are kept for good. Called once per failed task. */
  onFailure(task: GcTask<E>, error: ComputeError): void;
  /** Back-pressure is needed but the backend has no synchronous wait (called once). */
  onUnbounded(): void;
}

interface Entry<E> {
  readonly task: GcTask<E>;
  state: "pending" | "done" | "failed";
  /** Wakes the asynchronous worker when the synchronous path settled this entry first. */
  wake?: () => void;
}

/** @internal Releases payloads once their event completed, oldest first, with back-pressure. */
export class GcLoop<E> {
  readonly #options: GcLoopOptions<E>;
  /** Pending entries, oldest first. */
  #queue: Entry<E>[] = [];
  #head = 0;
  #registered = 0;
  #settled = 0;
  #working = false;
  #warned = false;
  #errors: ComputeError[] = [];
  #waiters: { target: number; resolve: () => void }[] = [];
  /** Payloads kept for good because their wait failed. */
  readonly #kept: GcPayload[] = [];

  constructor(options: GcLoopOptions<E>) {
    this.#options = options;
  }

  /** Tasks registered and not yet settled. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Payloads kept for good because the wait of their task failed. */
  get kept(): number {
    return this.#kept.length;
  }

  /**
   * Queues `task`; if more than `maxPending` tasks are then pending, blocks on the oldest ones
   * first. Never throws for a failed wait: that is reported through `onFailure` and `drain`.
   */
  register(task: GcTask<E>): void {
    this.#queue.push({ task, state: "pending" });
    this.#registered++;
    if (this.pending > this.#options.maxPending) this.#collectSync();
    this.#startWorker();
  }

  /**
   * Resolves once every task registered so far was settled; rejects with the failures since the
   * last drain (an `AggregateError` when several), each reported once.
   */
  async drain(): Promise<void> {
    const target = this.#registered;
    if (this.#settled < target) {
      await new Promise<void>((resolve) => this.#waiters.push({ target, resolve }));
    }
    const errors = this.#errors;
    if (errors.length === 0) return;
    this.#errors = [];
    if (errors.length === 1) throw errors[0];
    throw new AggregateError(errors, `${errors.length} GC event waits failed`);
  }

  #collectSync(): void {
    const waitSync = this.#options.waitSync;
    if (waitSync === undefined) {
      if (!this.#warned) {
        this.#warned = true;
        this.#options.onUnbounded();
      }
      return;
    }
    while (this.pending > this.#options.maxPending) {
      const entry = this.#queue[this.#head];
      try {
        waitSync(entry.task.event);
        this.#complete(entry);
      } catch (error) {
        this.#fail(entry, error);
      }
    }
  }

  #startWorker(): void {
    if (this.#working || this.pending === 0) return;
    this.#working = true;
    void this.#work();
  }

  /** Never rejects: every failure goes to `#fail`. */
  async #work(): Promise<void> {
    try {
      while (this.pending > 0) {
        const entry = this.#queue[this.#head];
        let waited: Promise<void>;
        try {
          waited = this.#options.wait(entry.task.event).then(
            () => this.#complete(entry),
            (error) => this.#fail(entry, error),
          );
        } catch (error) {
          this.#fail(entry, error);
          continue;
        }
        if (this.#options.waitSync === undefined) {
          await waited;
        } else {
          // A wait that hangs must not hold up later tasks once back-pressure settled this one.
          await Promise.race([waited, new Promise<void>((resolve) => entry.wake = resolve)]);
        }
      }
    } finally {
      // Synchronously with the last settle: a task registered later starts a new worker.
      this.#working = false;
    }
  }

  /** Releases the payloads of a pending entry (no-op if the synchronous path settled it). */
  #complete(entry: Entry<E>): void {
    if (entry.state !== "pending") return;
    entry.state = "done";
    entry.wake?.();
    for (const payload of entry.task.payloads) {
      if (!isDisposable(payload)) continue;
      try {
        payload[Symbol.dispose]();
      } catch (error) {
        this.#errors.push(asComputeError(error, "A GC payload failed to dispose"));
      }
    }
    this.#settle();
  }

  #fail(entry: Entry<E>, error: unknown): void {
    if (entry.state !== "pending") return;
    entry.state = "failed";
    entry.wake?.();
    this.#kept.push(...entry.task.payloads);
    const typed = asComputeError(error, `A GC wait on stream ${entry.task.stream} failed`);
    this.#errors.push(typed);
    try {
      this.#options.onFailure(entry.task, typed);
    } catch (callbackError) {
      this.#errors.push(asComputeError(callbackError, "A GC failure callback threw"));
    }
    this.#settle();
  }

  #settle(): void {
    // Both paths settle the oldest pending entry, so entries settle in registration order.
    while (this.#head < this.#queue.length && this.#queue[this.#head].state !== "pending") {
      this.#head++;
      this.#settled++;
    }
    if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#waiters.length === 0) return;
    const still = [];
    for (const waiter of this.#waiters) {
      if (waiter.target <= this.#settled) waiter.resolve();
      else still.push(waiter);
    }
    this.#waiters = still;
  }
}

function isDisposable(payload: GcPayload): payload is Disposable {
  return typeof (payload as Partial<Disposable>)[Symbol.dispose] === "function";
}

function asComputeError(error: unknown, message: string): ComputeError {
  if (error instanceof ComputeError) return error;
  return new RuntimeError("UNKNOWN", `${message}: ${String(error)}`, { cause: error });
}
