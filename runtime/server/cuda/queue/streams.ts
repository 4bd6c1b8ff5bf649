/**
 * CUDA streams and events for the event {@linkcode MultiStream}.
 *
 * - Streams are created `CU_STREAM_NON_BLOCKING`: they never synchronize with the legacy default
 *   stream, which the backend never uses.
 * - `flush` records an event taken from a pool of `CU_EVENT_DISABLE_TIMING` events (cheapest to
 *   record and query). Work is submitted to the device as it is enqueued, so recording is all a
 *   flush has to do.
 * - `waitEvent` is `cuStreamWaitEvent`. The wait captures the event's latest record at call time
 *   (a later re-record does not affect it), so the event returns to the pool right after.
 * - `isEventComplete` is one `cuEventQuery`: the GC polls its per-stream FIFOs with it, each time
 *   a `waitEventHost` parked on a FIFO's first pending event settles (`hostWaitsSleep`).
 * - `waitEventHost` is {@linkcode waitForEvent}: one `cuEventQuery`, then a non-blocking
 *   `cuEventSynchronize` on Deno's blocking pool (never on the event loop's thread), until the
 *   event completes, fails, or the timeout passes (`TIMEOUT`). An event that timed out is not
 *   reused: the work behind it may still be running.
 * - `waitEventHostSync` (the GC's back-pressure, on the JavaScript thread) blocks until the
 *   device wakes it ({@linkcode waitForEventSync}, `_wake.ts`), at most the timeout.
 * - Health is the stream's sticky error state: `cuStreamQuery` returns a real error (not
 *   `CUDA_ERROR_NOT_READY`) once a launch faulted.
 *
 * @module
 */

import { DestroyedError, TimeoutError } from "../../../core/errors.ts";
import type { HandleRef } from "../../../core/handles/handle.ts";
import type { EventStreamBackend } from "../../../stream/event.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";
import { HostWaiter } from "./_host_wait.ts";
import { blockUntilComplete } from "./_wake.ts";

const CU_STREAM_NON_BLOCKING = 1;
const CU_EVENT_DISABLE_TIMING = 2;

/** A device stream of the backend. */
export interface CudaStream {
  /** The `CUstream`. */
  readonly handle: Deno.PointerValue;
  /** Creation order, for messages. */
  readonly index: number;
  /** The context's launch count at this stream's last launch (`_in_flight.ts`). */
  launched: number;
  /** The launch count through which this stream's launches are known complete. */
  completed: number;
}

/**
 * An event of the pool; `handle` is `null` once returned. `stream` and `launched` (its
 * `launched` at the record) tell {@linkcode markComplete} which launches completed before it.
 */
export interface CudaEvent {
  handle: Deno.PointerValue;
  readonly stream?: CudaStream;
  readonly launched?: number;
}

/**
 * Notes that `event` completed: the launches its stream had enqueued before it are no longer in
 * flight (the candidates of a later fault, `_in_flight.ts`). Two field reads, no driver call.
 */
export function markComplete(event: CudaEvent): void {
  const { stream, launched } = event;
  if (stream !== undefined && launched !== undefined && launched > stream.completed) {
    stream.completed = launched;
  }
}

/** Options of the host waits. */
export interface HostWaitOptions {
  /** Milliseconds before a wait rejects with `TIMEOUT`. */
  readonly timeoutMs: number;
  /** What the wait is for, in the timeout message ("a read"). */
  readonly what?: string;
  /** The server the wait is for (its parts): see {@linkcode WaitOwner}. */
  readonly owner?: WaitOwner;
  /**
   * `false`: park at once, without the owner's `waitSpinUs` of queries first (the GC's waits,
   * which nobody awaits: a spin would only burn the thread).
   */
  readonly spin?: boolean;
}

/**
 * What a host wait needs of the server it waits for (the server's parts implement it): whether
 * it was destroyed (the wait then rejects with `DESTROYED`: the event is gone), and how to make
 * its context current, before each query: a wait resumes from the event loop, where another
 * server may have made its own context current meanwhile.
 */
export interface WaitOwner {
  /** True once the server was destroyed. */
  readonly destroyed: boolean;
  /** Makes the server's context current (nothing once destroyed). */
  bind(): void;
  /** Microseconds a wait queries its event before it parks (`CudaServerOptions.waitSpinUs`). */
  readonly waitSpinUs?: number;
}

