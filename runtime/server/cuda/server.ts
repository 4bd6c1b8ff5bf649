/**
 * The CUDA compute server: {@linkcode ComputeServer} over the CUDA driver through Deno FFI.
 *
 * - **Device**: the primary context of one device. Servers of several devices share the thread
 *   that calls the driver, so every operation first makes its own context current (one
 *   `cuCtxGetCurrent` when it is), and so does every wait resuming from the event loop. No driver
 *   call here waits on the device: host waits poll `cuEventQuery`, with a timeout (`TIMEOUT`).
 * - **Streams**: the event {@linkcode MultiStream} over non-blocking CUDA streams (`_stream.ts`).
 *   Work is submitted as it is enqueued, so `flush` has nothing to do. Every operation resolves
 *   its stream with `enforceHealthy`: after a kernel fault (a sticky driver error) streams refuse
 *   work with `STREAM_UNHEALTHY`.
 * - **Memory**: one memory manager per stream index (`_memory.ts`; the precondition of the
 *   event multi-stream), pages from `cuMemAllocAsync` or `cuMemAlloc` (`storage.ts`), 256-byte
 *   slice alignment. `optimized` allocations of rank 2+ pad rows to 16 bytes.
 * - **Copies** go through pinned staging (`_staging.ts`, `_write.ts`, `_read.ts`), contiguous or
 *   as rows at a pitch (`cuMemcpy2DAsync`); one read is one event and one host wait.
 * - **Kernels**: PTX modules cached by text, functions by program (`kernel.ts`), parameters
 *   marshalled from the bindings (`_launch.ts`). A dynamic cube count is read back to the host
 *   first: `cuLaunchKernel` takes the grid from the host, so `execute` waits (bounded by the
 *   timeout) for the counter — the one synchronous wait of the backend.
 * - **Profiling** with timing events per stream (`profiler.ts`): `timing: "device"`; traces
 *   time every launch with them (`_trace.ts`).
 * - **Server-to-server copy** goes through the host, like WebGPU's.
 * - **Timeline marks** (`signal`) are GC tasks: set once the GC stream passed the mark.
 *
 * @module
 */

import {
  type Allocation,
  type AllocationDescriptor,
  contiguousStrides,
  type CopyDescriptor,
} from "../../core/allocation.ts";
import { resolveConfig } from "../../core/config.ts";
import { DestroyedError, StreamUnhealthyError } from "../../core/errors.ts";
import { checkHandleKind, Handle, type HandleKind, HandleRef } from "../../core/handle.ts";
import type { MemoryAllocationMode } from "../../core/kernel.ts";
import { assertStreamId, type StreamId } from "../../core/stream_id.ts";
import { assertNonNegativeInteger } from "../../core/_validate.ts";
import type { MemoryUsage } from "../../memory/memory_usage.ts";
import { MultiStream } from "../../stream/event.ts";
import type { Trace } from "../../core/trace.ts";
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
import { checkLaunch } from "./_check_launch.ts";
import { launch, type LaunchContext } from "./_launch.ts";
import { allocationLayouts, checkedRange, copyLayout } from "./_layout.ts";
import { StreamMemory } from "./_memory.ts";
import { read } from "./_read.ts";
import { PinnedPool } from "./_staging.ts";
import {
  type CudaEvent,
  type CudaStream,
  CudaStreamBackend,
  EventPool,
  pollEvent,
} from "./_stream.ts";
import { enqueueWrite, writeTargets } from "./_write.ts";
import { copyWithinDevice } from "./_copy.ts";
import { CudaDevice } from "./device.ts";
import type { CudaServerOptions, CudaServerStats } from "./options.ts";

export type { CudaServerOptions, CudaServerStats };
import type { CudaKernel } from "./kernel.ts";
import { ModuleCache } from "./module_cache.ts";
import { CudaProfiler } from "./profiler.ts";
import { CudaStorage } from "./storage.ts";
import { CudaTimelineSignal } from "../../../sync/cuda_signal.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { signalEvents } from "./_signal.ts";

/**
 * A compute server on a CUDA device.
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * using handle = server.createWithData(new Uint8Array([1, 2, 3, 4]), 0);
 * const [bytes] = await server.read([handle.copyDescriptor([4], [1], 1)], 0);
 * console.log(bytes); // Uint8Array [1, 2, 3, 4]
 * ```
 */
