/**
 * Host waits without a timer loop: an event not complete at the first `cuEventQuery` is waited on
 * by `cuEventSynchronize` bound as a `nonblocking` FFI symbol (Deno runs it on a thread of its
 * blocking pool and resolves a promise when it returns), so a wait settles within microseconds of
 * the event's completion.
 *
 * - **No current context needed.** `cuEventSynchronize` acts in the event's own context (the
 *   simulated driver does the same and tests it); a pool thread has no current context. A driver
 *   that answers `CUDA_ERROR_INVALID_CONTEXT` there is remembered and its waits poll instead.
 * - **Bounded.** At most {@linkcode MAX_PARKED} synchronizes are parked per owner (server): Deno's
 *   pool is shared by every non-blocking call. Further waits queue; each returning synchronize
 *   re-queries the queue (events of one stream complete in order, so the queue often completes
 *   with it), and so does a post of the device after any queued wait's event (`_overflow_wake.ts`:
 *   one more parked call for the whole queue). Where the device cannot post, the queue is
 *   re-queried with a 1 ms backoff instead, and each returning synchronize parks the next.
 * - **Timeouts and destroy.** A wait past its `timeoutMs` rejects `TIMEOUT` at once while its
 *   parked thread may stay blocked (its slot is taken until the driver returns); destroying the
 *   owner rejects every pending wait with `DESTROYED` at once.
 * - **Exit.** A parked call does not keep the process alive (its promise is unref'd where Deno
 *   allows it); a pending wait does through its timeout timer, which is bounded.
 *
 * @module
 */

import { DestroyedError, TimeoutError } from "../../../core/errors.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, type CudaDriver, unrefCall } from "../_ffi.ts";
import { OverflowWake } from "./_overflow_wake.ts";
import { DEFAULT_WAIT_SPIN_US } from "../options.ts";

/**
 * The waits that settled while spinning (no synchronize parked), for tests and benchmarks. Not
 * exported from the package.
 */
export const hostWaitSpin = { caught: 0 };

/** Synchronizes parked on Deno's blocking pool per owner at most. */
export const MAX_PARKED = 16;
const CUDA_ERROR_INVALID_CONTEXT = 201;
/** Backoff of the polling of queued waits while every slot is taken, in milliseconds. */
const BACKOFF_MS = 1;

/** What a wait needs of the server it waits for: see `WaitOwner` in `streams.ts`. */
export interface WaiterOwner {
  readonly destroyed: boolean;
  bind(): void;
  /** Microseconds a wait queries before it parks. @default {DEFAULT_WAIT_SPIN_US} */
  readonly waitSpinUs?: number;
}

/** Options of one wait. */
export interface WaitRequest {
  readonly timeoutMs: number;
  readonly what?: string;
  readonly owner?: WaiterOwner;
  /** `false`: no spin before parking (a wait nobody awaits). @default {true} */
  readonly spin?: boolean;
  /**
   * Called once no driver call of this wait uses the event any more: at once for a wait that
   * settled unparked, else when its parked `cuEventSynchronize` returned, which may be after a
   * `TIMEOUT` or `DESTROYED` (never, on an event that never completes). Until then the event
   * must not be destroyed.
   */
  readonly onReleased?: () => void;
}

interface Waiter {
  readonly handle: Deno.PointerValue;
  readonly request: WaitRequest;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  settled: boolean;
  /** A parked call uses the event now. */
  parked: boolean;
  /** Queued: the private stream of its post (`_overflow_wake.ts`). */
  armed?: Deno.PointerValue;
}

/** Drivers whose `cuEventSynchronize` needs a current context: their waits poll. */
const needsContext = new WeakSet<CudaDriver>();

/** The waits of one owner (a server), bounded in parked threads. */
export class HostWaiter {
  readonly #driver: CudaDriver;
  readonly #pending = new Set<Waiter>();
  /** Parked calls not returned, with the event each synchronizes (none for the posts' sleep). */
  readonly #inFlight = new Map<Promise<unknown>, Deno.PointerValue | undefined>();
  #queue: Waiter[] = [];
  #parked = 0;
  #poll: ReturnType<typeof setTimeout> | undefined;
  #destroyed = false;
  /** The posts of queued waits; `null` where the device cannot post (they are polled). */
  #overflow: OverflowWake | null | undefined;
  /** Queued waits armed for a post, not settled. */
  #armed = 0;
  /** `cuEventSynchronize` calls made (for tests: a wait that polls makes none). */
  parkedCalls = 0;

