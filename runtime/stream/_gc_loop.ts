/**
 * The garbage collector of the event multi-stream (CubeCL's GC thread, with its bounded channel).
 *
 * A task holds payloads (memory pins, staging buffers, host buffers that a copy reads) until an
 * event completed. JavaScript has no thread to park on an event, so two paths settle tasks:
 *
 * - **Asynchronous**, one of:
 *   - **Polled FIFOs**, when the backend can query an event without blocking (`poll`; CUDA:
 *     `cuEventQuery`): one FIFO per stream index, and one pass polls every FIFO, settling its
 *     tasks in order up to its first event that is not ready. No host wait is parked per task,
 *     so a deep queue costs one query per completed task plus one per FIFO and pass. The events
 *     of one index complete in order (they are recorded on the GC stream, or on that stream),
 *     so stopping at the first not-ready one skips nothing that is ready; where they do not,
 *     stopping only delays a release, never hastens one. A pass runs when a host wait parked on
 *     each FIFO's first pending event settles, where the backend's host waits sleep (`park`;
 *     CUDA: a parked `cuEventSynchronize`), else on a timer (0 ms, then 1 ms steps); a FIFO
 *     whose parked wait failed while its event still reads not ready falls back to the timer.
 *   - **One worker** otherwise, awaiting each task's host wait in turn, oldest first.
 * - **Synchronous back-pressure**: when more than `maxPending` tasks are pending, `register`
 *   blocks on the oldest ones with the backend's synchronous host wait until `maxPending` remain,
 *   as CubeCL's GC channel of 8 blocked its producer. So a long synchronous loop of cross-stream
 *   work keeps at most `maxPending` tasks (and their memory) alive. A backend without a
 *   synchronous wait gets the asynchronous path only (logged once).
 *
 * A failed or timed-out wait does NOT release the task's payloads: the work behind the event may
 * still run, so its memory stays pinned and its buffers reachable, for good. `onFailure` is told
 * at once (the multi-stream marks the stream unhealthy), and {@linkcode GcLoop.drain} reports the error too.
 *
 * @module
 */

import { ComputeError, UnknownError } from "../core/errors.ts";
import { joinErrors } from "../core/_join_errors.ts";

/** Waits on the host for an event; rejects with a typed error when the event failed. */
export type HostWait<E> = (event: E) => Promise<void>;

/** Blocks the host until an event completed; throws a typed error when it failed. */
export type HostWaitSync<E> = (event: E) => void;

/**
 * Queries an event without blocking: true once it completed, false while not ready; throws a
 * typed error when it failed (`TIMEOUT` once `waitedMs`, the time since registration, is past
 * the backend's bound).
 */
export type EventPoll<E> = (event: E, waitedMs: number) => boolean;

/**
 * What the GC holds until an event completed: a `Disposable` is disposed then (a memory pin, a
 * staging buffer); a buffer is only kept reachable until then (a host buffer that an
 * asynchronous copy reads), since dropping the last reference is how JavaScript frees it. A
 * `Disposable` with a `fail` method is told when the wait failed (it is kept, not disposed): a
 * timeline mark riding on the task fails its value then.
 *
 * @example
 * ```ts
 * import type { GcPayload } from "@gpucompute/runtime/backend";
 * const payloads: GcPayload[] = [
 *   new Uint8Array(64), // a host buffer a copy reads: dropped
 *   { [Symbol.dispose]: () => console.log("staging released") }, // disposed
 * ];
 * console.log(payloads.length); // 2
 * ```
 */
export type GcPayload =
  | (Disposable & { fail?(error: ComputeError): void })
  | ArrayBufferLike
  | ArrayBufferView;

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
  /** Non-blocking query: when given, tasks are settled by polled per-stream FIFOs, not `wait`. */
  poll?: EventPoll<E>;
  /**
   * With `poll`: a host wait that sleeps until the event settles, parked on each FIFO's first
   * pending event to run the next pass instead of a timer.
   */
  park?: HostWait<E>;
  /** Pending tasks allowed before `register` blocks on the oldest. */
  maxPending: number;
  /** A wait failed: the task's payloads are kept for good. Called once per failed task. */
  onFailure(task: GcTask<E>, error: ComputeError): void;
  /** Back-pressure is needed but the backend has no synchronous wait (called once). */
  onUnbounded(): void;
}

interface Entry<E> {
  readonly task: GcTask<E>;
  /** `performance.now()` at registration (the polled path's timeout clock). */
  readonly registeredAt: number;
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
  #unsettled = 0;
  #registered = 0;
  #settled = 0;
  #working = false;
  #warned = false;
  #errors: ComputeError[] = [];
  #waiters: { target: number; resolve: () => void }[] = [];
  /** Payloads kept for good because their wait failed. */
  readonly #kept: GcPayload[] = [];
  /** Polled path: pending entries per stream index, oldest first (settled ones are skipped). */
  readonly #fifos = new Map<number, { entries: Entry<E>[]; head: number }>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Consecutive polls that settled nothing (the delay grows from 0 to 1 ms after 8). */
  #idlePolls = 0;
  /** Polled path with `park`: the entry each FIFO's parked wait is on, by stream index. */
  readonly #parked = new Map<number, Entry<E>>();
  /** Entries whose parked wait failed while their event read not ready: the timer polls them. */
  readonly #unparkable = new WeakSet<Entry<E>>();

  constructor(options: GcLoopOptions<E>) {
    this.#options = options;
  }

