/**
 * The WebGPU compute server: {@linkcode ComputeServer} over `navigator.gpu`, its parts made in
 * dependency order by `_parts.ts`; what every backend does alike is the shared server layer's.
 * Captured graphs are prepared and validated once (`launch/_graph.ts`).
 *
 * - **Memory**: GPU-buffer pages; `optimized` allocations are contiguous; no `staging`.
 * - **Streams**: the task scheduler over the single queue; writes are copies from a staging
 *   buffer in stream order, never `queue.writeBuffer` into memory queued work uses.
 * - **Errors**: `execute` checks what it can; a launch WebGPU rejects later is recorded on its
 *   stream (`queue/encoder.ts`), thrown by that stream's next `sync` or `read`.
 * - **Destroy and device loss** settle pending calls with `DESTROYED` or `DEVICE_LOST`.
 *
 * @module
 */

import type { MemoryUsage } from "../../memory/memory_usage.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { NotReadyError, UnsupportedError } from "../../core/errors.ts";
import type { Handle, HandleKind } from "../../core/handles/handle.ts";
import { HandleRef } from "../../core/handles/handle_ref.ts";
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
import type { KernelParams, MemoryAllocationMode } from "../../core/kernel.ts";
import { captureGraph } from "./launch/_graph.ts";
import type { Trace } from "../../core/trace.ts";
import { ORDER_ONLY } from "./queue/_tasks.ts";
import { launchError } from "./queue/_device_validation.ts";
import { WebGpuParts } from "./_parts.ts";
import { prepareWrite } from "./memory/_write.ts";
import { WebGpuDevice } from "./device.ts";
import type { SliceHandle } from "../../core/handles/slice.ts";
import type { TextureDescriptor } from "../texture_server.ts";
import { createTexture, readTexture, writeTexture } from "./_texture_calls.ts";
import type { WebGpuServerOptions, WebGpuServerStats } from "./options.ts";
import type { WgslKernel } from "./kernel.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";

export type { WebGpuServerOptions, WebGpuServerStats };

