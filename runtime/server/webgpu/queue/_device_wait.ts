/**
 * {@linkcode awaitDevice}: how the WebGPU server waits on the device (a map, a work-done
 * callback) without letting the wait outlive a destroy or a device loss.
 *
 * @module
 */

import { ComputeError, DeviceLostError } from "../../../core/errors.ts";

/**
 * Awaits a device promise, then fails with the server's closed error (`DESTROYED`,
 * `DEVICE_LOST`) if it closed meanwhile. It waits for the promise to settle rather than racing
 * it (a map or a work-done callback settles soon after destroy or loss, and a read's staging
 * buffer is destroyed with the server), so no device operation outlives the call.
 */
export async function awaitDevice<T>(
  promise: Promise<T>,
  closed: (cause?: unknown) => ComputeError | undefined,
): Promise<T> {
  let value: T;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof ComputeError) throw error;
    // A map of our own staging buffer fails only when it was destroyed or the device is gone.
    throw closed(error) ??
      new DeviceLostError(`The WebGPU device was lost (${error})`, { cause: error });
  }
  const error = closed();
  if (error !== undefined) throw error;
  return value;
}
