/**
 * Blocking host waits that the device wakes, instead of a sleep loop: where the calling thread
 * must block (the GC's back-pressure, a dynamic cube count, a timeline signal's `waitSync` with a
 * timeout, `destroy`'s grace) and a limit must hold (the driver's `cuEventSynchronize` has none),
 * the wait enqueues on a private stream of the server a `cuStreamWaitEvent` on the event and a
 * `cuLaunchHostFunc` of libc's `sem_post` on a semaphore of its own, then blocks in
 * `sem_timedwait`. The driver calls `sem_post` on its own thread once the event completed, so the
 * wait returns within the driver's host-function latency of the completion.
 *
 * - **A wake is a hint.** After every wake, and after every {@linkcode CHECK_MS} without one,
 *   `cuEventQuery` alone decides: complete, the driver's error, or not yet. Posts left by waits
 *   that ended another way are drained before a wait arms, and cost one more query at worst.
 * - **Faults.** The driver calls no host function once the context faulted (cuda.h): the query
 *   every {@linkcode CHECK_MS} sees the fault.
 * - **Timeouts.** A wait that timed out leaves its host function behind an event that may never
 *   complete, holding back every later wait on the private stream: the stream is then replaced
 *   (the old one is destroyed, its queued work left to the driver).
 * - **Where it cannot.** Without libc's semaphores (another C library, an `--allow-ffi` scoped to
 *   the driver's path) or `cuLaunchHostFunc` (drivers before CUDA 10.0, or one refusing it), the
 *   waits poll `cuEventQuery` with 50 µs naps instead.
 * - **Lifetime.** A semaphore's memory is never freed: a host function of a destroyed server may
 *   still post it. Semaphores of destroyed servers are reused by later ones.
 *
 * @module
 */

import { DestroyedError } from "../../../core/errors.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";
import { type Libc, openLibc } from "../_libc.ts";

/** How often a wait that no post woke queries its event (for faults), in milliseconds. */
export const CHECK_MS = 50;
/** `sem_t`'s size on glibc and musl (32 bytes on 64-bit Linux), rounded up. */
const SEM_BYTES = 64;
const CU_STREAM_NON_BLOCKING = 1;

/** What a wait needs of its server: see `WaitOwner` in `streams.ts`. */
export interface WakeOwner {
  readonly destroyed: boolean;
  bind(): void;
}

/**
 * How the waits ended, for tests: `posts` woken by the device, `checks` by the periodic check
 * ({@linkcode CHECK_MS}), `naps` polls where the device cannot wake them.
 */
export const wakeCounts = { posts: 0, checks: 0, naps: 0 };

/** Semaphores of destroyed servers, for reuse (never freed: module doc). */
const spare: Uint8Array[] = [];
/**
 * Every semaphore made: a host function may post one after its server was dropped without
 * `destroy` (its memory must outlive any garbage collection of the server).
 */
const made: Uint8Array[] = [];
const nap = new Int32Array(new SharedArrayBuffer(4));

/** A semaphore at 0 (a spare one where there is), `null` where `sem_init` fails. */
export function takeSemaphore(lib: Libc): Uint8Array | null {
  let sem = spare.pop();
  if (sem === undefined) made.push(sem = new Uint8Array(SEM_BYTES));
  if (lib.symbols.sem_init(sem, 0, 0) === 0) return sem;
  spare.push(sem);
  return null;
}

/** Keeps a semaphore for reuse: a host function may still post it, so it is never freed. */
export function returnSemaphore(sem: Uint8Array): void {
  spare.push(sem);
}

/** Writes `untilMs` (the `performance.now()` clock) as a `CLOCK_REALTIME` timespec into `out`. */
export function realtimeDeadline(untilMs: number, out: BigInt64Array): BigInt64Array {
  const at = performance.timeOrigin + Math.max(performance.now(), untilMs); // ms since the epoch
  const seconds = Math.floor(at / 1000);
  out[0] = BigInt(seconds);
  out[1] = BigInt(Math.floor((at - seconds * 1000) * 1e6));
  return out;
}

/** One server's device-woken waits. */
class Wake {
  readonly #driver: CudaDriver;
  readonly #libc: Libc;
  readonly #sem: Uint8Array;
  readonly #deadline = new BigInt64Array(2);
  #stream: Deno.PointerValue = null;
  /** False once arming failed: this server's waits poll. */
  usable = true;

