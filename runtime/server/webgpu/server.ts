/**
 * The WebGPU compute server: {@linkcode ComputeServer} over `navigator.gpu`.
 *
 * - **Memory**: {@linkcode MemoryManagement} over {@linkcode WebGpuStorage} pages; the largest
 *   allocation is the smaller of `maxBufferSize` and `maxStorageBufferBindingSize`. `optimized`
 *   allocations are contiguous (WebGPU gains nothing from padded rows).
 * - **Streams**: a {@linkcode SchedulerMultiStream} over the single queue. Executing a stream
 *   encodes its tasks into one command encoder (consecutive dispatches share one compute pass) and
 *   submits once. Writes are encoded as copies from a staging buffer, never `queue.writeBuffer`
 *   into memory that queued tasks use (it would run ahead of them).
 * - **Reads** copy every source into one staging buffer mapped once (one round trip for K reads).
 * - **Deferred errors**: WebGPU validates asynchronously. A kernel first compiled by `execute`
 *   that turns out invalid is reported by the next `sync()` or `read()` (and every later `execute`
 *   of that kernel id throws its `CompilationError` at once). Call {@linkcode compile} to get the
 *   error eagerly.
 * - **Server-to-server copy** goes through the host: a read on the source, then `createWithData`
 *   on the destination (two devices cannot share buffers in WebGPU).
 * - `staging` is `UNSUPPORTED`: WebGPU exposes no pinned host memory.
 *
 * @module
 */

import { resolveConfig, type RuntimeOptions } from "../../core/config.ts";
import { MemoryManagement, type MemoryManagementOptions } from "../../memory/memory_management.ts";
import type { MemoryUsage } from "../../memory/memory_usage.ts";
import { SchedulerMultiStream } from "../../stream/scheduler.ts";
import { assertStreamId, type StreamId } from "../../core/stream_id.ts";
import {
  BufferTooBigError,
  type ComputeError,
  RuntimeError,
  UnsupportedError,
} from "../../core/errors.ts";
import { type Binding, Handle } from "../../core/handle.ts";
import {
  type Allocation,
  type AllocationDescriptor,
  contiguousStrides,
  type CopyDescriptor,
  isContiguous,
} from "../../core/allocation.ts";
import type {
  BindingResource,
  ComputeServer,
  CopyStreams,
  DeviceProperties,
  KernelLaunch,
  ProfileDuration,
  ProfilingToken,
  WriteEntry,
} from "../server.ts";
import type { MemoryAllocationMode } from "../../core/kernel.ts";
import { type EncoderStream, EncoderStreams, type GpuTask } from "./_stream.ts";
import { BindGroupCache } from "./_bind_group_cache.ts";
import { InfoBufferPool } from "./_info_buffers.ts";
import { prepareLaunch } from "./_launch.ts";
import { prepareRead } from "./_read.ts";
import { WebGpuDevice, type WebGpuDeviceOptions } from "./device.ts";
import type { WgslKernel } from "./kernel.ts";
import { PipelineCache } from "./_pipeline_cache.ts";
import { WebGpuProfiler } from "./profiler.ts";
import { WebGpuStorage } from "./storage.ts";
import { BufferUsage } from "./_buffer_usage.ts";

/** Options of {@linkcode WebGpuServer.create}: device choice, runtime options, memory pools. */
export interface WebGpuServerOptions extends WebGpuDeviceOptions, RuntimeOptions {
  /**
   * Memory pool options; `maxAllocationSize` defaults to the device's largest page.
   * @default {{}}
   */
  memory?: MemoryManagementOptions;
}

