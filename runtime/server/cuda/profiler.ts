/**
 * Profiling windows of the CUDA server, timed by the device: a window records a timing event on
 * its stream when it opens and another when it closes; its duration is `cuEventElapsedTime`
 * between them once the closing event completed (polled, as every host wait). Windows may nest
 * and overlap; each owns its events, which return to a pool of timing events (created without
 * `CU_EVENT_DISABLE_TIMING`) once measured.
 *
 * @module
 */

import { RuntimeError } from "../../core/errors.ts";
import type { ProfileDuration, ProfilingToken } from "../server.ts";
import { CUDA_SUCCESS, type CudaDriver } from "./_ffi.ts";
import { type CudaStream, type HostWaitOptions, pollEvent } from "./_stream.ts";

/**
 * Opens and closes device-timed profiling windows.
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * const token = server.startProfile(0);
 * const { milliseconds, timing } = await server.endProfile(0, token);
 * console.log(milliseconds, timing); // ... "device"
 * ```
 */
export class CudaProfiler {
  readonly #driver: CudaDriver;
  readonly #wait: HostWaitOptions;
  readonly #free: Deno.PointerValue[] = [];
  readonly #all: Deno.PointerValue[] = [];
  readonly #windows = new Map<number, Deno.PointerValue>();
  #next = 0;

  /** Creates the profiler; host waits use `wait`. */
  constructor(driver: CudaDriver, wait: HostWaitOptions) {
    this.#driver = driver;
    this.#wait = wait;
  }

  /** Open windows. */
  get open(): number {
    return this.#windows.size;
  }

  /** Opens a window on `stream`. */
  start(stream: CudaStream): ProfilingToken {
    const event = this.#record(stream);
    const id = this.#next++;
    this.#windows.set(id, event);
    return { id };
  }

  /** Closes a window; `PROFILE_NOT_REGISTERED` for an unknown or closed token. */
  async end(stream: CudaStream, token: ProfilingToken): Promise<ProfileDuration> {
    const start = this.#windows.get(token?.id);
    if (start === undefined) {
      throw new RuntimeError(
        "PROFILE_NOT_REGISTERED",
        `Profiling token ${token?.id} is not an open window of this server`,
      );
    }
    this.#windows.delete(token.id);
    const end = this.#record(stream);
    await pollEvent(this.#driver, end, { ...this.#wait, what: "The profiling window's end" });
    const { symbols } = this.#driver;
    const ms = new Float32Array(1);
    const elapsed = symbols.cuEventElapsedTime_v2 ?? symbols.cuEventElapsedTime;
    const result = elapsed(ms, start, end);
    this.#free.push(start, end);
    this.#driver.check(result, "cuEventElapsedTime");
    return { milliseconds: ms[0], timing: "device" };
  }

  /** Destroys every timing event. */
  destroy(): void {
    for (const event of this.#all) this.#driver.symbols.cuEventDestroy_v2(event);
    this.#all.length = 0;
    this.#free.length = 0;
    this.#windows.clear();
  }

  #record(stream: CudaStream): Deno.PointerValue {
    const { symbols, out64 } = this.#driver;
    let event = this.#free.pop();
    if (event === undefined) {
      this.#driver.check(symbols.cuEventCreate(out64, 0), "cuEventCreate(timing)");
      event = this.#driver.pointerAt();
      this.#all.push(event);
    }
    const result = symbols.cuEventRecord(event, stream.handle);
    if (result !== CUDA_SUCCESS) {
      this.#free.push(event);
      throw this.#driver.error(result, `cuEventRecord(timing, stream ${stream.index})`);
    }
    return event;
  }
}
