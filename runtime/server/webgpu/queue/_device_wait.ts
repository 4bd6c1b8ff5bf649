/**
 * {@linkcode awaitDevice}: how the WebGPU server waits on the device (a map, a work-done
 * callback) without letting the wait outlive a destroy or a device loss.
 *
 * @module
 */

import { ComputeError, DeviceLostError } from "../../../core/errors.ts";

/** How often, 5 ms apart, a failed wait looks for the device's loss before it reports its own. */
const LOSS_POLLS = 20;

/**
 * Awaits a device promise, then fails with the server's closed error (`DESTROYED`,
 * `DEVICE_LOST`) if it closed meanwhile. It waits for the promise to settle rather than racing
 * it (a map or a work-done callback settles soon after destroy or loss, and a read's staging
 * buffer is destroyed with the server), so no device operation outlives the call.
 *
 * A wait that fails on its own (Deno's `OperationError: validation error occurred` for a map of
 * the runtime's own staging buffer, which wgpu refuses only on a device no longer valid) is a
 * `DEVICE_LOST` naming `what` was waited for; it first gives the device's `lost` a moment to
 * resolve (it may lag the failed map), so the error carries the loss's own message where there
 * is one.
 */
export async function awaitDevice<T>(
  promise: Promise<T>,
  closed: (cause?: unknown) => ComputeError | undefined,
  what = "a wait on the device",
): Promise<T> {
  let value: T;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof ComputeError) throw error;
    // A map of our own staging buffer fails only when it was destroyed or the device is gone.
    throw closed(error) ?? await lossObserved(closed, error) ??
      new DeviceLostError(
        `The WebGPU device was lost: ${what} failed (${error}); WebGPU refuses it only on a ` +
          `device that is no longer valid, as after a fault in work submitted before it (an ` +
          `out-of-bounds access the driver did not contain, say)`,
        { cause: error },
      );
  }
  const error = closed();
  if (error !== undefined) throw error;
  return value;
}

/** The server's closed error once it is observed within {@linkcode LOSS_POLLS} polls. */
async function lossObserved(
  closed: (cause?: unknown) => ComputeError | undefined,
  cause: unknown,
): Promise<ComputeError | undefined> {
  for (let i = 0; i < LOSS_POLLS; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const error = closed(cause);
    if (error !== undefined) return error;
  }
  return undefined;
}