/** Pool of timing-disabled events, recycled once their last use is known to be over. */
export class EventPool {
  readonly #driver: CudaDriver;
  readonly #free: Deno.PointerValue[] = [];
  readonly #all = new Set<Deno.PointerValue>();

  constructor(driver: CudaDriver) {
    this.#driver = driver;
  }

  /** Events created so far (in the pool or in use). */
  get size(): number {
    return this.#all.size;
  }

  /** Records a pooled event on `stream` and returns it. */
  record(stream: CudaStream): CudaEvent {
    let handle = this.#free.pop();
    const { symbols } = this.#driver;
    if (handle === undefined) {
      this.#driver.check(
        symbols.cuEventCreate(this.#driver.out64, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate(CU_EVENT_DISABLE_TIMING)",
      );
      handle = this.#driver.pointerAt();
      this.#all.add(handle);
    }
    const result = symbols.cuEventRecord(handle, stream.handle);
    if (result !== CUDA_SUCCESS) {
      this.#free.push(handle);
      throw this.#driver.error(result, `cuEventRecord(stream ${stream.index})`);
    }
    return { handle, stream, launched: stream.launched };
  }

  /** Returns an event to the pool. Idempotent per event. */
  release(event: CudaEvent): void {
    if (event.handle === null) return;
    this.#free.push(event.handle);
    event.handle = null;
  }

  /** Destroys every event (the pool's and those in use). */
  destroy(): void {
    for (const handle of this.#all) this.#driver.symbols.cuEventDestroy_v2(handle);
    this.#all.clear();
    this.#free.length = 0;
  }
}

const waiters = new WeakMap<object, HostWaiter>();

/** The host waits of `owner` (a server's parts), or of `driver` without an owner. */
export function hostWaiter(driver: CudaDriver, owner?: WaitOwner): HostWaiter {
  const key = owner ?? driver;
  let waiter = waiters.get(key);
  if (waiter === undefined) waiters.set(key, waiter = new HostWaiter(driver));
  return waiter;
}

/**
 * Resolves once `event` completed, without a timer loop (`_host_wait.ts`: a parked non-blocking
 * `cuEventSynchronize`); rejects with the driver's error, `DESTROYED`, or `TIMEOUT` after
 * `timeoutMs` (the event is then left alone: it is not complete).
 */
export function waitForEvent(
  driver: CudaDriver,
  event: Deno.PointerValue | CudaEvent,
  options: HostWaitOptions,
): Promise<void> {
  const handle = isPooled(event) ? event.handle : event;
  // A pooled event returned to its pool was seen complete by another wait.
  if (isPooled(event) && handle === null) {
    return options.owner?.destroyed ? Promise.reject(destroyedWait()) : Promise.resolve();
  }
  return hostWaiter(driver, options.owner).wait(handle, options);
}

function destroyedWait(): DestroyedError {
  return new DestroyedError(`The CUDA server was destroyed during a host wait`);
}

function isPooled(event: Deno.PointerValue | CudaEvent): event is CudaEvent {
  return event !== null && typeof event === "object" && "handle" in event;
}

/**
 * Blocks until `event` completes, woken by the device (`_wake.ts`: no sleep loop where the driver
 * and libc allow); `TIMEOUT` after the timeout, the driver's error for a failed event.
 */
export function waitForEventSync(
  driver: CudaDriver,
  event: CudaEvent,
  options: HostWaitOptions,
): void {
  if (options.owner?.destroyed) {
    throw new DestroyedError(`The CUDA server was destroyed during a host wait`);
  }
  if (event.handle === null) return; // another wait saw it complete
  if (!blockUntilComplete(driver, options.owner, event.handle, options.timeoutMs)) {
    throw new TimeoutError(options.what ?? "an event", options.timeoutMs, "it is not complete");
  }
}

/** The {@linkcode EventStreamBackend} of the CUDA server. */
export class CudaStreamBackend implements EventStreamBackend<CudaStream, CudaEvent> {
  readonly #driver: CudaDriver;
  readonly #events: EventPool;
  readonly #wait: HostWaitOptions;
  /** The GC's waits: `#wait` without the spin (nobody awaits them). */
  readonly #gcWait: HostWaitOptions;
  /** Every stream created, in creation order. */
  readonly streams: CudaStream[] = [];
  /** `waitEventHost` parks a non-blocking `cuEventSynchronize`: the GC sleeps on it. */
  readonly hostWaitsSleep = true;

