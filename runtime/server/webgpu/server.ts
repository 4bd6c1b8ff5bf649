/**
 * The WebGPU compute server: {@linkcode ComputeServer} over `navigator.gpu`.
 *
 * - **Memory**: {@linkcode MemoryManagement} over {@linkcode WebGpuStorage} pages; the largest
 *   allocation is the smaller of `maxBufferSize` and `maxStorageBufferBindingSize`. `optimized`
 *   allocations are contiguous (WebGPU gains nothing from padded rows).
 * - **Streams**: a {@linkcode SchedulerMultiStream} over the single queue. Executing a stream
 *   encodes its tasks into one command encoder (consecutive dispatches share one compute pass) and
 *   submits once. Writes are encoded as copies from a staging buffer, never `queue.writeBuffer`
 *   into memory that queued tasks use (it would run ahead of them). The bytes of every launch's
 *   params and info buffer go into shared chunks, uploaded once per submission (`_info_arena.ts`).
 * - **Reads** copy every source into one staging buffer mapped once (one round trip for K reads).
 * - **Errors**: everything checkable is checked by `execute` (the launch's shape, binding counts
 *   and per-stage limits, offset alignment, cube counts against
 *   `maxComputeWorkgroupsPerDimension`). No usage conflict can arise: buffers are bound writable
 *   and an indirect count is copied out of its page first. WebGPU validates the rest
 *   asynchronously; unproven launches are submitted alone (see `_stream.ts`), so an
 *   invalid one never takes valid work down with it. Its error (a `CompilationError` for a kernel
 *   first compiled by `execute`, else `DRIVER`) goes to the stream that launched it (ids that
 *   share a pool index share a stream) and is thrown, with any others of that stream, by its next
 *   `sync()` or `read()`; later launches of a known-bad kernel or binding
 *   set throw at once. Call {@linkcode compile} to get compilation errors eagerly.
 * - **Destroy and device loss** settle pending reads, syncs and profiles with `DESTROYED` or
 *   `DEVICE_LOST` (a device destroyed by its owner counts as lost).
 * - **Server-to-server copy** goes through the host: a read on the source, then `createWithData`
 *   on the destination (two devices cannot share buffers in WebGPU).
 * - **Profiling** (`_profiler_core.ts`): a window measures only its own stream's passes, and
 *   opening or closing it submits only that stream; `startTrace` / `stopTrace` record every
 *   stream. While neither is open the dispatch path pays one null check and allocates nothing.
 * - `staging` is `UNSUPPORTED`: WebGPU exposes no pinned host memory.
 *
 * @module
 */

import { resolveConfig } from "../../core/config.ts";
import { MemoryManagement } from "../../memory/memory_management.ts";
import type { MemoryUsage } from "../../memory/memory_usage.ts";
import { SchedulerMultiStream } from "../../stream/scheduler.ts";
import { assertStreamId, type StreamId } from "../../core/stream_id.ts";
import { assertNonNegativeInteger, checkShape } from "../../core/_validate.ts";
import {
  BufferTooBigError,
  type ComputeError,
  DestroyedError,
  DeviceLostError,
  DriverError,
  NotReadyError,
  UnsupportedError,
} from "../../core/errors.ts";
import { checkHandleKind, Handle, type HandleKind, HandleRef } from "../../core/handle.ts";
import {
  type Allocation,
  type AllocationDescriptor,
  contiguousStrides,
  type CopyDescriptor,
  copyDescriptor,
  isContiguous,
} from "../../core/allocation.ts";
import type {
  ComputeServer,
  CopyStreams,
  DeviceProperties,
  KernelLaunch,
  ProfileDuration,
  ProfilingToken,
  ResourceLease,
  ResourceRange,
  StartProfileOptions,
  WriteEntry,
} from "../server.ts";
import type { MemoryAllocationMode } from "../../core/kernel.ts";
import type { Trace } from "../../core/trace.ts";
import { type EncoderStream, EncoderStreams, type GpuTask } from "./_stream.ts";
import { launchError } from "./_proofs.ts";
import { BindGroupCache } from "./_bind_group_cache.ts";
import { InfoBufferPool } from "./_info_buffers.ts";
import { InfoArena } from "./_info_arena.ts";
import { Launcher, type MutableResource } from "./_launch.ts";
import { type PendingRead, prepareRead } from "./_read.ts";
import { prepareWrite } from "./_write.ts";
import { lease, settle, throwDeferred } from "./_settle.ts";
import { WebGpuDevice } from "./device.ts";
import type { WebGpuServerOptions, WebGpuServerStats } from "./options.ts";