  constructor(driver: CudaDriver, lib: Libc) {
    this.#driver = driver;
    this.#libc = lib;
    const sem = takeSemaphore(lib);
    this.#sem = sem ?? new Uint8Array(SEM_BYTES);
    if (sem === null) this.usable = false;
  }

  /**
   * Arms a post of the semaphore after `event`'s last record (the owner's context current);
   * false where the driver refused (the caller polls).
   */
  arm(event: Deno.PointerValue): boolean {
    const { symbols, out64 } = this.#driver;
    const launchHostFunc = symbols.cuLaunchHostFunc;
    if (launchHostFunc === null) return this.usable = false;
    while (this.#libc.symbols.sem_trywait(this.#sem) === 0) { /* a post of an earlier wait */ }
    if (this.#stream === null) {
      if (symbols.cuStreamCreate(out64, CU_STREAM_NON_BLOCKING) !== CUDA_SUCCESS) {
        return this.usable = false;
      }
      this.#stream = Deno.UnsafePointer.create(out64[0]);
    }
    if (symbols.cuStreamWaitEvent(this.#stream, event, 0) !== CUDA_SUCCESS) return false;
    const sem = Deno.UnsafePointer.of(this.#sem);
    if (launchHostFunc(this.#stream, this.#libc.semPost, sem) !== CUDA_SUCCESS) {
      // The wait enqueued before it completes on its own: the stream stays usable.
      return this.usable = false;
    }
    return true;
  }

  /** Blocks until a post or `untilMs` (the `performance.now()` clock), whichever is first. */
  sleep(untilMs: number): void {
    const deadline = realtimeDeadline(untilMs, this.#deadline);
    // 0: posted; -1: timed out or interrupted.
    if (this.#libc.symbols.sem_timedwait(this.#sem, deadline) === 0) wakeCounts.posts++;
    else wakeCounts.checks++;
  }

  /** A wait timed out: its host function may never run; later waits take a new stream. */
  clogged(): void {
    if (this.#stream !== null) this.#driver.symbols.cuStreamDestroy_v2(this.#stream);
    this.#stream = null;
  }

  /** Destroys the stream (the owner's context current) and keeps the semaphore for reuse. */
  release(): void {
    this.clogged();
    returnSemaphore(this.#sem);
  }
}

const wakes = new WeakMap<object, Wake | null>();

function wakeOf(driver: CudaDriver, owner: object): Wake | null {
  let wake = wakes.get(owner);
  if (wake === undefined) {
    const lib = openLibc();
    wake = lib === null ? null : new Wake(driver, lib);
    wakes.set(owner, wake);
  }
  return wake !== null && wake.usable ? wake : null;
}

/**
 * Blocks the calling thread until `event`'s last record completes (true) or `timeoutMs` passed
 * (false); throws the driver's error for a failed event, `DESTROYED` once `owner` is destroyed.
 * Woken by the device where it can, else polling with 50 µs naps (module doc).
 */
export function blockUntilComplete(
  driver: CudaDriver,
  owner: WakeOwner | undefined,
  event: Deno.PointerValue,
  timeoutMs: number,
): boolean {
  const deadline = performance.now() + timeoutMs;
  const query = (): boolean => {
    if (owner?.destroyed) {
      throw new DestroyedError(`The CUDA server was destroyed during a host wait`);
    }
    owner?.bind();
    const result = driver.symbols.cuEventQuery(event);
    if (result === CUDA_SUCCESS) return true;
    if (result !== CUDA_ERROR_NOT_READY) throw driver.error(result, "cuEventQuery");
    return false;
  };
  if (query()) return true;
  const wake = owner === undefined ? null : wakeOf(driver, owner);
  const armed = wake !== null && wake.arm(event);
  for (;;) {
    const now = performance.now();
    if (now >= deadline) {
      if (armed) wake.clogged();
      return false;
    }
    if (armed) wake.sleep(Math.min(deadline, now + CHECK_MS));
    else {
      wakeCounts.naps++;
      Atomics.wait(nap, 0, 0, Math.min(0.05, deadline - now));
    }
    if (query()) return true;
  }
}

/** Releases `owner`'s private stream (its context current), at its destroy. */
export function releaseWake(owner: object): void {
  const wake = wakes.get(owner);
  wakes.set(owner, null);
  try {
    wake?.release();
  } catch { /* released with the context */ }
}