  /** Tasks registered and not yet settled. */
  get pending(): number {
    return this.#unsettled;
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
    const entry: Entry<E> = { task, registeredAt: performance.now(), state: "pending" };
    this.#queue.push(entry);
    this.#registered++;
    this.#unsettled++;
    if (this.#options.poll !== undefined) {
      let fifo = this.#fifos.get(task.stream);
      if (fifo === undefined) this.#fifos.set(task.stream, fifo = { entries: [], head: 0 });
      fifo.entries.push(entry);
    }
    if (this.pending > this.#options.maxPending) this.#collectSync();
    if (this.#options.poll === undefined) this.#startWorker();
    else this.#schedulePoll();
  }

  /**
   * Resolves once every task registered so far was settled; rejects with the failures since the
   * last drain (one `ComputeError` listing them in its `cause` when several), each reported once.
   */
  async drain(): Promise<void> {
    const target = this.#registered;
    if (this.#settled < target) {
      await new Promise<void>((resolve) => this.#waiters.push({ target, resolve }));
    }
    const errors = this.#errors;
    if (errors.length === 0) return;
    this.#errors = [];
    throw joinErrors(errors, `${errors.length} GC event waits failed`);
  }

  /**
   * Polled path: settles now, without waiting, each FIFO's tasks up to its first event not ready
   * (no-op without `poll`). A backend torn down fails every pending task here at once. Then,
   * until `blockUntil` (`performance.now()`), blocks on the tasks still pending, oldest first.
   */
  poll(blockUntil = -Infinity): void {
    if (this.#options.poll !== undefined && this.pending > 0) {
      this.#idlePolls = this.#pollFifos() ? 0 : this.#idlePolls;
    }
    if (this.pending > 0 && performance.now() < blockUntil) this.#collectSync(0, blockUntil);
  }

  /** Blocks on the oldest pending tasks until at most `limit` are pending (or `until`). */
  #collectSync(limit = this.#options.maxPending, until = Infinity): void {
    const waitSync = this.#options.waitSync;
    if (waitSync === undefined) {
      if (!this.#warned) {
        this.#warned = true;
        this.#options.onUnbounded();
      }
      return;
    }
    while (this.pending > limit && performance.now() < until) {
      // `#settle` keeps the head on the oldest pending entry.
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

  #schedulePoll(): void {
    if (this.pending === 0) return;
    if (this.#options.park !== undefined && this.#parkHeads()) return;
    if (this.#timer !== undefined) return;
    // A zero delay first (short work), then 1 ms steps: polling never spins the CPU.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#idlePolls = this.#pollFifos() ? 0 : this.#idlePolls + 1;
      this.#schedulePoll();
    }, this.#idlePolls < 8 ? 0 : 1);
  }

  /**
   * Parks a host wait on each FIFO's first pending entry that has none; a settled wait runs a
   * pass. True when every FIFO is covered (no timer needed).
   */
  #parkHeads(): boolean {
    const park = this.#options.park!;
    let covered = true;
    for (const [stream, fifo] of this.#fifos) {
      let head = fifo.head;
      while (head < fifo.entries.length && fifo.entries[head].state !== "pending") head++;
      const entry = fifo.entries[head];
      if (entry === undefined || this.#parked.has(stream)) continue;
      if (this.#unparkable.has(entry)) {
        covered = false;
        continue;
      }
      this.#parked.set(stream, entry);
      let failed = false;
      const settled = () => {
        this.#parked.delete(stream);
        // A wait that failed on an event the poll still reads not ready must not park again.
        if (failed && entry.state === "pending") this.#unparkable.add(entry);
        this.poll();
        this.#schedulePoll();
      };
      try {
        park(entry.task.event).then(settled, () => (failed = true, settled()));
      } catch {
        failed = true;
        queueMicrotask(settled);
      }
    }
    return covered;
  }

  /** Settles each FIFO's tasks in order up to its first event that is not ready. */
  #pollFifos(): boolean {
    const poll = this.#options.poll!;
    const now = performance.now();
    let progress = false;
    for (const [stream, fifo] of this.#fifos) {
      const { entries } = fifo;
      while (fifo.head < entries.length) {
        const entry = entries[fifo.head];
        if (entry.state === "pending") {
          let done: boolean;
          try {
            done = poll(entry.task.event, now - entry.registeredAt);
          } catch (error) {
            this.#fail(entry, error);
            done = true;
          }
          if (!done) break;
          if (entry.state === "pending") this.#complete(entry);
          progress = true;
        }
        fifo.head++;
      }
      if (fifo.head === entries.length) this.#fifos.delete(stream);
      else if (fifo.head > 64 && fifo.head * 2 > entries.length) {
        fifo.entries = entries.slice(fifo.head);
        fifo.head = 0;
      }
    }
    return progress;
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
    this.#unsettled--;
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
    this.#unsettled--;
    entry.wake?.();
    this.#kept.push(...entry.task.payloads);
    const typed = asComputeError(error, `A GC wait on stream ${entry.task.stream} failed`);
    this.#errors.push(typed);
    for (const payload of entry.task.payloads) {
      if (!isDisposable(payload) || payload.fail === undefined) continue;
      try {
        payload.fail(typed);
      } catch (failError) {
        this.#errors.push(asComputeError(failError, "A GC payload's fail threw"));
      }
    }
    try {
      this.#options.onFailure(entry.task, typed);
    } catch (callbackError) {
      this.#errors.push(asComputeError(callbackError, "A GC failure callback threw"));
    }
    this.#settle();
  }

  #settle(): void {
    if (this.#unsettled === 0 && this.#timer !== undefined) {
      // Nothing left to poll: no timer outlives the work (a test's sanitizer would see it).
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // Entries settle out of registration order only across FIFOs; `#settled` counts the prefix.
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
  return new UnknownError(`${message}: ${String(error)}`, { cause: error });
}
