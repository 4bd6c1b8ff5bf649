/**
 * The options and counters of `CudaServer`.
 *
 * @module
 */

import type { RuntimeOptions } from "../../core/config.ts";
import type { MemoryManagementOptions } from "../../memory/memory_management.ts";
import type { CudaDeviceOptions } from "./device.ts";

/**
 * Options of `CudaServer.create`.
 *
 * @example
 * ```ts
 * import type { CudaServerOptions } from "@gpucompute/runtime/cuda";
 * const options: CudaServerOptions = { ordinal: 0, maxStreams: 4, timeoutMs: 5_000 };
 * ```
 */
export interface CudaServerOptions extends CudaDeviceOptions, RuntimeOptions {
  /**
   * Memory pool options; `maxAllocationSize` defaults to the smaller of 2 GiB and device memory.
   * @default {{}}
   */
  memory?: MemoryManagementOptions;
  /**
   * Milliseconds a host wait (read, sync, profile, GC) may take before `TIMEOUT`; at most
   * 2^31 - 1 (about 24.8 days, the longest timer).
   * @default {30000}
   */
  timeoutMs?: number;
  /**
   * Cross-stream GC tasks (pinned shared memory) pending before a launch waits for the oldest.
   * Higher than the multi-stream's default of 8: a CUDA event completes a few microseconds after
   * its work, but the host only polls, so a deeper queue keeps launches from waiting on polls.
   * @default {64}
   */
  maxPendingGc?: number;
  /**
   * NVRTC's path, or paths in order of preference, for kernels given as CUDA C (`source`) and
   * the fallback of kernels whose PTX the driver refuses; else `$GPUCOMPUTE_NVRTC_LIBRARY`, else
   * `libnvrtc.so.<driver's CUDA major>` and older, then `libnvrtc.so`. An NVRTC no newer than
   * the driver is preferred (a newer one writes PTX the driver refuses). Optional: PTX kernels
   * that the driver loads never need it.
   * @default {undefined}
   */
  nvrtcLibrary?: string | readonly string[];
  /**
   * Use stream-ordered allocation (`cuMemAllocAsync`) where the device supports it.
   * @default {true}
   */
  memoryPools?: boolean;
  /**
   * Microseconds a host wait (read, sync, profile) keeps querying its event (`cuEventQuery`)
   * before it parks a `cuEventSynchronize` on Deno's blocking pool, as the driver's own
   * `CU_CTX_SCHED_AUTO` spins before it yields. The parked call's thread hop costs about 30 µs
   * on an H100: a 4-byte read after a launch took 52.0 µs parked at once, 19.2 µs with 30 µs of
   * spin, 18.9 µs for the raw driver calls (`bench/cuda_bench.ts`, docs/benchmarks.md). Work
   * that ends later costs at most this much host time more. `0` parks at once; at most 100,000 (0.1 s).
   * @default {30}
   */
  waitSpinUs?: number;
}

/**
 * Counters of a server, for tests and benchmarks.
 *
 * @example
 * ```ts
 * import type { CudaServerStats } from "@gpucompute/runtime/cuda";
 * const idle = (stats: CudaServerStats) => stats.pinnedInFlight === 0;
 * ```
 */
export interface CudaServerStats {
  /** Pinned staging buffers whose copies have not been seen complete. */
  readonly pinnedInFlight: number;
  /** `cuMemAllocHost` calls. */
  readonly pinnedAllocations: number;
  /** Modules loaded (`cuModuleLoadDataEx` calls). */
  readonly moduleLoads: number;
  /** Events created for synchronization. */
  readonly events: number;
  /** CUDA streams created. */
  readonly streams: number;
}

/**
 * `options.timeoutMs` (30 s by default), checked: `RangeError` unless positive and at most
 * 2^31 - 1 ms (a timer of a longer delay fires after 1 ms: every host wait would time out at once).
 */
export function hostWaitTimeout(options: CudaServerOptions): number {
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!(timeoutMs > 0 && timeoutMs <= 2 ** 31 - 1)) {
    throw new RangeError(`timeoutMs must be positive and at most 2^31 - 1, got ${timeoutMs}`);
  }
  return timeoutMs;
}

/**
 * Microseconds a host wait queries its event before it parks, where the server names none
 * ({@linkcode CudaServerOptions.waitSpinUs}): the parked call's thread hop is the cost of a small
 * read on a GPU (H100: 52.0 µs parked at once, 19.2 µs with this spin, 18.9 µs raw).
 * `bench/cuda_bench.ts` times both.
 */
export const DEFAULT_WAIT_SPIN_US = 30;

/**
 * `options.waitSpinUs` (30 µs by default), checked: `RangeError` unless from 0 to 100,000.
 */
export function hostWaitSpinUs(options: CudaServerOptions): number {
  const us = options.waitSpinUs ?? DEFAULT_WAIT_SPIN_US;
  if (!(us >= 0 && us <= 100_000)) {
    throw new RangeError(`waitSpinUs must be from 0 to 100000 (microseconds), got ${us}`);
  }
  return us;
}