  constructor(driver: CudaDriver) {
    this.#driver = driver;
  }

  /** Waits pending now. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Resolves once `handle`'s last record completed; rejects with the driver's error, `TIMEOUT`
   * after `timeoutMs`, or `DESTROYED`.
   */
  wait(handle: Deno.PointerValue, request: WaitRequest): Promise<void> {
    if (this.#destroyed || request.owner?.destroyed) {
      request.onReleased?.();
      return Promise.reject(destroyed());
    }
    const done = this.#spin(handle, request);
    if (done !== false) request.onReleased?.();
    if (done instanceof Error) return Promise.reject(done);
    if (done) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        handle,
        request,
        resolve,
        reject,
        timer: undefined,
        settled: false,
        parked: false,
      };
      waiter.timer = setTimeout(() => {
        const what = request.what ?? "an event";
        this.#settle(waiter, new TimeoutError(what, request.timeoutMs, "it is not complete"));
      }, request.timeoutMs);
      this.#pending.add(waiter);
      if (this.#parked < MAX_PARKED && !needsContext.has(this.#driver)) this.#park(waiter);
      else this.#enqueue(waiter);
    });
  }

  /** Parked calls not returned yet (some may belong to waits already settled). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves once every parked call returned (the background drain of a destroyed server). */
  async parkedSettled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.keys()]);
  }

  /**
   * The parked `cuEventSynchronize` calls that return as soon as they run: those on an event
   * already complete (or failed). Deno's pool may not have started them yet, so their events must
   * outlive them (`_drain.ts`). A call on an event not complete (another context's) may not
   * return soon; the posts' sleep uses no event (a semaphore of its own, kept until it returned).
   */
  promptCalls(): Promise<unknown>[] {
    const { symbols } = this.#driver;
    return [...this.#inFlight].filter(([, event]) =>
      event !== undefined && symbols.cuEventQuery(event) !== CUDA_ERROR_NOT_READY
    ).map(([call]) => call);
  }

  /** Rejects every pending wait with `DESTROYED` now; later waits reject at once. */
  destroy(): void {
    this.#destroyed = true;
    for (const waiter of [...this.#pending]) this.#settle(waiter, destroyed());
    this.#queue = [];
    if (this.#poll !== undefined) clearTimeout(this.#poll);
    this.#poll = undefined;
    this.#overflow?.close();
  }

  #park(waiter: Waiter): void {
    const { waits } = this.#driver;
    if (waits === undefined) return this.#enqueue(waiter);
    this.#parked++;
    this.parkedCalls++;
    waiter.parked = true;
    const call = unrefCall(waits.cuEventSynchronize(waiter.handle));
    this.#inFlight.set(call, waiter.handle);
    call.then((result) => {
      this.#inFlight.delete(call);
      this.#parked--;
      waiter.parked = false;
      if (waiter.settled) waiter.request.onReleased?.(); // settled meanwhile (timeout, destroy)
      if (result === CUDA_ERROR_INVALID_CONTEXT) {
        needsContext.add(this.#driver); // this driver wants a current context: poll from now
        if (!waiter.settled) this.#enqueue(waiter);
      } else if (result === CUDA_SUCCESS) {
        this.#settle(waiter, undefined);
      } else {
        // Resumed from the event loop: the error (a fault's launches) is of the owner's context.
        waiter.request.owner?.bind();
        this.#settle(waiter, this.#driver.error(result, "cuEventSynchronize"));
      }
      this.#pump();
    });
  }

  #enqueue(waiter: Waiter): void {
    this.#queue.push(waiter);
    if (this.#arm(waiter)) this.#sleep();
    else this.#schedulePoll();
  }

  /** Arms the device's post after a queued wait's event; false where it cannot (it is polled). */
  #arm(waiter: Waiter): boolean {
    const owner = waiter.request.owner;
    if (owner === undefined || owner.destroyed || this.#overflow === null) return false;
    this.#overflow ??= OverflowWake.open(this.#driver) ?? null;
    if (this.#overflow === null) return false;
    owner.bind();
    waiter.armed = this.#overflow.arm(waiter.handle) ?? undefined;
    if (waiter.armed === undefined) return false;
    this.#armed++;
    return true;
  }

  /** Parks the wait for the posts (one for the queue); a wake re-queries the queue. */
  #sleep(): void {
    const overflow = this.#overflow;
    if (overflow == null || this.#destroyed) return;
    const call = overflow.sleep();
    if (this.#inFlight.has(call)) return;
    this.#inFlight.set(call, undefined);
    call.then(() => {
      this.#inFlight.delete(call);
      this.#pump();
      if (this.#armed > 0) this.#sleep();
    });
  }

  /** Settles the queued waits whose event completed; parks the next ones in free slots. */
  #pump(): void {
    if (this.#destroyed) return;
    const still: Waiter[] = [];
    for (const waiter of this.#queue) {
      if (waiter.settled) continue;
      const done = this.#query(waiter.handle, waiter.request.owner);
      if (done === false) still.push(waiter);
      else this.#settle(waiter, done === true ? undefined : done);
    }
    this.#queue = still;
    // Waits the device posts for stay queued; the others take the free slots.
    for (let i = 0; i < this.#queue.length && this.#parked < MAX_PARKED; i++) {
      if (this.#queue[i].armed !== undefined || needsContext.has(this.#driver)) continue;
      this.#park(this.#queue.splice(i--, 1)[0]);
    }
    this.#schedulePoll();
  }

  #schedulePoll(): void {
    if (this.#poll !== undefined || this.#destroyed) return;
    // Nothing to poll: the posts wake the armed waits.
    if (this.#queue.every((waiter) => waiter.settled || waiter.armed !== undefined)) return;
    this.#poll = setTimeout(() => {
      this.#poll = undefined;
      this.#pump();
    }, BACKOFF_MS);
  }

  /**
   * `#query`, repeated while the event is not complete for up to the owner's `waitSpinUs`
   * microseconds ({@linkcode DEFAULT_WAIT_SPIN_US} without an owner; none where the request
   * says `spin: false`). A bounded spin, as the
   * driver's `CU_CTX_SCHED_AUTO` spins: never a timer loop.
   */
  #spin(handle: Deno.PointerValue, request: WaitRequest): boolean | Error {
    const owner = request.owner;
    let done = this.#query(handle, owner);
    const us = request.spin === false ? 0 : owner?.waitSpinUs ?? DEFAULT_WAIT_SPIN_US;
    if (done !== false || us <= 0) return done;
    const until = performance.now() + us / 1000;
    while (done === false && performance.now() < until) done = this.#query(handle, owner);
    if (done !== false) hostWaitSpin.caught++; // settled while spinning: no synchronize parked
    return done;
  }

  /** One `cuEventQuery`: true when complete, false when not ready, else the driver's error. */
  #query(handle: Deno.PointerValue, owner: WaiterOwner | undefined): boolean | Error {
    if (owner?.destroyed) return destroyed();
    owner?.bind(); // resumed from the event loop: another server's context may be current
    const result = this.#driver.symbols.cuEventQuery(handle);
    if (result === CUDA_SUCCESS) return true;
    if (result === CUDA_ERROR_NOT_READY) return false;
    return this.#driver.error(result, "cuEventQuery");
  }

  #settle(waiter: Waiter, error: unknown): void {
    if (waiter.settled) return;
    waiter.settled = true;
    clearTimeout(waiter.timer);
    this.#pending.delete(waiter);
    if (waiter.armed !== undefined) {
      if (!this.#destroyed) waiter.request.owner?.bind(); // at destroy its context is current
      this.#overflow?.disarm(waiter.armed);
      waiter.armed = undefined;
      if (--this.#armed === 0) this.#overflow?.interrupt(); // no parked call outlives the waits
    }
    if (!waiter.parked) waiter.request.onReleased?.();
    if (error !== undefined) waiter.reject(error);
    else if (waiter.request.owner?.destroyed) waiter.reject(destroyed());
    else waiter.resolve();
  }
}

function destroyed(): DestroyedError {
  return new DestroyedError("The CUDA server was destroyed during a host wait");
}