/**
 * A compute server on a WebGPU device.
 *
 * @example
 * ```ts
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
  readonly #parts: WebGpuParts;
  readonly #copyLayout = (d: CopyDescriptor) => contiguousExtent(d, "WebGPU");
  readonly #locate = (ref: HandleRef) => this.#parts.memory.locate(ref);

  /** Requests (or adopts) a device and builds a server on it. */
  static async create(options: WebGpuServerOptions = {}): Promise<WebGpuServer> {
    return new WebGpuServer(await WebGpuDevice.request(options), options);
  }

  /** Builds a server on a device (taking it over); prefer {@linkcode WebGpuServer.create}. */
  constructor(gpu: WebGpuDevice, options: WebGpuServerOptions = {}) {
    this.#parts = new WebGpuParts(gpu, options, this.#state);
    this.properties = {
      backend: "webgpu",
      deviceName: gpu.name,
      maxAllocationSize: this.#parts.memory.maxAllocationSize,
      deviceTimer: gpu.timestamps,
      features: gpu.features,
    };
  }

  /** The device (owned by the server unless adopted). */
  get device(): GPUDevice {
    return this.#parts.gpu.device;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#state.destroyed;
  }

  /** A snapshot of the counters. */
  stats(): WebGpuServerStats {
    return this.#parts.stats();
  }

  /**
   * Compiles a kernel now (with `options.overrides`, that variant); rejects with
   * `CompilationError` (with the WGSL line) on failure.
   */
  async compile(
    kernel: WgslKernel,
    options?: { readonly overrides?: { readonly [name: string]: number | boolean } },
  ): Promise<void> {
    this.#assertUsable();
    await this.#parts.pipelines.compile(kernel, options?.overrides);
  }

  create(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[] {
    this.#assertUsable(stream);
    const allocations = createAllocations(descriptors, stream, {
      layout: contiguousLayout,
      memory: this.#parts,
    });
    this.#parts.sampleMemory();
    return allocations;
  }

  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    checkEmpty(byteSize, kind);
    const handle = this.#parts.allocate(byteSize, stream, kind);
    this.#parts.sampleMemory();
    return handle;
  }

  staging(_sizes: readonly number[], _stream: StreamId): Uint8Array[] {
    this.#assertUsable();
    throw new UnsupportedError("WebGPU has no pinned host memory: staging is not supported");
  }

  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    const handle = createWithData(data, kind, stream, { memory: this.#parts, server: this });
    this.#parts.sampleMemory();
    return handle;
  }

  async read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]> {
    this.#assertUsable(stream);
    const start = performance.now();
    const read = this.#parts.reads.prepare(descriptors, this.#copyLayout, this.#locate);
    if (this.#parts.encoder.timing !== null) {
      this.#parts.trackCopy(read.task, stream, "read", read.bytes);
    }
    try {
      this.#parts.scheduler.registerChecked(stream, read.task, read.refs, read.refs);
    } catch (error) {
      this.#parts.profiler.forget(read.task);
      read.cancel();
      throw error;
    }
    this.#parts.scheduler.executeStream(stream);
    // The copy may sit in a parked submission: map only once it went out.
    if (this.#parts.encoder.parking) await this.#parts.awaitDevice(this.#parts.encoder.released());
    const mapStart = performance.now();
    const result = await this.#parts.awaitDevice(read.result(), "the map of a read");
    if (this.#parts.profiler.trace !== undefined) {
      this.#parts.profiler.span({ type: "read", stream, start, mapStart, bytes: read.bytes });
      this.#parts.sampleMemory();
    }
    await this.#parts.awaitDevice(this.#parts.encoder.validated(stream));
    this.#parts.encoder.errors.throwFor(stream);
    return result;
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    const pending = prepareWrite(this.device, entries, {
      layout: this.#copyLayout,
      locate: this.#locate,
      memory: this.#parts.memory,
    });
    if (pending === undefined) return;
    if (this.#parts.encoder.timing !== null) {
      this.#parts.trackCopy(pending.task, stream, "write", pending.bytes);
    }
    try {
      this.#parts.scheduler.registerChecked(stream, pending.task, pending.refs, undefined);
    } catch (error) {
      this.#parts.profiler.forget(pending.task);
      pending.cancel();
      throw error;
    }
  }

  async sync(stream: StreamId): Promise<void> {
    this.#assertUsable(stream);
    const start = performance.now();
    this.#parts.scheduler.executeAll();
    if (this.#parts.encoder.parking) await this.#parts.awaitDevice(this.#parts.encoder.released());
    await this.#parts.awaitDevice(this.device.queue.onSubmittedWorkDone());
    if (this.#parts.profiler.trace !== undefined) {
      this.#parts.profiler.span({ type: "sync", stream, start });
      this.#parts.sampleMemory();
    }
    await this.#parts.awaitDevice(this.#parts.encoder.validated(stream));
    this.#parts.encoder.errors.throwFor(stream);
  }

  getResource(ref: HandleRef, stream: StreamId): ResourceLease<GPUBuffer> {
    this.#assertUsable(stream);
    if (!(ref instanceof HandleRef)) throw new TypeError("getResource needs a HandleRef");
    const at = this.#parts.memory.locate(ref);
    // Registered like any use of the ref, so the scheduler submits the streams it depends on.
    this.#parts.scheduler.registerChecked(stream, ORDER_ONLY, [ref], undefined);
    this.#parts.scheduler.executeStream(stream);
    if (this.#parts.encoder.parking) {
      // Work that the caller's own commands would have to follow is not on the queue yet.
      throw new NotReadyError(
        "Submissions wait for the validation of a kernel launched just before (its first " +
          "launch with read-only bindings): await server.sync(stream), or compile the kernel " +
          "first (server.compile), before taking a resource",
      );
    }
    return leaseResource(at, ref);
  }

  checkLaunch(launch: KernelLaunch<WgslKernel>, stream: StreamId): void {
    this.#assertUsable(stream); // every check of `execute`; the task is given back unused
    this.#parts.launcher.prepare(launch, stream).done?.();
  }

  createTexture(descriptor: TextureDescriptor, stream: StreamId): SliceHandle {
    this.#assertUsable(stream);
    return createTexture(this.#parts, descriptor);
  }

  writeTexture(ref: HandleRef, data: Uint8Array, stream: StreamId): void {
    this.#assertUsable(stream);
    writeTexture(this.#parts, ref, data, stream);
  }

  readTexture(ref: HandleRef, stream: StreamId): Promise<Uint8Array> {
    this.#assertUsable(stream);
    return readTexture(this.#parts, ref, stream);
  }

  checkRef(ref: HandleRef): void {
    // INVALID_HANDLE unless a live texture or live memory of this server (DESTROYED after destroy)
    if (!this.#parts.textures.checkRef(ref)) this.#locate(ref);
  }

  execute(launch: KernelLaunch<WgslKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    const launcher = this.#parts.launcher;
    const timing = this.#parts.encoder.timing;
    const task = launcher.prepare(launch, stream);
    const rejected = this.#parts.encoder.rejection(task);
    if (rejected !== undefined) {
      task.done?.();
      throw launchError(task.kernel.reflection.name, stream, rejected);
    }
    // Profiling off: this null check is the whole cost (no allocation). A tracked task stays in
    // the profiler's maps, so it is never recycled.
    if (timing !== null) this.#parts.trackLaunch(task, stream);
    try {
      this.#parts.scheduler.registerChecked(stream, task, task.refs, task.reads);
    } catch (error) {
      this.#parts.profiler.forget(task);
      task.done?.();
      throw error;
    }
  }

  /** Checks and prepares `launches` once as a graph (`launch/_graph.ts`). */
  captureGraph(
    launches: readonly KernelLaunch<WgslKernel>[],
    stream: StreamId,
    label: string,
  ): Promise<Disposable & { replay(stream: StreamId, params?: KernelParams): void }> {
    this.#assertUsable(stream);
    return this.#parts.awaitDevice(captureGraph(this.#parts, launches, stream, label));
  }

  flush(stream: StreamId): void {
    this.#state.assertUsable(stream); // #assertUsable written out: one call less per flush
    this.#parts.gpu.assertUsable();
    this.#parts.scheduler.executeStream(stream);
  }

  /**
   * Flushes `stream` and sets `timeline` to `value` when the queue's work submitted so far
   * completes. Marks made in one synchronous run share one `onSubmittedWorkDone` poll.
   */
  signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.scheduler.executeStream(stream);
    // The single in-order queue completes marks in order, whatever their stream. A server
    // destroyed (or a device lost) meanwhile never reaches the mark: its work did not run.
    if (this.#parts.encoder.parking) {
      this.#parts.encoder.released().then(() => this.#parts.mark(timeline, value, stream));
    } else this.#parts.mark(timeline, value, stream);
  }

  memoryUsage(stream: StreamId): MemoryUsage {
    this.#assertUsable(stream);
    return this.#parts.memory.usage();
  }

  memoryCleanup(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.scheduler.executeAll(); // submitted tasks release their pins
    this.#parts.memory.cleanup(true);
    this.#parts.bindGroups.clear(); // drop references to destroyed pages
    this.#parts.sampleMemory();
  }

  /** Submits `stream`'s queued work (no other stream's) and opens a window on it. */
  startProfile(stream: StreamId, options?: StartProfileOptions): ProfilingToken {
    this.#assertUsable(stream);
    this.#parts.scheduler.executeStream(stream);
    const token = this.#parts.profiler.start(stream, options);
    this.#parts.updateTiming();
    return token;
  }

  /** Submits `stream`'s queued work and measures the window. */
  endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertUsable(stream);
    this.#parts.scheduler.executeStream(stream);
    try {
      // DESTROYED or DEVICE_LOST while pending; the stream's errors as `sync` (nothing ran).
      const ended = this.#parts.profiler.end(token, this.#parts.parkedWork(), stream);
      return this.#parts.awaitDevice(ended).then(async (duration) => {
        await this.#parts.awaitDevice(this.#parts.encoder.validated(stream));
        this.#parts.encoder.errors.throwFor(stream);
        return duration;
      });
    } finally {
      this.#parts.updateTiming();
    }
  }

  /** Submits every stream's queued work and starts recording every stream's timeline. */
  startTrace(): void {
    this.#assertUsable();
    this.#parts.scheduler.executeAll();
    this.#parts.profiler.startTrace();
    this.#parts.updateTiming();
    this.#parts.sampleMemory();
  }

  /** Submits every stream's queued work and returns the recording. */
  stopTrace(): Promise<Trace> {
    this.#assertUsable();
    this.#parts.scheduler.executeAll();
    this.#parts.sampleMemory();
    try {
      const info = { backend: "webgpu", device: this.#parts.gpu.name };
      return this.#parts.awaitDevice(
        this.#parts.profiler.stopTrace(info, this.#parts.tracedWork()),
      );
    } finally {
      this.#parts.updateTiming();
    }
  }

  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.memory.mode = mode;
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
    if (this.#state.markDestroyed()) this.#parts.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #assertUsable(stream?: StreamId): void {
    this.#state.assertUsable(stream);
    this.#parts.gpu.assertUsable();
  }
}