export type { WebGpuServerOptions, WebGpuServerStats };
import type { WgslKernel } from "./kernel.ts";
import { PipelineCache } from "./_pipeline_cache.ts";
import { ProfilerCore } from "./_profiler_core.ts";
import { WebGpuStorage } from "./storage.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { signalOnQueue } from "../../../sync/webgpu_signal.ts";

const NO_COPIES: GpuTask = { kind: "copy", copies: [] };

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
  readonly #gpu: WebGpuDevice;
  readonly #storage: WebGpuStorage;
  readonly #memory: MemoryManagement<ResourceRange<GPUBuffer>>;
  readonly #streams: EncoderStreams;
  readonly #scheduler: SchedulerMultiStream<GpuTask, EncoderStream>;
  readonly #pipelines: PipelineCache;
  readonly #infoBuffers: InfoBufferPool;
  readonly #arena: InfoArena;
  readonly #launcher: Launcher;
  readonly #registerOptions: { reads: readonly HandleRef[] } = { reads: [] };
  readonly #bindGroups: BindGroupCache;
  readonly #profiler: ProfilerCore;
  readonly #readStats = { mapAsync: 0 };
  readonly #reads = new Set<PendingRead>();
  #destroyed = false;

  /** Requests (or adopts) a device and builds a server on it. */
  static async create(options: WebGpuServerOptions = {}): Promise<WebGpuServer> {
    return new WebGpuServer(await WebGpuDevice.request(options), options);
  }

  /** Builds a server on a device (taking it over); prefer {@linkcode WebGpuServer.create}. */
  constructor(gpu: WebGpuDevice, options: WebGpuServerOptions = {}) {
    const config = resolveConfig(options);
    const device = gpu.device;
    this.#gpu = gpu;
    this.#storage = new WebGpuStorage(device);
    this.#memory = new MemoryManagement(this.#storage, {
      maxAllocationSize: this.#storage.maxPageSize,
      ...options.memory,
    });
    this.#profiler = new ProfilerCore(device, { timestamps: gpu.timestamps });
    this.#bindGroups = new BindGroupCache(device);
    const limits = device.limits;
    this.#arena = new InfoArena(
      device,
      Math.max(limits.minUniformBufferOffsetAlignment, limits.minStorageBufferOffsetAlignment),
    );
    this.#streams = new EncoderStreams(device, {
      shape: (group) => this.#bindGroups.shape(group),
      beforeSubmit: () => this.#arena.upload(),
      recycle: (task) => this.#launcher.recycle(task),
    });
    this.#scheduler = new SchedulerMultiStream(this.#streams, {
      maxStreams: config.maxStreams,
      maxTasks: config.maxTasks,
      strategy: config.strategy,
    });
    this.#pipelines = new PipelineCache(device);
    this.#infoBuffers = new InfoBufferPool(device);
    this.#launcher = new Launcher({
      device,
      pipelines: this.#pipelines,
      infoBuffers: this.#infoBuffers,
      arena: this.#arena,
      bindGroups: this.#bindGroups,
      resolve: (binding) => this.#resolve(binding),
      locate: (binding, into) => this.#locate(binding, into),
      origin: (stream) => this.#scheduler.stream(stream),
    });
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
    return this.#destroyed;
  }

  /** A snapshot of the counters. */
  stats(): WebGpuServerStats {
    return {
      mapAsync: this.#readStats.mapAsync,
      submits: this.#streams.stats.submits,
      passes: this.#streams.stats.passes,
      pipelineHits: this.#pipelines.hits,
      pipelineMisses: this.#pipelines.misses,
      bindGroupHits: this.#bindGroups.hits,
      profileMaps: this.#profiler.maps,
      isolatedSubmits: this.#streams.stats.isolated,
      heldSubmits: this.#streams.stats.held,
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
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    // Hot path kept small (V8 inlines it into the caller): one descriptor, checked before the
    // reservation. Several: every descriptor is checked before anything is reserved.
    const allocations = descriptors.length === 1
      ? [this.#allocation(descriptors[0], 0, stream)]
      : this.#createAll(descriptors, stream);
    this.#sampleMemory();
    return allocations;
  }

  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    assertNonNegativeInteger(byteSize, "byteSize");
    if (kind !== undefined) checkHandleKind(byteSize, kind);
    const handle = this.#allocate(byteSize, stream, kind);
    this.#sampleMemory();
    return handle;
  }

  #createAll(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[] {
    for (let i = 0; i < descriptors.length; i++) descriptorSize(descriptors[i], i, this.#memory);
    const allocations = new Array<Allocation>(descriptors.length); // sized: no growth
    let made = 0;
    try {
      for (; made < descriptors.length; made++) {
        allocations[made] = this.#allocation(descriptors[made], made, stream);
      }
    } catch (error) {
      for (let i = 0; i < made; i++) allocations[i].handle.dispose();
      throw error;
    }
    return allocations;
  }

  #allocation(descriptor: AllocationDescriptor, index: number, stream: StreamId): Allocation {
    const handle = this.#allocate(descriptorSize(descriptor, index, this.#memory), stream);
    const shape = descriptor.shape;
    return { handle, strides: shape.length === 1 ? ONE_D : contiguousStrides(shape) };
  }

  staging(_sizes: readonly number[], _stream: StreamId): Uint8Array[] {
    this.#assertUsable();
    throw new UnsupportedError("WebGPU has no pinned host memory: staging is not supported");
  }

  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    if (kind !== undefined) checkHandleKind(data.byteLength, kind);
    const handle = this.#allocate(data.byteLength, stream, kind);
    this.#sampleMemory();
    try {
      const descriptor = handle.copyDescriptor([data.byteLength], [1], 1);
      this.write([{ descriptor, data }], stream);
    } catch (error) {
      handle.dispose();
      throw error;
    }
    return handle;
  }

  async read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]> {
    this.#assertUsable(stream);
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    const sources = descriptors.map((d) => this.#range(d));
    const pending = prepareRead(this.device, sources, this.#readStats);
    const start = performance.now();
    const bindings = descriptors.map((d) => d.ref);
    const bytes = sources.reduce((sum, source) => sum + source.size, 0);
    if (this.#streams.timing !== null) {
      this.#note(pending.task, stream, bindings, "read", bytes, bindings);
    }
    try {
      this.#scheduler.register(stream, pending.task, bindings, { reads: bindings });
    } catch (error) {
      this.#profiler.forget(pending.task);
      pending.cancel();
      throw error;
    }
    this.#scheduler.executeStreams([stream]);
    this.#reads.add(pending);
    try {
      // The copy may sit in a held submission: map only once it went out.
      if (this.#streams.holding) await this.#settle(this.#streams.released());
      const mapStart = performance.now();
      const result = await this.#settle(pending.result());
      if (this.#profiler.trace !== undefined) {
        this.#profiler.record({
          type: "read",
          stream,
          start,
          mapStart,
          end: performance.now(),
          bytes,
        });
        this.#sampleMemory();
      }
      await this.#settle(this.#streams.settled());
      throwDeferred(this.#scheduler.stream(stream).errors, stream);
      return result;
    } finally {
      this.#reads.delete(pending);
    }
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    if (!Array.isArray(entries)) throw new TypeError("entries must be an array");
    const targets = entries.map((entry, i) => {
      if (typeof entry !== "object" || entry === null) {
        throw new TypeError(`entries[${i}] must be a WriteEntry`);
      }
      const at = this.#range(entry.descriptor);
      const slice = this.#memory.get(entry.descriptor.ref.slice.record);
      return { data: entry.data, at, slice };
    });
    const pending = prepareWrite(this.device, targets);
    if (pending === undefined) return;
    const bindings = entries.map((e) => e.descriptor.ref);
    if (this.#streams.timing !== null) {
      const total = targets.reduce((sum, target) => sum + target.data.byteLength, 0);
      this.#note(pending.task, stream, bindings, "write", total, []);
    }
    try {
      this.#scheduler.register(stream, pending.task, bindings);
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
    if (this.#streams.holding) await this.#settle(this.#streams.released());
    await this.#settle(this.device.queue.onSubmittedWorkDone());
    if (this.#profiler.trace !== undefined) {
      this.#profiler.record({ type: "sync", stream, start, end: performance.now() });
      this.#sampleMemory();
    }
    await this.#settle(this.#streams.settled());
    throwDeferred(this.#scheduler.stream(stream).errors, stream);
  }

  getResource(binding: HandleRef, stream: StreamId): ResourceLease<GPUBuffer> {
    this.#assertUsable(stream);
    const at = this.#resolve(binding);
    // Registered like any use of the binding, so the scheduler submits the streams it depends on.
    this.#scheduler.register(stream, NO_COPIES, [binding]);
    this.#scheduler.executeStreams([stream]);
    if (this.#streams.holding) {
      // Work that the caller's own commands would have to follow is not on the queue yet.
      throw new NotReadyError(
        "Submissions wait for the validation of a kernel launched just before (its first " +
          "launch with read-only bindings): await server.sync(stream), or compile the kernel " +
          "first (server.compile), before taking a resource",
      );
    }
    return lease(at, binding.slice.record.pin());
  }

  execute(launch: KernelLaunch<WgslKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    const launcher = this.#launcher;
    // A task the profiler notes stays in its maps: never recycle those.
    launcher.pooling = this.#streams.timing === null;
    const task = launcher.prepare(launch, stream);
    const { bindings, reads } = launcher;
    const rejected = this.#streams.rejection(task.bindGroup);
    if (rejected !== undefined) {
      task.done?.();
      throw launchError(task.kernel.reflection.name, stream, rejected);
    }
    // Profiling off: this null check is the whole cost (no allocation).
    if (this.#streams.timing !== null) {
      const workgroups = task.indirect === undefined
        ? [task.x, task.y, task.z] as const
        : undefined;
      this.#note(
        task,
        stream,
        bindings,
        "kernel",
        0,
        reads,
        task.kernel.reflection.name,
        workgroups,
      );
    }
    try {
      // Read synchronously by the scheduler (never kept), like the launcher's arrays.
      this.#registerOptions.reads = reads;
      this.#scheduler.register(stream, task, bindings, this.#registerOptions);
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
    const errors = this.#scheduler.stream(stream).errors;
    // The single in-order queue completes marks in order, whatever their stream. A server
    // destroyed (or a device lost) meanwhile never reaches the mark: its work did not run.
    if (this.#streams.holding) {
      this.#streams.released().then(() => this.#signal(timeline, value, errors));
    } else this.#signal(timeline, value, errors);
  }

  #signal(timeline: TimelineSignal, value: bigint, errors: ComputeError[]): void {
    if (this.#destroyed) return;
    signalOnQueue(this.device.queue, {
      timeline: {
        set: (reached) => {
          const closed = this.#closedError();
          if (closed === undefined) timeline.set(reached);
          else errors.push(closed);
        },
      },
      value,
      onError: (cause) => {
        const message = `The queue failed to report completion of timeline value ${value}`;
        errors.push(new DriverError(message, { cause }));
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
      return this.#settle(this.#profiler.end(token, this.#heldWork()));
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
      return this.#settle(this.#profiler.stopTrace(info, this.#heldWork()));
    } finally {
      this.#updateTiming();
    }
  }

  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#memory.mode = mode;
  }

  /** Copies through the host: one read on this server, one `createWithData` on `destination`. */
  async copyTo(
    destination: this,
    source: CopyDescriptor,
    streams: CopyStreams,
  ): Promise<Allocation> {
    this.#assertUsable(streams?.source);
    if (!(destination instanceof WebGpuServer)) {
      throw new TypeError("destination must be a WebGpuServer");
    }
    const [bytes] = await this.read([source], streams.source);
    const handle = destination.createWithData(bytes, streams.destination);
    return { handle, strides: contiguousStrides(source.shape) };
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const pending of this.#reads) pending.cancel(); // an adopted device lives on
    this.#reads.clear();
    this.#streams.destroy();
    this.#pipelines.clear();
    this.#profiler.destroy();
    this.#infoBuffers.destroy();
    this.#arena.destroy();
    this.#memory.destroy();
    this.#gpu.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #allocate(size: number, stream: StreamId, kind?: HandleKind): Handle {
    let slice;
    try {
      slice = this.#memory.reserve(size > 0 ? size : 1);
    } catch (error) {
      throw this.#explained(error);
    }
    const cursor = this.#scheduler.stream(stream).cursor;
    return Handle.fresh(slice, stream, cursor, size, kind);
  }

  /** A reservation error, with the device limit named when the size was too big. */
  #explained(error: unknown): unknown {
    if (error instanceof BufferTooBigError) error.message += ` (${this.#storage.maxPageLimit})`;
    return error;
  }

  /** The buffer and exact byte range of a contiguous descriptor. */
  #range(descriptor: CopyDescriptor): ResourceRange<GPUBuffer> {
    if (!(descriptor?.ref instanceof HandleRef)) {
      throw new TypeError("A copy descriptor must have a HandleRef (see Handle.copyDescriptor)");
    }
    copyDescriptor(descriptor.ref, descriptor.shape, descriptor.strides, descriptor.elemSize);
    if (!isContiguous(descriptor.shape, descriptor.strides)) {
      throw new UnsupportedError(
        `WebGPU copies contiguous data only; strides [${descriptor.strides}] of shape ` +
          `[${descriptor.shape}] are not contiguous`,
        "UNSUPPORTED_STRIDES",
      );
    }
    const size = descriptor.shape.reduce((a, b) => a * b, 1) * descriptor.elemSize;
    const binding = descriptor.ref;
    const at = this.#resolve(binding);
    if (size > binding.size()) {
      throw new RangeError(
        `Copy of ${size} bytes is out of range of a ${binding.size()}-byte binding`,
      );
    }
    return { resource: at.resource, offset: at.offset, size };
  }

  #resolve(binding: HandleRef): ResourceRange<GPUBuffer> {
    return this.#locate(binding, { resource: undefined!, offset: 0, size: 0 });
  }

  /** {@linkcode #resolve} into a caller's record: the launch hot path allocates nothing. */
  #locate(binding: HandleRef, into: MutableResource): MutableResource {
    binding.assertLive();
    const at = this.#memory.get(binding.slice.record);
    into.resource = this.#storage.buffer(at.page);
    into.offset = at.offset + (binding.offsetStart ?? 0);
    into.size = binding.size();
    return into;
  }

  /** What work on the queue waits for while submissions are held back, else `undefined`. */
  #heldWork(): Promise<void> | undefined {
    return this.#streams.holding ? this.#streams.released() : undefined;
  }

  #settle<T>(promise: Promise<T>): Promise<T> {
    return settle(promise, (cause) => this.#closedError(cause));
  }

  #closedError(cause?: unknown): ComputeError | undefined {
    if (this.#destroyed) {
      return new DestroyedError("The WebGPU server was destroyed", { cause });
    }
    const lost = this.#gpu.lost;
    if (lost === undefined) return undefined;
    return new DeviceLostError(`The WebGPU device was lost (${lost})`, { cause });
  }

  /** Notes a task for the open windows and trace, with the cross-stream waits it implies. */
  #note(
    task: GpuTask,
    stream: StreamId,
    bindings: readonly HandleRef[],
    kind: "kernel" | "write" | "read",
    bytes: number,
    reads: readonly HandleRef[],
    name: string = kind,
    workgroups?: readonly [number, number, number],
  ): void {
    this.#profiler.trace?.used(stream, bindings, performance.now(), reads);
    this.#profiler.note(task, { kind, stream, name, workgroups, bytes });
  }

  #updateTiming(): void {
    this.#streams.timing = this.#profiler.active ? this.#profiler : null;
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
    if (this.#destroyed) throw new DestroyedError("The WebGPU server was destroyed");
    this.#gpu.assertUsable();
    if (stream !== undefined) assertStreamId(stream);
  }
}

/** The strides of every one-dimensional allocation (read-only in `Allocation`, so shared). */
const ONE_D: readonly number[] = Object.freeze([1]);

/** The byte size of a checked allocation descriptor (`TypeError`, `RangeError`, too big). */
function descriptorSize(
  d: AllocationDescriptor,
  index: number,
  memory: { readonly maxAllocationSize: number },
): number {
  if (d?.kind !== "contiguous" && d?.kind !== "optimized") notADescriptor(index);
  checkShape(d.shape, d.elemSize);
  let size = d.elemSize;
  for (let axis = 0; axis < d.shape.length; axis++) size *= d.shape[axis];
  if (!Number.isSafeInteger(size)) throw new BufferTooBigError(size, memory.maxAllocationSize);
  return size;
}

function notADescriptor(index: number): never {
  throw new TypeError(`descriptors[${index}] must be an AllocationDescriptor`);
}
