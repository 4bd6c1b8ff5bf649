/**
 * The background drain of a destroyed CUDA server (`CudaParts.destroy`): parked non-blocking
 * `cuEventSynchronize` calls on one event per stream, never on the event loop's thread.
 *
 * Invariant: an event a parked call was given, and the context it belongs to, stay alive until
 * that call returned. A non-blocking FFI call starts on a thread of Deno's pool some time after
 * it is made (microseconds when the pool is idle, later on a loaded machine); destroying its
 * event, or releasing the context, before it entered the driver would hand the driver a
 * destroyed handle.
 *
 * @module
 */

import { type CudaDriver, unrefCall } from "./_ffi.ts";
import type { CudaDevice } from "./device.ts";

/** Whether `promise` settled within `ms` (a timer keeps the process alive meanwhile). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  const settled = promise.then(() => true as const, () => true as const);
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a drain works with: the destroyed server's parts, lent by `CudaParts`. */
export interface DrainParts {
  readonly device: CudaDevice;
  readonly timeoutMs: number;
  /** One event per stream, recorded after the streams joined. */
  readonly events: Deno.PointerValue[];
  /** How the work ended: a sticky error met while waiting is pushed here. */
  readonly faults: unknown[];
  /** The server's parked host waits (reads and syncs in flight at destroy). */
  readonly waiter: {
    readonly inFlight: number;
    parkedSettled(): Promise<void>;
    promptCalls(): Promise<unknown>[];
  };
  /** The work already drained (`destroy`'s grace): only parked host waits are waited for. */
  readonly idle: boolean;
  /** Whether an event is still busy after a blocking wait of up to `ms` (faults pushed). */
  busy(ms: number): boolean;
  /** Destroys the events and releases the context (on a pool thread when `background`). */
  release(background: boolean): void;
  /** Settles the server's `ended` promise: drained, or not within the timeout. */
  end(drained: boolean): void;
}

/**
 * Waits for the streams' last work, at most the wait timeout, and for the parked host waits that
 * use the server's events, then releases: at once when drained, else (a hung device, a wait on
 * another device's event that never completes) on a thread of Deno's pool, which never keeps the
 * process alive. Where the work already drained (`idle`), it only waits for the host waits parked
 * on complete events (they return as soon as Deno's pool starts them): no timer, no new call.
 *
 * A server opened on the device meanwhile finishes the drain first, synchronously
 * (`CudaDevice.open`: the call is synchronous): it blocks for the work (at most the timeout) and
 * settles `ended`. The release waits for the parked calls (the invariant above): until they
 * returned, the new server shares the context, which the release then only un-retains. The
 * asynchronous path (`createClient`) awaits the drain instead (`CudaDevice.drainsSettled`), so
 * that its server gets a context of its own (a fresh one after a sticky error, where the driver
 * gives one).
 */
export async function drainInBackground(parts: DrainParts): Promise<void> {
  const { device, events, faults, waiter } = parts;
  const driver: CudaDriver = device.driver;
  const waits = driver.waits;
  const settled = Promise.withResolvers<void>();
  let parked = 0; // drain calls made and not returned
  let ended = false;
  let released = false;
  const end = (drained: boolean) => {
    if (ended) return;
    ended = true;
    parts.end(drained);
  };
  const release = (background: boolean) => {
    if (released) return;
    released = true;
    parts.release(background);
  };
  const unregister = device.pendingDrain(() => {
    if (ended) return;
    const drained = !parts.busy(parts.timeoutMs);
    end(drained);
    if (parked === 0 && waiter.promptCalls().length === 0) release(!drained);
  }, settled.promise);
  if (parts.idle) end(true);
  // Any result ends the wait: complete, or a sticky error that ends the context's work.
  const synchronized = parts.idle
    ? Promise.resolve()
    : waits === undefined
    ? new Promise<never>(() => {})
    : Promise.all(events.map(async (event) => {
      parked++;
      try {
        const result = await unrefCall(waits.cuEventSynchronize(event));
        if (result !== 0) faults.push(driver.error(result, "cuEventSynchronize(drain)"));
      } finally {
        parked--;
      }
    }));
  try {
    // Keeps the process alive for the drain, at most the timeout (the calls are unref'd).
    const drained = parts.idle || await within(synchronized, parts.timeoutMs);
    // Once the work drained, the host waits on the server's events return as soon as they run.
    // Bounded all the same: an event of another server (a timeline wait on its mark) complete
    // now may be recorded again before the call starts, and wait for that work.
    if (drained) await within(Promise.allSettled(waiter.promptCalls()), parts.timeoutMs);
    unregister(); // before the release: a server opened from now on retains a context of its own
    end(drained);
    release(!drained);
    await parkedReturned(parts, synchronized);
  } finally {
    unregister(); // idempotent: also where a step above threw
    settled.resolve(); // a new client of the device waits for it (`CudaDevice.drainsSettled`)
  }
}

/**
 * Resolves once the parked calls returned, at most the wait timeout: the release ends those on
 * events that never complete (a wait that timed out, a hung device) with
 * `CUDA_ERROR_CONTEXT_IS_DESTROYED` on a thread of Deno's pool, shortly after; a test's sanitizer
 * looks for calls left running.
 */
export function parkedReturned(
  parts: Pick<DrainParts, "waiter" | "timeoutMs">,
  synchronized?: Promise<unknown>,
): Promise<unknown> {
  if (synchronized === undefined && parts.waiter.inFlight === 0) return Promise.resolve();
  return within(Promise.all([synchronized, parts.waiter.parkedSettled()]), parts.timeoutMs);
}
