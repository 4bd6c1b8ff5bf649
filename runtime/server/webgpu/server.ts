/**
 * The WebGPU compute server: {@linkcode ComputeServer} over `navigator.gpu`. Each part has one
 * owner, made before what uses it: the memory (`_memory.ts`), the launcher (`_launch.ts`, which
 * owns the parameter chunks and the task pool), the encoder (`_encoder.ts`, the scheduler's
 * backend, which receives both), the task scheduler over it, the profiler. What every backend
 * does alike (allocation with rollback, copy checks, leases, host copies) is the shared server
 * layer's (`../shared/`).
 *
 * - **Memory**: pools of GPU-buffer pages; `optimized` allocations are contiguous (WebGPU gains
 *   nothing from padded rows). `staging` is `UNSUPPORTED` (no pinned host memory).
 * - **Streams**: the task scheduler over the single queue; writes are copies from a staging
 *   buffer in stream order, never `queue.writeBuffer` into memory queued work uses.
 * - **Reads** copy every source into one staging buffer mapped once (`_read.ts`).
 * - **Errors**: `execute` checks everything it can; WebGPU validates the rest asynchronously and
 *   a rejected launch's error is recorded on its stream (`_encoder.ts`), thrown by that stream's
 *   next `sync` or `read`, which wait only for their own stream's validation results.
 * - **Destroy and device loss** settle pending reads, syncs and profiles with `DESTROYED` or
 *   `DEVICE_LOST` (a device destroyed by its owner counts as lost).
 * - **Server-to-server copy** goes through the host (two devices cannot share buffers).
 *
 * @module
 */

import { resolveConfig } from "../../core/config.ts";
import type { MemoryUsage } from "../../memory/memory_usage.ts";
import { SchedulerMultiStream } from "../../stream/scheduler.ts";
import type { StreamId } from "../../core/stream_id.ts";
import {
  type ComputeError,
  DeviceLostError,
  DriverError,
  NotReadyError,
  UnsupportedError,
} from "../../core/errors.ts";
import { Handle, type HandleKind } from "../../core/handle.ts";
import { HandleRef } from "../../core/handle_ref.ts";
import type { Allocation, AllocationDescriptor, CopyDescriptor } from "../../core/allocation.ts";
import type {
  ComputeServer,
  CopyStreams,
  DeviceProperties,
  KernelLaunch,
  ProfileDuration,
  ProfilingToken,
  ResourceLease,
  StartProfileOptions,
  WriteEntry,
} from "../server.ts";
import {
  checkEmpty,
  contiguousExtent,
  contiguousLayout,
  copyThroughHost,
  createAllocations,
  createWithData,
  leaseResource,
  ServerState,
} from "../shared/mod.ts";
import type { MemoryAllocationMode } from "../../core/kernel.ts";
import type { Trace } from "../../core/trace.ts";
import { type EncoderStream, EncoderStreams } from "./_encoder.ts";
import { type GpuTask, ORDER_ONLY } from "./_tasks.ts";
import { launchError } from "./_validation.ts";
import { BindGroupCache } from "./_bind_group_cache.ts";
import { InfoBufferPool } from "./_info_buffers.ts";
import { Launcher } from "./_launch.ts";
import { WebGpuMemory } from "./_memory.ts";
import { WebGpuReads } from "./_read.ts";
import { prepareWrite } from "./_write.ts";
import { awaitDevice } from "./_device_wait.ts";
import { WebGpuDevice } from "./device.ts";
import type { WebGpuServerOptions, WebGpuServerStats } from "./options.ts";
import type { WgslKernel } from "./kernel.ts";
import { PipelineCache } from "./_pipeline_cache.ts";
import { ProfilerCore } from "./_profiler_core.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { signalOnQueue } from "../../../sync/webgpu_signal.ts";

export type { WebGpuServerOptions, WebGpuServerStats };

/**
 * A compute server on a WebGPU device.
 *
 * @example
 * ```ts ignore
 * import { WebGpuServer } from "@gpucompute/runtime/webgpu";
 * using server = await WebGpuServer.create();
 * using handle = server.createWithData(new Uint8Array([1, 2, 3, 4]), 0);
 * const [bytes] = await server.read([handle.copyDescriptor([4], [1], 1)], 0);
 * console.log(bytes); // Uint8Array [1, 2, 3, 4]
 * ```
 */
