/**
 * Wakes for the host waits past {@linkcode MAX_PARKED} (`_host_wait.ts`), instead of a timer that
 * re-queries them: each such wait gets a private stream of its own holding a `cuStreamWaitEvent`
 * on its event and a `cuLaunchHostFunc` of libc's `sem_post` on one semaphore of the owner, and
 * one non-blocking `sem_timedwait` on that semaphore is parked on Deno's pool for all of them.
 * When it returns (a post, or {@linkcode CHECK_MS} without one), the owner re-queries its queued
 * waits. So however many waits are queued, one more thread is parked, and a wait settles within
 * the driver's host-function latency of its event's completion.
 *
 * - **A stream per wait**, not one shared: host functions of one stream run in order, so a wait
 *   on an event that completes late would hold back the posts of later ones. The stream is
 *   destroyed when its wait settles (`cuStreamDestroy` does not wait: work still queued on it,
 *   the host function included, completes first).
 * - **A post is a hint**, as in `_wake.ts`: the re-query decides; posts that arrive after their
 *   wait settled wake the owner once more, for nothing. Faults post nothing (the driver runs no
 *   host function after one), and the parked `cuEventSynchronize` calls of the owner return the
 *   error first; the periodic check covers the rest.
 * - **Where it cannot** (no libc semaphores, no `cuLaunchHostFunc`, a wait without an owner to
 *   make its context current), the owner re-queries on a 1 ms timer as before.
 *
 * @module
 */

import { CUDA_SUCCESS, type CudaDriver, unrefCall } from "../_ffi.ts";
import { type Libc, openLibc } from "../_libc.ts";
import { CHECK_MS, realtimeDeadline, returnSemaphore, takeSemaphore } from "./_wake.ts";

const CU_STREAM_NON_BLOCKING = 1;

/** How the overflow waits were woken, for tests: posts of the device, periodic checks. */
export const overflowCounts = { posts: 0, checks: 0, armed: 0 };

/** The overflow wakes of one owner (a server's host waits). */
export class OverflowWake {
  readonly #driver: CudaDriver;
  readonly #libc: Libc;
  readonly #sem: Uint8Array;
  /** The parked call's deadline: a buffer it reads must stay referenced while it runs. */
  readonly #deadline = new BigInt64Array(2);
  #sleeping: Promise<void> | undefined;
  #closed = false;

  private constructor(driver: CudaDriver, lib: Libc, sem: Uint8Array) {
    this.#driver = driver;
    this.#libc = lib;
    this.#sem = sem;
  }

  /** The wakes of an owner, `undefined` where the driver or libc cannot (module doc). */
  static open(driver: CudaDriver): OverflowWake | undefined {
    if (driver.symbols.cuLaunchHostFunc === null) return undefined;
    const lib = openLibc();
    const sem = lib === null ? null : takeSemaphore(lib);
    return sem === null ? undefined : new OverflowWake(driver, lib!, sem);
  }

  /**
   * Arms a post after `event`'s last record on a new private stream (the owner's context
   * current); the stream, to {@linkcode disarm} when the wait settles, or `null` where the driver
   * refused (the caller re-queries on a timer).
   */
  arm(event: Deno.PointerValue): Deno.PointerValue | null {
    const { symbols, out64 } = this.#driver;
    if (symbols.cuStreamCreate(out64, CU_STREAM_NON_BLOCKING) !== CUDA_SUCCESS) return null;
    const stream = Deno.UnsafePointer.create(out64[0]);
    const sem = Deno.UnsafePointer.of(this.#sem);
    if (
      symbols.cuStreamWaitEvent(stream, event, 0) !== CUDA_SUCCESS ||
      symbols.cuLaunchHostFunc!(stream, this.#libc.semPost, sem) !== CUDA_SUCCESS
    ) {
      symbols.cuStreamDestroy_v2(stream);
      return null;
    }
    overflowCounts.armed++;
    return stream;
  }

  /** Destroys a wait's private stream (the owner's context current); its post may still come. */
  disarm(stream: Deno.PointerValue): void {
    this.#driver.symbols.cuStreamDestroy_v2(stream);
  }

  /**
   * Resolves after the next post (every post pending is taken) or {@linkcode CHECK_MS}; one call
   * is parked at a time, shared by every caller. The parked call does not keep the process alive.
   */
  sleep(): Promise<void> {
    if (this.#sleeping !== undefined) return this.#sleeping;
    if (this.#closed) return Promise.resolve();
    const deadline = realtimeDeadline(performance.now() + CHECK_MS, this.#deadline);
    const call = unrefCall(this.#libc.symbols.sem_timedwait_async(this.#sem, deadline));
    return this.#sleeping = call.then((result) => {
      this.#sleeping = undefined;
      if (result === 0) overflowCounts.posts++;
      else overflowCounts.checks++;
      // Posts that piled up meanwhile: this wake stands for them.
      while (this.#libc.symbols.sem_trywait(this.#sem) === 0) { /* taken */ }
      if (this.#closed && this.#sleeping === undefined) returnSemaphore(this.#sem);
    });
  }

  /** Ends the parked call now (nothing is left to wake: no call outlives the waits). */
  interrupt(): void {
    if (this.#sleeping !== undefined) this.#libc.symbols.sem_post(this.#sem);
  }

  /**
   * The owner is gone: a parked call returns at once (posted here), and the semaphore goes back
   * for reuse once no call is parked on it.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sleeping === undefined) returnSemaphore(this.#sem);
    else this.interrupt();
  }
}
