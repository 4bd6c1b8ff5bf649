/**
 * The events of a {@linkcode CudaTimelineSignal} on one CUDA stream: timing-disabled events
 * recorded on the stream, queried with `cuEventQuery` and waited on by the server's host waits
 * (a parked non-blocking `cuEventSynchronize`, `_host_wait.ts`: no polling); `waitSync` blocks
 * in `cuEventSynchronize`, or with a timeout in a wait the device wakes (`_wake.ts`).
 *
 * @module
 */

import { DestroyedError } from "../../../core/errors.ts";
import type { CudaSignalEvents } from "../../../../sync/cuda_signal.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";
import { type CudaStream, hostWaiter, type WaitOwner } from "./streams.ts";
import { blockUntilComplete } from "./_wake.ts";

const CU_EVENT_DISABLE_TIMING = 2;

/**
 * Signal events on `stream`; every call throws `DESTROYED` once the owner was destroyed, and makes
 * the server's context current first (a signal is used whenever its user likes). A host wait
 * without a limit of its own is bounded by `timeoutMs` (the server's), then made again.
 */
export function signalEvents(
  driver: CudaDriver,
  stream: CudaStream,
  owner: WaitOwner,
  timeoutMs = 30_000,
): CudaSignalEvents<Deno.PointerValue> {
  const assertLive = () => {
    if (owner.destroyed) throw new DestroyedError("The CUDA server was destroyed");
    owner.bind();
  };
  return {
    create: () => {
      assertLive();
      const { symbols, out64 } = driver;
      driver.check(symbols.cuEventCreate(out64, CU_EVENT_DISABLE_TIMING), "cuEventCreate(signal)");
      return driver.pointerAt();
    },
    record: (event) => {
      assertLive();
      driver.check(
        driver.symbols.cuEventRecord(event, stream.handle),
        `cuEventRecord(signal, stream ${stream.index})`,
      );
    },
    query: (event) => {
      assertLive();
      const result = driver.symbols.cuEventQuery(event);
      if (result === CUDA_SUCCESS) return true;
      if (result === CUDA_ERROR_NOT_READY) return false;
      throw driver.error(result, "cuEventQuery(signal)");
    },
    waitHost: (event, limitMs, released) =>
      hostWaiter(driver, owner).wait(event, {
        timeoutMs: limitMs > 0 ? limitMs : timeoutMs,
        what: `a CUDA timeline signal's event (stream ${stream.index})`,
        owner,
        onReleased: released,
      }),
    synchronize: (event) => {
      assertLive();
      driver.check(driver.symbols.cuEventSynchronize(event), "cuEventSynchronize(signal)");
    },
    synchronizeWithin: (event, limitMs) => {
      assertLive();
      return blockUntilComplete(driver, owner, event, limitMs);
    },
    destroy: (event) => {
      owner.bind();
      driver.symbols.cuEventDestroy_v2(event);
    },
  };
}