export class WebGpuServer implements ComputeServer<WgslKernel, GPUBuffer> {
  readonly properties: DeviceProperties;
  readonly #state = new ServerState("WebGPU server");
  readonly #gpu: WebGpuDevice;
  readonly #memory: WebGpuMemory;
  readonly #pipelines: PipelineCache;
  readonly #bindGroups: BindGroupCache;
  readonly #infoBuffers: InfoBufferPool;
  readonly #launcher: Launcher;
  readonly #encoder: EncoderStreams;
  readonly #scheduler: SchedulerMultiStream<GpuTask, EncoderStream>;
  readonly #profiler: ProfilerCore;
  readonly #reads: WebGpuReads;
  readonly #copyLayout = (d: CopyDescriptor) => contiguousExtent(d, "WebGPU");
  readonly #locate = (ref: HandleRef) => this.#memory.range(ref);

  /** Requests (or adopts) a device and builds a server on it. */
  static async create(options: WebGpuServerOptions = {}): Promise<WebGpuServer> {
    return new WebGpuServer(await WebGpuDevice.request(options), options);
  }

  /** Builds a server on a device (taking it over); prefer {@linkcode WebGpuServer.create}. */
  constructor(gpu: WebGpuDevice, options: WebGpuServerOptions = {}) {
    const config = resolveConfig(options);
    const device = gpu.device;
    this.#gpu = gpu;
    this.#memory = new WebGpuMemory(device, options.memory);
    this.#pipelines = new PipelineCache(device);
    this.#bindGroups = new BindGroupCache(device);
    this.#infoBuffers = new InfoBufferPool(device);
    this.#launcher = new Launcher({
      device,
      pipelines: this.#pipelines,
      bindGroups: this.#bindGroups,
      infoBuffers: this.#infoBuffers,
      memory: this.#memory,
    });
    this.#encoder = new EncoderStreams(device, {
      chunks: this.#launcher.chunks,
      tasks: this.#launcher.tasks,
      bindGroups: this.#bindGroups,
      maxStreams: config.maxStreams,
    });
    this.#scheduler = new SchedulerMultiStream(this.#encoder, {
      maxStreams: config.maxStreams,
      maxTasks: config.maxTasks,
      strategy: config.strategy,
    });
    this.#profiler = new ProfilerCore(device, { timestamps: gpu.timestamps });
    this.#reads = new WebGpuReads(device);
    this.properties = {
      backend: "webgpu",
      deviceName: gpu.name,
      maxAllocationSize: this.#memory.maxAllocationSize,
      deviceTimer: gpu.timestamps,
    };
  }

  /** The device (owned by the server unless adopted). */
  get device(): GPUDevice {
    return this.#gpu.device;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#state.destroyed;
  }

  /** A snapshot of the counters. */
  stats(): WebGpuServerStats {
    const encoder = this.#encoder.stats;
    return {
      mapAsync: this.#reads.maps,
      submits: encoder.submits,
      passes: encoder.passes,
      pipelineHits: this.#pipelines.hits,
      pipelineMisses: this.#pipelines.misses,
      bindGroupHits: this.#bindGroups.hits,
      profileMaps: this.#profiler.maps,
      isolatedSubmits: encoder.isolated,
      parkedSubmits: encoder.parked,
      querySets: this.#profiler.querySets,
    };
  }

  /** Compiles a kernel now; rejects with `CompilationError` (with the WGSL line) on failure. */
  async compile(kernel: WgslKernel): Promise<void> {
    this.#assertUsable();
    await this.#pipelines.compile(kernel);
  }

  create(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[] {
    this.#assertUsable(stream);
    const allocations = createAllocations(descriptors, {
      layout: contiguousLayout,
      allocate: (bytes) => this.#allocate(bytes, stream),
      maxAllocationSize: this.#memory.maxAllocationSize,
    });
    this.#sampleMemory();
    return allocations;
  }

  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    checkEmpty(byteSize, kind);
    const handle = this.#allocate(byteSize, stream, kind);
    this.#sampleMemory();
    return handle;
  }

  staging(_sizes: readonly number[], _stream: StreamId): Uint8Array[] {
    this.#assertUsable();
    throw new UnsupportedError("WebGPU has no pinned host memory: staging is not supported");
  }

  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    const handle = createWithData(data, kind, {
      allocate: (bytes, kind) => this.#allocate(bytes, stream, kind),
      write: (entries) => this.write(entries, stream),
    });
    this.#sampleMemory();
    return handle;
  }

  async read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]> {
    this.#assertUsable(stream);
    const start = performance.now();
    const read = this.#reads.prepare(descriptors, this.#copyLayout, this.#locate);
    if (this.#encoder.timing !== null) this.#note(read.task, stream, "read", read.bytes);
    try {
      this.#scheduler.registerChecked(stream, read.task, read.refs, read.refs);
    } catch (error) {
      this.#profiler.forget(read.task);
      read.cancel();
      throw error;
    }
    this.#scheduler.executeStreams([stream]);
    // The copy may sit in a parked submission: map only once it went out.
    if (this.#encoder.parking) await this.#settle(this.#encoder.released());
    const mapStart = performance.now();
    const result = await this.#settle(read.result());
    if (this.#profiler.trace !== undefined) {
      const end = performance.now();
      this.#profiler.record({ type: "read", stream, start, mapStart, end, bytes: read.bytes });
      this.#sampleMemory();
    }
    await this.#settle(this.#encoder.validated(stream));
    this.#encoder.errors.throwFor(stream);
    return result;
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    const pending = prepareWrite(this.device, entries, {
      layout: this.#copyLayout,
      locate: this.#locate,
      memory: this.#memory,
    });
    if (pending === undefined) return;
    if (this.#encoder.timing !== null) this.#note(pending.task, stream, "write", pending.bytes);
    try {
      this.#scheduler.registerChecked(stream, pending.task, pending.refs, undefined);
    } catch (error) {
      this.#profiler.forget(pending.task);
      pending.cancel();
      throw error;
    }
  }

  async sync(stream: StreamId): Promise<void> {
    this.#assertUsable(stream);
    const start = performance.now();
    this.#scheduler.executeAll();
    if (this.#encoder.parking) await this.#settle(this.#encoder.released());
    await this.#settle(this.device.queue.onSubmittedWorkDone());
    if (this.#profiler.trace !== undefined) {
      this.#profiler.record({ type: "sync", stream, start, end: performance.now() });
      this.#sampleMemory();
    }
    await this.#settle(this.#encoder.validated(stream));
    this.#encoder.errors.throwFor(stream);
  }

  getResource(ref: HandleRef, stream: StreamId): ResourceLease<GPUBuffer> {
    this.#assertUsable(stream);
    if (!(ref instanceof HandleRef)) throw new TypeError("getResource needs a HandleRef");
    const at = this.#memory.range(ref);
    // Registered like any use of the ref, so the scheduler submits the streams it depends on.
    this.#scheduler.registerChecked(stream, ORDER_ONLY, [ref], undefined);
    this.#scheduler.executeStreams([stream]);
    if (this.#encoder.parking) {
      // Work that the caller's own commands would have to follow is not on the queue yet.
      throw new NotReadyError(
        "Submissions wait for the validation of a kernel launched just before (its first " +
          "launch with read-only bindings): await server.sync(stream), or compile the kernel " +
          "first (server.compile), before taking a resource",
      );
    }
    return leaseResource(at, ref);
  }

  execute(launch: KernelLaunch<WgslKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    const launcher = this.#launcher;
    const timing = this.#encoder.timing;
    // A task the profiler notes stays in its maps: never recycle those.
    const task = launcher.prepare(launch, stream, timing === null);
    const rejected = this.#encoder.rejection(task.bindGroup);
    if (rejected !== undefined) {
      task.done?.();
      throw launchError(task.kernel.reflection.name, stream, rejected);
    }
    // Profiling off: this null check is the whole cost (no allocation).
    if (timing !== null) this.#noteLaunch(task, stream);
    try {
      this.#scheduler.registerChecked(stream, task, launcher.refs, launcher.reads);
    } catch (error) {
      this.#profiler.forget(task);
      task.done?.();
      throw error;
    }
  }

  flush(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#scheduler.executeStreams([stream]);
  }

  /**
   * Flushes `stream` and sets `timeline` to `value` when the queue's work submitted so far
   * completes. Marks made in one synchronous run share one `onSubmittedWorkDone` poll.
   */
  signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#scheduler.executeStreams([stream]);
    // The single in-order queue completes marks in order, whatever their stream. A server
    // destroyed (or a device lost) meanwhile never reaches the mark: its work did not run.
    if (this.#encoder.parking) {
      this.#encoder.released().then(() => this.#signal(timeline, value, stream));
    } else this.#signal(timeline, value, stream);
  }

  #signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    if (this.#state.destroyed) return;
    const errors = this.#encoder.errors;
    signalOnQueue(this.device.queue, {
      timeline: {
        set: (reached) => {
          const closed = this.#closedError();
          if (closed === undefined) timeline.set(reached);
          else errors.record(stream, closed);
        },
      },
      value,
      onError: (cause) => {
        const message = `The queue failed to report completion of timeline value ${value}`;
        errors.record(stream, new DriverError(message, { cause }));
      },
    });
  }

  memoryUsage(stream: StreamId): MemoryUsage {
    this.#assertUsable(stream);
    return this.#memory.usage();
  }

  memoryCleanup(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#scheduler.executeAll(); // submitted tasks release their pins
    this.#memory.cleanup(true);
    this.#bindGroups.clear(); // drop references to destroyed pages
    this.#sampleMemory();
  }

  /** Submits `stream`'s queued work (no other stream's) and opens a window on it. */
  startProfile(stream: StreamId, options?: StartProfileOptions): ProfilingToken {
    this.#assertUsable(stream);
    this.#scheduler.executeStreams([stream]);
    const token = this.#profiler.start(stream, options);
    this.#updateTiming();
    return token;
  }

  /** Submits `stream`'s queued work and measures the window. */
  endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertUsable(stream);
    this.#scheduler.executeStreams([stream]);
    try {
      // DESTROYED or DEVICE_LOST while pending.
      return this.#settle(this.#profiler.end(token, this.#parkedWork()));
    } finally {
      this.#updateTiming();
    }
  }

  /** Submits every stream's queued work and starts recording every stream's timeline. */
  startTrace(): void {
    this.#assertUsable();
    this.#scheduler.executeAll();
    this.#profiler.startTrace();
    this.#updateTiming();
    this.#sampleMemory();
  }

  /** Submits every stream's queued work and returns the recording. */
  stopTrace(): Promise<Trace> {
    this.#assertUsable();
    this.#scheduler.executeAll();
    this.#sampleMemory();
    try {
      const info = { backend: "webgpu", device: this.#gpu.name };
      return this.#settle(this.#profiler.stopTrace(info, this.#parkedWork()));
    } finally {
      this.#updateTiming();
    }
  }

  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#memory.mode = mode;
  }

  /** Copies through the host: one read on this server, one `createWithData` on `destination`. */
  copyTo(destination: this, source: CopyDescriptor, streams: CopyStreams): Promise<Allocation> {
    this.#assertUsable(streams?.source);
    if (!(destination instanceof WebGpuServer)) {
      throw new TypeError("destination must be a WebGpuServer");
    }
    return copyThroughHost(this, destination, source, streams);
  }

  destroy(): void {
    if (!this.#state.markDestroyed()) return;
    this.#reads.destroy(); // an adopted device lives on: settle the pending maps
    this.#encoder.destroy();
    this.#pipelines.clear();
    this.#profiler.destroy();
    this.#infoBuffers.destroy();
    this.#launcher.destroy();
    this.#memory.destroy();
    this.#gpu.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #allocate(size: number, stream: StreamId, kind?: HandleKind): Handle {
    const slice = this.#memory.reserve(size);
    const cursor = this.#scheduler.stream(stream).cursor;
    return Handle.fresh(slice, stream, cursor, size, kind);
  }

  /** What work on the queue waits for while submissions are parked, else `undefined`. */
  #parkedWork(): Promise<void> | undefined {
    return this.#encoder.parking ? this.#encoder.released() : undefined;
  }

  #settle<T>(promise: Promise<T>): Promise<T> {
    return awaitDevice(promise, (cause) => this.#closedError(cause));
  }

  #closedError(cause?: unknown): ComputeError | undefined {
    if (this.#state.destroyed) return this.#state.destroyedError({ cause });
    const lost = this.#gpu.lost;
    if (lost === undefined) return undefined;
    return new DeviceLostError(`The WebGPU device was lost (${lost})`, { cause });
  }

  /** Notes a launch for the open windows and trace. */
  #noteLaunch(task: GpuTask & { kind: "dispatch" }, stream: StreamId): void {
    const workgroups = task.indirect === undefined ? [task.x, task.y, task.z] as const : undefined;
    this.#profiler.track(task, {
      kind: "kernel",
      stream,
      name: task.kernel.reflection.name,
      workgroups,
      bytes: 0,
    });
  }

  /** Notes a copy for the open windows and trace. */
  #note(task: GpuTask, stream: StreamId, kind: "write" | "read", bytes: number): void {
    this.#profiler.track(task, { kind, stream, name: kind, workgroups: undefined, bytes });
  }

  /** Turns the encoder's profiling hook and the scheduler's wait log on or off. */
  #updateTiming(): void {
    this.#encoder.timing = this.#profiler.active ? this.#profiler : null;
    this.#scheduler.waits = this.#profiler.trace;
  }

  #sampleMemory(): void {
    if (this.#profiler.trace !== undefined) this.#recordMemory();
  }

  #recordMemory(): void {
    const usage = this.#memory.usage();
    this.#profiler.record({
      type: "memory",
      at: performance.now(),
      inUse: usage.bytesInUse,
      reserved: usage.bytesReserved,
    });
  }

  #assertUsable(stream?: StreamId): void {
    this.#state.assertUsable(stream);
    this.#gpu.assertUsable();
  }
}