/** Counters of a server, for tests and benchmarks. */
export interface WebGpuServerStats {
  /** `mapAsync` calls made by reads. */
  readonly mapAsync: number;
  /** Command buffers submitted by streams. */
  readonly submits: number;
  /** Compute passes begun. */
  readonly passes: number;
  /** Pipeline cache hits and misses. */
  readonly pipelineHits: number;
  /** Pipeline cache misses (compilations). */
  readonly pipelineMisses: number;
  /** Dispatches that reused a cached bind group. */
  readonly bindGroupHits: number;
  /** `mapAsync` calls made to read timestamps. */
  readonly profileMaps: number;
}

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
  readonly #memory: MemoryManagement<BindingResource<GPUBuffer>>;
  readonly #streams: EncoderStreams;
  readonly #scheduler: SchedulerMultiStream<GpuTask, EncoderStream>;
  readonly #pipelines: PipelineCache;
  readonly #infoBuffers: InfoBufferPool;
  readonly #bindGroups: BindGroupCache;
  readonly #profiler: WebGpuProfiler;
  readonly #readStats = { mapAsync: 0 };
  readonly #errors: ComputeError[] = [];
  readonly #watched = new WeakSet<object>();
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
    this.#profiler = new WebGpuProfiler(device, { timestamps: gpu.timestamps });
    this.#streams = new EncoderStreams(device, {
      passTimestamps: () => this.#profiler.passTimestamps(),
      onError: (error) => this.#errors.push(error),
    });
    this.#scheduler = new SchedulerMultiStream(this.#streams, {
      maxStreams: config.maxStreams,
      maxTasks: config.maxTasks,
      strategy: config.strategy,
    });
    this.#pipelines = new PipelineCache(device);
    this.#infoBuffers = new InfoBufferPool(device);
    this.#bindGroups = new BindGroupCache(device);
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
    const sizes = descriptors.map((d) =>
      d.shape.reduce((a: number, b: number) => a * b, 1) * d.elemSize
    );
    const allocations: Allocation[] = [];
    try {
      for (const [i, descriptor] of descriptors.entries()) {
        const handle = this.#allocate(sizes[i], stream);
        allocations.push({ handle, strides: contiguousStrides(descriptor.shape) });
      }
    } catch (error) {
      for (const allocation of allocations) allocation.handle.dispose();
      throw error;
    }
    return allocations;
  }

  staging(_sizes: readonly number[], _stream: StreamId): Uint8Array[] {
    this.#assertUsable();
    throw new UnsupportedError("WebGPU has no pinned host memory: staging is not supported");
  }

  createWithData(data: Uint8Array, stream: StreamId): Handle {
    this.#assertUsable(stream);
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    const handle = this.#allocate(data.byteLength, stream);
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
    const sources = descriptors.map((d) => this.#range(d));
    const pending = prepareRead(this.device, sources, this.#readStats);
    try {
      const read = descriptors.map((d) => d.binding);
      this.#scheduler.register(stream, pending.task, read, { reads: read });
    } catch (error) {
      pending.cancel();
      throw error;
    }
    this.#scheduler.executeStreams([stream]);
    const bytes = await pending.result();
    this.#throwDeferred();
    return bytes;
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    const targets = entries.map((entry) => {
      const at = this.#range(entry.descriptor);
      if (entry.data.byteLength !== at.size) {
        throw new RangeError(
          `Write of ${entry.data.byteLength} bytes into a descriptor of ${at.size} bytes`,
        );
      }
      const slice = this.#memory.get(entry.descriptor.binding.memory.id);
      const endsSlice = at.offset + at.size === slice.offset + slice.size;
      if (at.offset % 4 !== 0 || (at.size % 4 !== 0 && !endsSlice)) {
        throw new RangeError(
          `WebGPU copies 4-byte units: cannot write ${at.size} bytes at byte ${at.offset}`,
        );
      }
      return { at, padded: Math.ceil(at.size / 4) * 4 };
    });
    const total = targets.reduce((sum, t) => sum + t.padded, 0);
    if (total === 0) return;
    const staging = this.device.createBuffer({
      size: total,
      usage: BufferUsage.COPY_SRC,
      mappedAtCreation: true,
    });
    const bytes = new Uint8Array(staging.getMappedRange());
    let offset = 0;
    const copies = targets.map((target, i) => {
      bytes.set(entries[i].data, offset);
      const copy = {
        source: staging,
        sourceOffset: offset,
        destination: target.at.resource,
        destinationOffset: target.at.offset,
        size: target.padded,
      };
      offset += target.padded;
      return copy;
    }).filter((copy) => copy.size > 0);
    staging.unmap();
    const task: GpuTask = { kind: "copy", copies, done: () => staging.destroy() };
    try {
      this.#scheduler.register(stream, task, entries.map((e) => e.descriptor.binding));
    } catch (error) {
      staging.destroy();
      throw error;
    }
  }

  async sync(stream: StreamId): Promise<void> {
    this.#assertUsable(stream);
    this.#scheduler.executeAll();
    await this.device.queue.onSubmittedWorkDone();
    this.#throwDeferred();
  }

  getResource(binding: Binding, stream: StreamId): BindingResource<GPUBuffer> {
    this.#assertUsable(stream);
    return this.#resolve(binding);
  }

  execute(launch: KernelLaunch<WgslKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    const prepared = prepareLaunch({
      device: this.device,
      pipelines: this.#pipelines,
      infoBuffers: this.#infoBuffers,
      bindGroups: this.#bindGroups,
      resolve: (binding) => this.#resolve(binding),
    }, launch);
    const compiled = prepared.task.kernel;
    if (compiled.state === "pending" && !this.#watched.has(compiled)) {
      this.#watched.add(compiled);
      compiled.settled.then(() => compiled.error && this.#errors.push(compiled.error));
    }
    try {
      this.#scheduler.register(stream, prepared.task, prepared.bindings, { reads: prepared.reads });
    } catch (error) {
      prepared.cancel();
      throw error;
    }
  }

  flush(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#scheduler.executeStreams([stream]);
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
  }

  startProfile(stream: StreamId): ProfilingToken {
    this.#assertUsable(stream);
    this.#scheduler.executeAll();
    return this.#profiler.start();
  }

  async endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertUsable(stream);
    this.#scheduler.executeAll();
    return await this.#profiler.end(token);
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
    this.#pipelines.clear();
    this.#profiler.destroy();
    this.#infoBuffers.destroy();
    this.#memory.destroy();
    this.#gpu.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #allocate(size: number, stream: StreamId): Handle {
    let slice;
    try {
      slice = this.#memory.reserve(Math.max(1, size));
    } catch (error) {
      if (error instanceof BufferTooBigError) error.message += ` (${this.#storage.maxPageLimit})`;
      throw error;
    }
    const cursor = this.#scheduler.stream(stream).cursor;
    return new Handle(slice, { stream, cursor, size });
  }

  /** The buffer and exact byte range of a contiguous descriptor. */
  #range(descriptor: CopyDescriptor): BindingResource<GPUBuffer> {
    if (!isContiguous(descriptor.shape, descriptor.strides)) {
      throw new UnsupportedError(
        `WebGPU copies contiguous data only; strides [${descriptor.strides}] of shape ` +
          `[${descriptor.shape}] are not contiguous`,
        "UNSUPPORTED_STRIDES",
      );
    }
    const size = descriptor.shape.reduce((a, b) => a * b, 1) * descriptor.elemSize;
    const binding = descriptor.binding;
    const at = this.#resolve(binding);
    if (size > binding.size()) {
      throw new RangeError(
        `Copy of ${size} bytes is out of range of a ${binding.size()}-byte binding`,
      );
    }
    return { resource: at.resource, offset: at.offset, size };
  }

  #resolve(binding: Binding): BindingResource<GPUBuffer> {
    binding.assertLive();
    const at = this.#memory.get(binding.memory.id);
    return this.#storage.resource({
      page: at.page,
      offset: at.offset + (binding.offsetStart ?? 0),
      size: binding.size(),
    });
  }

  #throwDeferred(): void {
    const error = this.#errors.shift();
    if (error !== undefined) throw error;
  }

  #assertUsable(stream?: StreamId): void {
    if (this.#destroyed) throw new RuntimeError("DESTROYED", "The WebGPU server was destroyed");
    this.#gpu.assertUsable();
    if (stream !== undefined) assertStreamId(stream);
  }
}
