/**
 * Profiling windows of the WebGPU server.
 *
 * Windows are identified by tokens and may nest and overlap. With `timestamp-query`, every compute
 * pass begun while at least one window is open gets `timestampWrites` (two query slots); a
 * window's device time is the sum of (end - begin) of the passes begun inside it. Copies are not
 * timed (they are not in passes). The server executes every stream when a window opens and when
 * it closes, so passes never straddle a window boundary. Closing resolves the query sets holding
 * the window's slots with `resolveQuerySet` into one buffer, copies it into one mappable buffer
 * and maps it once.
 *
 * Slot recycling: a pass's slot pair is counted once per window open when the pass began, and
 * freed when the last of those windows closes. Closing submits the resolve synchronously, and the
 * queue runs in order, so a later pass may reuse the slot at once. The sets held are thus bounded
 * by the passes of the windows open at one time, not by the passes ever profiled, even when
 * windows always overlap. Without `timestamp-query` the duration is the wall clock from `start`
 * to the completion of the submitted work (`timing: "system"`).
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

/** A timed pass: its slot pair and how many open windows still need it. */
interface TimedPass {
  readonly slot: number;
  refs: number;
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
  /** Free slot pairs (pair index = set * PASSES_PER_SET + i), lowest last. */
  readonly #free: number[] = [];
  /** Timed passes still needed by an open window, by pass number. */
  readonly #passes = new Map<number, TimedPass>();
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

  /** Query sets held (each of 256 slots). */
  get querySets(): number {
    return this.#sets.length;
  }

  /** Timestamp writes for a pass begun now, or `undefined` when no window is open. */
  passTimestamps(): GPUComputePassTimestampWrites | undefined {
    if (!this.#timestamps || this.#windows.size === 0 || this.#destroyed) return undefined;
    if (this.#free.length === 0) {
      const set = this.#sets.length;
      this.#sets.push(
        this.#device.createQuerySet({ type: "timestamp", count: PASSES_PER_SET * 2 }),
      );
      for (let i = PASSES_PER_SET - 1; i >= 0; i--) this.#free.push(set * PASSES_PER_SET + i);
    }
    const slot = this.#free.pop()!;
    this.#passes.set(this.#nextPass++, { slot, refs: this.#windows.size });
    const index = (slot % PASSES_PER_SET) * 2;
    return {
      querySet: this.#sets[Math.floor(slot / PASSES_PER_SET)],
      beginningOfPassWriteIndex: index,
      endOfPassWriteIndex: index + 1,
    };
  }

  /** Opens a window. */
  start(): ProfilingToken {
    this.#assertLive();
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
    const slots: number[] = [];
    for (let pass = window.firstPass; pass < this.#nextPass; pass++) {
      const timed = this.#passes.get(pass);
      if (timed !== undefined) slots.push(timed.slot);
    }
    const duration = this.#deviceTime(slots); // submits the resolve before returning
    for (let pass = window.firstPass; pass < this.#nextPass; pass++) {
      const timed = this.#passes.get(pass);
      if (timed === undefined || --timed.refs > 0) continue;
      this.#passes.delete(pass);
      this.#free.push(timed.slot);
    }
    return duration;
  }

  /** Destroys the query sets. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const set of this.#sets) set.destroy();
    this.#sets.length = 0;
    this.#free.length = 0;
    this.#passes.clear();
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

  async #deviceTime(slots: readonly number[]): Promise<ProfileDuration> {
    if (slots.length === 0) return { milliseconds: 0, timing: "device" };
    // Resolve every set touched, whole (2 KiB each, 256-byte aligned), and map once.
    const sets = [...new Set(slots.map((slot) => Math.floor(slot / PASSES_PER_SET)))];
    const setBytes = PASSES_PER_SET * 2 * 8;
    const size = sets.length * setBytes;
    const resolve = this.#device.createBuffer({
      size,
      usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
    });
    const staging = this.#device.createBuffer({
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    const encoder = this.#device.createCommandEncoder();
    sets.forEach((set, i) => {
      encoder.resolveQuerySet(this.#sets[set], 0, PASSES_PER_SET * 2, resolve, i * setBytes);
    });
    encoder.copyBufferToBuffer(resolve, 0, staging, 0, size);
    this.#device.queue.submit([encoder.finish()]);
    try {
      this.maps++;
      await staging.mapAsync(GPUMapMode.READ);
      const values = new BigUint64Array(staging.getMappedRange());
      let total = 0n;
      for (const slot of slots) {
        const at = sets.indexOf(Math.floor(slot / PASSES_PER_SET)) * PASSES_PER_SET * 2 +
          (slot % PASSES_PER_SET) * 2;
        const [begin, end] = [values[at], values[at + 1]];
        if (end > begin) total += end - begin;
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
