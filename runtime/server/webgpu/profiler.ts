/**
 * Profiling windows of the WebGPU server.
 *
 * Windows are identified by tokens and may nest and overlap. With `timestamp-query`, every compute
 * pass begun while at least one window is open gets `timestampWrites` (two query slots); a
 * window's device time is the sum of (end - begin) of the passes begun inside it. Copies are not
 * timed (they are not in passes). The server executes every stream when a window opens and when
 * it closes, so passes never straddle a window boundary. Closing resolves the window's slots with
 * `resolveQuerySet` into one buffer, copies it into one mappable buffer and maps it once.
 * Query slots are recycled when no window is open. Without `timestamp-query` the duration is the
 * wall clock from `start` to the completion of the submitted work (`timing: "system"`).
 *
 * @module
 */

import { RuntimeError } from "../../core/errors.ts";
import type { ProfileDuration, ProfilingToken } from "../server.ts";
import { BufferUsage } from "./_buffer_usage.ts";

const PASSES_PER_SET = 128; // 256 query slots per set

interface Window {
  readonly firstPass: number;
  readonly startedAt: number;
}

/**
 * Opens and closes profiling windows; reports device or wall-clock durations in milliseconds.
 *
 * @example
 * ```ts ignore
 * import { WebGpuProfiler } from "@gpucompute/runtime/webgpu";
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * using profiler = new WebGpuProfiler(device, { timestamps: false });
 * const token = profiler.start();
 * const duration = await profiler.end(token);
 * console.log(duration.milliseconds, duration.timing);
 * ```
 */
export class WebGpuProfiler implements Disposable {
  readonly #device: GPUDevice;
  readonly #timestamps: boolean;
  readonly #windows = new Map<number, Window>();
  readonly #sets: GPUQuerySet[] = [];
  #nextToken = 0;
  #nextPass = 0;
  #destroyed = false;
  /** Buffers mapped by `end` (one per closed device-timed window). */
  maps = 0;

  /** Creates the profiler; `timestamps` requires the device's `timestamp-query` feature. */
  constructor(device: GPUDevice, options: { timestamps: boolean }) {
    this.#device = device;
    this.#timestamps = options.timestamps;
  }

  /** True when durations come from the device timer. */
  get deviceTimer(): boolean {
    return this.#timestamps;
  }

  /** Number of open windows. */
  get open(): number {
    return this.#windows.size;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Timestamp writes for a pass begun now, or `undefined` when no window is open. */
  passTimestamps(): GPUComputePassTimestampWrites | undefined {
    if (!this.#timestamps || this.#windows.size === 0 || this.#destroyed) return undefined;
    const pass = this.#nextPass++;
    const set = Math.floor(pass / PASSES_PER_SET);
    while (this.#sets.length <= set) {
      this.#sets.push(
        this.#device.createQuerySet({ type: "timestamp", count: PASSES_PER_SET * 2 }),
      );
    }
    const slot = (pass % PASSES_PER_SET) * 2;
    return {
      querySet: this.#sets[set],
      beginningOfPassWriteIndex: slot,
      endOfPassWriteIndex: slot + 1,
    };
  }

  /** Opens a window. */
  start(): ProfilingToken {
    this.#assertLive();
    if (this.#windows.size === 0) this.#nextPass = 0; // no window reads the old slots
    const id = this.#nextToken++;
    this.#windows.set(id, { firstPass: this.#nextPass, startedAt: performance.now() });
    return { id };
  }

  /**
   * Closes a window (synchronously: later passes are not in it) and measures it.
   * `PROFILE_NOT_REGISTERED` for an unknown or closed token.
   */
  end(token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertLive();
    const window = this.#windows.get(token?.id);
    if (window === undefined) {
      throw new RuntimeError(
        "PROFILE_NOT_REGISTERED",
        `Profiling token ${token?.id} is unknown or already closed`,
      );
    }
    this.#windows.delete(token.id);
    if (!this.#timestamps) return this.#wallClock(window);
    return this.#deviceTime(window.firstPass, this.#nextPass);
  }

  /** Destroys the query sets. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const set of this.#sets) set.destroy();
    this.#sets.length = 0;
    this.#windows.clear();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  async #wallClock(window: Window): Promise<ProfileDuration> {
    await this.#device.queue.onSubmittedWorkDone();
    return { milliseconds: performance.now() - window.startedAt, timing: "system" };
  }

  async #deviceTime(first: number, last: number): Promise<ProfileDuration> {
    if (last === first) return { milliseconds: 0, timing: "device" };
    // One 256-byte-aligned segment per query set touched; resolve all, map once.
    const segments: { set: number; from: number; count: number; at: number }[] = [];
    let size = 0;
    for (let pass = first; pass < last;) {
      const set = Math.floor(pass / PASSES_PER_SET);
      const end = Math.min(last, (set + 1) * PASSES_PER_SET);
      segments.push({ set, from: (pass % PASSES_PER_SET) * 2, count: (end - pass) * 2, at: size });
      size += Math.ceil(((end - pass) * 16) / 256) * 256;
      pass = end;
    }
    const resolve = this.#device.createBuffer({
      size,
      usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
    });
    const staging = this.#device.createBuffer({
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    const encoder = this.#device.createCommandEncoder();
    for (const s of segments) {
      encoder.resolveQuerySet(this.#sets[s.set], s.from, s.count, resolve, s.at);
    }
    encoder.copyBufferToBuffer(resolve, 0, staging, 0, size);
    this.#device.queue.submit([encoder.finish()]);
    try {
      this.maps++;
      await staging.mapAsync(GPUMapMode.READ);
      const values = new BigUint64Array(staging.getMappedRange());
      let total = 0n;
      for (const s of segments) {
        for (let i = 0; i < s.count; i += 2) {
          const begin = values[s.at / 8 + i];
          const end = values[s.at / 8 + i + 1];
          if (end > begin) total += end - begin;
        }
      }
      staging.unmap();
      return { milliseconds: Number(total) / 1e6, timing: "device" };
    } finally {
      resolve.destroy();
      staging.destroy();
    }
  }

  #assertLive(): void {
    if (this.#destroyed) throw new RuntimeError("DESTROYED", "The profiler was destroyed");
  }
}