  constructor(driver: CudaDriver, events: EventPool, wait: HostWaitOptions) {
    this.#driver = driver;
    this.#events = events;
    this.#wait = wait;
    this.#gcWait = { ...wait, spin: false };
  }

  createStream(): CudaStream {
    const index = this.streams.length;
    this.#driver.check(
      this.#driver.symbols.cuStreamCreate(this.#driver.out64, CU_STREAM_NON_BLOCKING),
      "cuStreamCreate(CU_STREAM_NON_BLOCKING)",
    );
    const stream = { handle: this.#driver.pointerAt(), index, launched: 0, completed: 0 };
    this.streams.push(stream);
    return stream;
  }

  handleCursor(_stream: CudaStream, ref: HandleRef): number {
    return ref.cursor;
  }

  isHealthy(stream: CudaStream): boolean {
    const result = this.#driver.symbols.cuStreamQuery(stream.handle);
    return result === CUDA_SUCCESS || result === CUDA_ERROR_NOT_READY;
  }

  /** The driver's error for the stream's sticky fault (`cuStreamQuery`), if any. */
  unhealthyCause(stream: CudaStream): Error | undefined {
    const result = this.#driver.symbols.cuStreamQuery(stream.handle);
    if (result === CUDA_SUCCESS || result === CUDA_ERROR_NOT_READY) return undefined;
    return this.#driver.error(result, `cuStreamQuery(stream ${stream.index})`);
  }

  flush(stream: CudaStream): CudaEvent {
    return this.#events.record(stream);
  }

  waitEvent(stream: CudaStream, event: CudaEvent): void {
    const result = this.#driver.symbols.cuStreamWaitEvent(stream.handle, event.handle, 0);
    this.#events.release(event);
    this.#driver.check(result, `cuStreamWaitEvent(stream ${stream.index})`);
  }

  async waitEventHost(event: CudaEvent): Promise<void> {
    await waitForEvent(this.#driver, event, this.#gcWait);
    markComplete(event);
    this.#events.release(event); // only once complete: a timed-out event stays out of the pool
  }

  /**
   * The GC's poll: one `cuEventQuery`. A complete event returns to the pool (the GC forgets it);
   * a failed one throws the driver's error, and one not ready past the timeout throws `TIMEOUT`
   * (it stays out of the pool: the work behind it may still run).
   */
  isEventComplete(event: CudaEvent, waitedMs: number): boolean {
    if (this.#wait.owner?.destroyed) {
      throw new DestroyedError(`The CUDA server was destroyed during a host wait`);
    }
    if (event.handle === null) return true; // another wait saw it complete
    this.#wait.owner?.bind(); // a timer of the GC: another server's context may be current
    const result = this.#driver.symbols.cuEventQuery(event.handle);
    if (result === CUDA_SUCCESS) {
      markComplete(event);
      this.#events.release(event);
      return true;
    }
    if (result !== CUDA_ERROR_NOT_READY) throw this.#driver.error(result, "cuEventQuery");
    if (waitedMs >= this.#wait.timeoutMs) {
      throw new TimeoutError(
        this.#wait.what ?? "a GC event",
        this.#wait.timeoutMs,
        "it is not complete",
      );
    }
    return false;
  }

  /** The GC's back-pressure wait: blocks until the event completes, woken by the device. */
  waitEventHostSync(event: CudaEvent): void {
    waitForEventSync(this.#driver, event, this.#wait);
    markComplete(event);
    this.#events.release(event);
  }

  /**
   * Makes every stream wait (on the device) for the work enqueued so far on every other one, so
   * that each page freed in its own stream's order is freed after all its cross-stream uses too:
   * outside destroy the multi-stream's pins ensure that, destroy frees pinned pages as well.
   */
  join(): void {
    const driver = this.#driver;
    const streams = this.streams;
    const events = streams.map((stream) => this.#events.record(stream));
    for (const stream of streams) {
      for (const event of events) {
        driver.check(
          driver.symbols.cuStreamWaitEvent(stream.handle, event.handle, 0),
          `cuStreamWaitEvent(destroy, stream ${stream.index})`,
        );
      }
    }
    for (const event of events) this.#events.release(event);
  }

  /** Destroys every stream (queued work still completes, as `cuStreamDestroy` specifies). */
  destroy(): void {
    for (const stream of this.streams) this.#driver.symbols.cuStreamDestroy_v2(stream.handle);
    this.streams.length = 0;
  }
}