export class CudaServer implements ComputeServer<CudaKernel, bigint> {
  readonly properties: DeviceProperties;
  readonly #device: CudaDevice;
  readonly #events: EventPool;
  readonly #backend: CudaStreamBackend;
  readonly #streams: MultiStream<CudaStream, CudaEvent>;
  readonly #memory: StreamMemory;
  readonly #pinned: PinnedPool;
  readonly #modules: ModuleCache;
  readonly #profiler: CudaProfiler;
  readonly #timeoutMs: number;
  readonly #signals = new Set<CudaTimelineSignal<Deno.PointerValue>>();
  #launchContext: LaunchContext | undefined;
  /** Set when a reservation allocated a page in its stream's order (`cuMemAllocAsync`). */
  #streamOrderedPage = false;
  #destroyed = false;

  /** Opens the device (`BACKEND_UNAVAILABLE` when there is none) and builds a server on it. */
  static create(options: CudaServerOptions = {}): CudaServer {
    const device = CudaDevice.open(options);
    try {
      return new CudaServer(device, options);
    } catch (error) {
      device.destroy();
      throw error;
    }
  }

  /** Builds a server on an opened device, taking it over; prefer {@linkcode CudaServer.create}. */
  constructor(device: CudaDevice, options: CudaServerOptions = {}) {
    const config = resolveConfig(options);
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    const driver = device.driver;
    this.#device = device;
    this.#timeoutMs = timeoutMs;
    const wait = { timeoutMs, destroyed: () => this.#destroyed, bind: this.#bind };
    this.#events = new EventPool(driver);
    this.#backend = new CudaStreamBackend(driver, this.#events, wait);
    this.#streams = new MultiStream(this.#backend, {
      maxStreams: config.maxStreams,
      maxPendingGc: options.maxPendingGc ?? 64,
    });
    const asyncAlloc = (options.memoryPools ?? true) && device.attributes.memoryPools;
    this.#memory = new StreamMemory(
      (index) =>
        new CudaStorage(driver, {
          stream: () => this.#streams.stream(index),
          events: this.#events,
          asyncAlloc,
          onStreamOrdered: () => this.#streamOrderedPage = true,
        }),
      {
        memory: {
          maxAllocationSize: Math.min(2 ** 31, device.totalMemory),
          ...options.memory,
        },
        maxStreams: config.maxStreams,
        freeBytes: () => device.memoryInfo().free,
      },
    );
    this.#pinned = new PinnedPool(driver, this.#events);
    this.#modules = new ModuleCache(driver, {
      nvrtcLibrary: options.nvrtcLibrary,
      computeCapability: device.attributes.computeCapability,
      maxSharedMemoryPerBlockOptin: device.attributes.maxSharedMemoryPerBlockOptin,
      driverVersion: device.driverVersion,
    });
    this.#profiler = new CudaProfiler(driver, wait);
    this.properties = {
      backend: "cuda",
      deviceName: device.name,
      maxAllocationSize: this.#memory.maxAllocationSize,
      deviceTimer: true,
    };
  }

  /** The device. */
  get device(): CudaDevice {
    return this.#device;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** A snapshot of the counters. */
  stats(): CudaServerStats {
    return {
      pinnedInFlight: this.#pinned.inFlight,
      pinnedAllocations: this.#pinned.allocations,
      moduleLoads: this.#modules.loads,
      events: this.#events.size,
      streams: this.#backend.streams.length,
    };
  }

  /**
   * A timeline signal on `stream`: `record(v)` after submitting work there, then `wait(v)`.
   * Destroyed with the server at the latest.
   */
  timelineSignal(stream: StreamId): CudaTimelineSignal<Deno.PointerValue> {
    this.#assertUsable(stream);
    const signal = new CudaTimelineSignal(
      signalEvents(this.#device.driver, this.#streams.stream(stream), {
        destroyed: () => this.#destroyed,
        bind: this.#bind,
      }),
    );
    this.#signals.add(signal);
    return signal;
  }

  /**
   * Sets `timeline` to `value` once the work enqueued so far on `stream` has completed: the GC
   * stream waits on an event of `stream` and the mark rides on the GC task of that wait, so marks
   * complete in the order they were made (the GC stream's order), whatever their streams. A
   * failed or timed-out event never reaches the mark and poisons the stream (its next `sync` or
   * `read` reports it); a destroyed server never reaches it either.
   */
  signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    this.#assertUsable(stream);
    using resolved = this.#resolve(stream, []);
    resolved.gc({
      [Symbol.dispose]: () => {
        if (!this.#destroyed) timeline.set(value);
      },
    });
  }

  /**
   * The `CUstream` behind a logical stream, to enqueue your own work in the runtime's order on
   * it, e.g. on memory leased by {@linkcode getResource} (which orders this stream after the
   * binding's writers on other streams). Do not destroy it.
   */
  cudaStream(stream: StreamId): Deno.PointerValue {
    this.#assertUsable(stream);
    return this.#streams.stream(stream).handle;
  }

  /** Loads a kernel's module and function now; `COMPILATION` when the driver rejects it. */
  compile(kernel: CudaKernel): void {
    this.#assertUsable();
    this.#modules.function(kernel);
  }

  create(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[] {
    this.#assertUsable(stream);
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    const layouts = allocationLayouts(descriptors, this.#memory.maxAllocationSize);
    const allocations: Allocation[] = [];
    try {
      for (const { bytes, strides } of layouts) {
        allocations.push({ handle: this.#allocate(bytes, stream), strides });
      }
    } catch (error) {
      for (const allocation of allocations) allocation.handle.dispose();
      throw error;
    }
    return allocations;
  }

  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    assertNonNegativeInteger(byteSize, "byteSize");
    if (kind !== undefined) checkHandleKind(byteSize, kind);
    return this.#allocate(byteSize, stream, kind);
  }

  /**
   * Pinned host buffers: `write` copies straight from them (no extra host copy). They stay valid
   * until the server is destroyed; do not change one that a `write` reads until that write
   * completed (a later `sync` or `read` on its stream).
   */
  staging(sizes: readonly number[], stream: StreamId): Uint8Array[] {
    this.#assertUsable(stream);
    if (!Array.isArray(sizes)) throw new TypeError("sizes must be an array");
    for (const size of sizes) {
      if (!Number.isInteger(size) || size < 0) {
        throw new RangeError(`staging sizes must be non-negative integers, got ${size}`);
      }
    }
    return sizes.map((size) => this.#pinned.userBuffer(size));
  }

  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    if (kind !== undefined) checkHandleKind(data.byteLength, kind);
    const handle = this.#allocate(data.byteLength, stream, kind);
    try {
      this.write([{ descriptor: handle.copyDescriptor([data.byteLength], [1], 1), data }], stream);
    } catch (error) {
      handle.dispose();
      throw error;
    }
    return handle;
  }

  async read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]> {
    this.#assertUsable(stream);
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    this.#streams.errors.throwFor(stream);
    const sources = descriptors.map((d) => ({ at: this.#range(d), layout: copyLayout(d) }));
    const trace = this.#profiler.trace, start = trace && performance.now();
    const resolved = this.#resolve(stream, descriptors.map((d) => d.ref));
    // read() enqueues synchronously, up to its first await: finish right after.
    const pending = read(
      this.#copyContext(),
      sources,
      resolved.stream,
      this.#wait("a read"),
    );
    resolved.finish();
    if (trace === undefined) return this.#settled(await pending);
    const bytes = sources.reduce((sum, s) => sum + s.layout.bytes, 0);
    trace.copy("read", stream, bytes);
    const mapStart = performance.now(), result = this.#settled(await pending);
    trace.span({ type: "read", stream, start: start!, mapStart, bytes });
    return this.#sampleMemory(result);
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    const targets = writeTargets(entries, (descriptor) => this.#range(descriptor));
    if (targets.length === 0) return;
    using resolved = this.#resolve(stream, entries.map((e) => e.descriptor.ref));
    enqueueWrite(this.#copyContext(), targets, resolved.stream);
    this.#profiler.trace?.copy("write", stream, targets.reduce((n, t) => n + t.layout.bytes, 0));
  }

  async sync(stream: StreamId): Promise<void> {
    this.#assertUsable(stream);
    this.#streams.errors.throwFor(stream);
    const trace = this.#profiler.trace, start = trace && performance.now();
    const events = this.#backend.streams.map((s) => this.#backend.flush(s));
    try {
      for (const event of events) {
        await pollEvent(
          this.#device.driver,
          event.handle,
          this.#wait("the synchronization of a stream"),
        );
      }
    } finally {
      for (const event of events) this.#events.release(event);
    }
    await this.#streams.drain();
    this.#settled(undefined);
    this.#bind();
    this.#pinned.collect();
    trace?.span({ type: "sync", stream, start: start! });
    this.#sampleMemory(undefined);
  }

  /**
   * The device pointer behind a binding, leased: `stream`'s CUDA stream is first made to wait on
   * the other streams' work on the binding (the work itself is already submitted), and the
   * memory is not reused until the lease is released.
   */
  getResource(binding: HandleRef, stream: StreamId): ResourceLease<bigint> {
    this.#assertUsable(stream);
    if (!(binding instanceof HandleRef)) throw new TypeError("getResource needs a HandleRef");
    const at = this.#bindingResource(binding);
    this.#resolve(stream, [binding]).finish();
    const pin = binding.slice.record.pin();
    return {
      ...at,
      get released() {
        return pin.record === undefined;
      },
      release: () => pin.release(),
      [Symbol.dispose]: () => pin.release(),
    };
  }

  execute(kernelLaunch: KernelLaunch<CudaKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    checkLaunch(kernelLaunch);
    this.#assertHealthy(stream);
    this.#launchContext ??= {
      ...this.#copyContext(),
      modules: this.#modules,
      attributes: this.#device.attributes,
      timeoutMs: this.#timeoutMs,
      resolveBinding: (binding) => this.#bindingResource(binding),
      resolveStreams: (stream, bindings) => this.#resolve(stream, bindings),
      timeLaunch: (stream, id, kernel, workgroups) =>
        this.#profiler.timeLaunch(stream, id, kernel, workgroups),
    };
    launch(this.#launchContext, kernelLaunch, stream);
  }

  flush(stream: StreamId): void {
    // Work reaches the device as it is enqueued; flushing only recycles finished staging.
    this.#assertUsable(stream);
    this.#pinned.collect();
  }

  memoryUsage(stream: StreamId): MemoryUsage {
    this.#assertUsable(stream);
    return this.#memory.usage();
  }

  memoryCleanup(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#pinned.collect();
    this.#memory.cleanup(true);
  }

  startProfile(stream: StreamId, options?: StartProfileOptions): ProfilingToken {
    this.#assertUsable(stream);
    return this.#profiler.start(this.#streams.stream(stream), options);
  }

  async endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertUsable(stream);
    return this.#settled(await this.#profiler.end(this.#streams.stream(stream), token));
  }

  /** Starts recording every stream's timeline: every launch is timed by timing events. */
  startTrace(): void {
    this.#assertUsable();
    this.#profiler.startTrace();
    this.#sampleMemory(undefined);
  }

  /** Stops the recording and returns it once its kernels completed. */
  async stopTrace(): Promise<Trace> {
    this.#assertUsable();
    this.#sampleMemory(undefined);
    const info = { backend: "cuda", device: this.properties.deviceName };
    return this.#settled(await this.#profiler.stopTrace(info));
  }

  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#memory.mode = mode;
  }

  /**
   * Copies into a new contiguous allocation of `destination`. On the same device (one context)
   * the copy stays on the device: the destination stream waits on an event of the source stream,
   * then `cuMemcpyDtoDAsync` (or 2D); the source stays pinned until the copy completed (for good
   * if the wait fails). Across devices it goes through the host.
   */
  async copyTo(
    destination: this,
    source: CopyDescriptor,
    streams: CopyStreams,
  ): Promise<Allocation> {
    this.#assertUsable(streams?.source);
    if (!(destination instanceof CudaServer)) {
      throw new TypeError("destination must be a CudaServer");
    }
    destination.#assertUsable(streams.destination);
    const strides = contiguousStrides(source.shape);
    if (
      destination.#device.driver !== this.#device.driver ||
      destination.#device.ordinal !== this.#device.ordinal
    ) {
      const [bytes] = await this.read([source], streams.source);
      return { handle: destination.createWithData(bytes, streams.destination), strides };
    }
    const handle = await copyWithinDevice({
      source,
      from: this.#range(source),
      orderSource: () => {
        using resolved = this.#resolve(streams.source, [source.ref]);
        return this.#events.record(resolved.stream);
      },
      allocate: (bytes) => destination.#allocate(bytes, streams.destination),
      resolveTarget: (binding) => ({
        at: destination.#bindingResource(binding),
        resolved: destination.#resolve(streams.destination, [binding]),
      }),
      driver: this.#device.driver,
      events: this.#events,
      wait: destination.#wait("a device-to-device copy"),
    });
    return { handle, strides };
  }

  /**
   * Releases everything the server created. Device pages are freed in their streams' order;
   * pinned buffers whose copies have not completed are left allocated rather than freed under
   * the device. Idempotent.
   */
  destroy(): void {
    if (this.#destroyed) return;
    try {
      this.#device.makeCurrent(); // the frees and destroys below act in this context
    } catch { /* they fail then, and the context is released all the same */ }
    this.#destroyed = true;
    // Best effort, in order: after a sticky error the driver refuses frees, yet the context
    // must still be released.
    const steps = [
      // Pending GC tasks fail with DESTROYED now (their payloads stay held): no poll outlives us.
      () => this.#streams.pollGc(),
      ...[...this.#signals].map((signal) => () => signal.destroy()),
      () => this.#profiler.destroy(),
      () => this.#backend.join(),
      () => this.#memory.destroy(),
      () => this.#backend.destroy(),
      () => this.#pinned.destroy(),
      () => this.#modules.clear(),
      () => this.#events.destroy(),
    ];
    for (const step of steps) {
      try {
        step();
      } catch { /* the context is going away; its memory with it */ }
    }
    this.#device.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #allocate(size: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#streamOrderedPage = false;
    const slice = this.#memory.reserve(Math.max(1, size), stream);
    if (this.#streamOrderedPage) {
      // The new page exists from this point of the stream's order: a new cursor stamps the handle
      // after it, so a first use on another stream waits on an event recorded after it.
      try {
        this.#streams.order(stream, []).finish();
      } catch (error) {
        Handle.fresh(slice, stream, 0, size).dispose(); // a poisoned stream: give the slice back
        throw error;
      }
    }
    return Handle.fresh(slice, stream, this.#streams.cursor(stream), size, kind);
  }

  #resolve(stream: StreamId, bindings: readonly HandleRef[]) {
    this.#profiler.trace?.used(stream, bindings);
    return this.#streams.order(stream, bindings, { enforceHealthy: true });
  }

  #copyContext() {
    return {
      driver: this.#device.driver,
      pinned: this.#pinned,
      events: this.#events,
      bind: this.#bind,
    };
  }

  #wait(what: string) {
    return { timeoutMs: this.#timeoutMs, what, destroyed: () => this.#destroyed, bind: this.#bind };
  }

  /**
   * Makes this server's context current (see `CudaDevice.makeCurrent`): before every driver call
   * that runs after an `await` or from a timer, when another server may have made its own current.
   */
  readonly #bind = (): void => {
    if (!this.#destroyed) this.#device.makeCurrent();
  };

  #bindingResource(binding: HandleRef): ResourceRange<bigint> {
    binding.assertLive();
    const { resource } = this.#memory.resolve(binding.slice.record, binding.stream);
    return {
      resource: resource.resource,
      offset: resource.offset + (binding.offsetStart ?? 0),
      size: binding.size(),
    };
  }

  /** The device range of a descriptor, checked (a hand-built one too) against its binding. */
  #range(descriptor: CopyDescriptor): ResourceRange<bigint> {
    return checkedRange(descriptor, (binding) => this.#bindingResource(binding));
  }

  /**
   * A host wait's result, or `DESTROYED` if the server was destroyed before it settled: the
   * last poll may have seen the work complete before `destroy`, but the caller is told once, the
   * same way whatever the timing.
   */
  #settled<T>(value: T): T {
    if (this.#destroyed) throw new DestroyedError("The CUDA server was destroyed");
    return value;
  }

  /** Samples the memory counter into the running trace, if any; returns `value`. */
  #sampleMemory<T>(value: T): T {
    const usage = this.#profiler.trace && this.#memory.usage();
    if (usage) this.#profiler.trace!.memory(usage.bytesInUse, usage.bytesReserved);
    return value;
  }

  #assertHealthy(stream: StreamId): void {
    if (!this.#backend.isHealthy(this.#streams.stream(stream))) {
      throw new StreamUnhealthyError(stream);
    }
  }

  /** Throws `DESTROYED` (or for a bad stream id), then makes this server's context current. */
  #assertUsable(stream?: StreamId): void {
    if (this.#destroyed) throw new DestroyedError("The CUDA server was destroyed");
    if (stream !== undefined) assertStreamId(stream);
    this.#device.makeCurrent();
  }
}
