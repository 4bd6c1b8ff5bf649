/**
 * The CUDA compute server: {@linkcode ComputeServer} over the CUDA driver through Deno FFI, its
 * parts made in dependency order (`_parts.ts`), the shared server layer's (`../shared/`) for what
 * every backend does alike. Work goes out as enqueued on non-blocking streams ordered by the event
 * multi-stream; memory is per stream index; host waits park a non-blocking `cuEventSynchronize`
 * (`queue/_host_wait.ts`) with a timeout. See docs/architecture.md and docs/devices.md.
 *
 * @module
 */

import {
  type Allocation,
  type AllocationDescriptor,
  contiguousStrides,
  type CopyDescriptor,
} from "../../core/allocation.ts";
import type { Handle, HandleKind } from "../../core/handles/handle.ts";
import { HandleRef } from "../../core/handles/handle_ref.ts";
import type { KernelParams, MemoryAllocationMode } from "../../core/kernel.ts";
import { captureCudaGraph } from "./launch/_graph.ts";
import { checkCompile } from "./launch/_check_launch.ts";
import { launchBlock } from "./launch/_block.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { MemoryUsage } from "../../memory/memory_usage.ts";
import type { Trace } from "../../core/trace.ts";
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
  copyThroughHost,
  createAllocations,
  createWithData,
  leaseResource,
  ServerState,
} from "../shared/mod.ts";
import { optimizedLayout } from "./memory/_copy_layout.ts";
import { finishAfter, read, readSources } from "./memory/_read.ts";
import { CudaParts } from "./_parts.ts";
import { enqueueWrite, writeTargetsOf } from "./memory/_write.ts";
import { CudaDevice } from "./device.ts";
import { waitOnMark } from "./queue/_marks.ts";
import { copyOnDevices, enqueueCopyBetween } from "./memory/_peer.ts";
import { orderOn } from "./memory/_copy.ts";
import type { CudaServerOptions, CudaServerStats } from "./options.ts";
import type { CudaKernel } from "./kernel.ts";
import type { CudaTimelineSignal } from "../../../sync/cuda_signal.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";

export type { CudaServerOptions, CudaServerStats };

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
  readonly #state = new ServerState("CUDA server");
  readonly #parts: CudaParts;
  readonly #locate = (ref: HandleRef) => this.#parts.memory.locate(ref);

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
    this.#parts = new CudaParts(device, options, this.#state);
    this.properties = {
      backend: "cuda",
      deviceName: device.name,
      maxAllocationSize: this.#parts.memory.maxAllocationSize,
      deviceTimer: true,
    };
  }

  /** The device. */
  get device(): CudaDevice {
    return this.#parts.device;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#state.destroyed;
  }

  /** A snapshot of the counters. */
  stats(): CudaServerStats {
    return this.#parts.stats();
  }

  /** A timeline signal on `stream` (`record(v)`, then `wait(v)`), destroyed with the server. */
  timelineSignal(stream: StreamId): CudaTimelineSignal<Deno.PointerValue> {
    this.#assertUsable(stream);
    return this.#parts.timelineSignal(stream);
  }

  /**
   * Sets `timeline` to `value` once the work enqueued so far on `stream` completed, in the order
   * marks were made (`CudaParts.signal`); a mark never reached is told to the timeline.
   */
  signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.signal(timeline, value, stream);
  }

  /**
   * Makes `stream` wait on the device for `timeline` to reach `value` when a CUDA server of the
   * same driver marked that value with `signal`, or `timeline` is a signal of `timelineSignal`
   * (`cuStreamWaitEvent`); false when there is no such event (then wait on the host).
   */
  waitSignal(timeline: TimelineSignal, value: bigint, stream: StreamId): boolean {
    this.#assertUsable(stream);
    return waitOnMark(this.#parts, { timeline, value, stream });
  }

  /** Enqueues a copy on the devices (`_peer.ts`); false where it must go through the host. */
  enqueueCopy(
    destination: this,
    source: CopyDescriptor,
    target: CopyDescriptor,
    streams: CopyStreams,
    settled?: Disposable & { fail(error: unknown): void },
  ): boolean {
    const to = this.#destinationParts(destination, streams);
    const request = { source, target, streams, settled };
    return enqueueCopyBetween(this.#parts, to, request) !== undefined;
  }

  /**
   * The `CUstream` behind a logical stream, to enqueue your own work in the runtime's order on it
   * (e.g. on memory leased by {@linkcode getResource}). Do not destroy it.
   */
  cudaStream(stream: StreamId): Deno.PointerValue {
    this.#assertUsable(stream);
    return this.#parts.streams.stream(stream).handle;
  }

  /** Loads a kernel's module and function now; `COMPILATION` when the driver rejects it. */
  compile(kernel: CudaKernel, options?: Pick<KernelLaunch<CudaKernel>, "overrides">): void {
    this.#assertUsable();
    checkCompile(kernel, options?.overrides); // as execute checks it: WGSL, overrides
    this.#parts.modules.function(kernel);
    // A block the kernel (`.reqntid`, `.maxntid`) or the device cannot run, refused as a launch
    // refuses it (the WebGPU backend refuses such a workgroup size here too).
    launchBlock(this.#parts.modules, this.#parts.launcher.parts.attributes, kernel);
  }

  create(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[] {
    this.#assertUsable(stream);
    return createAllocations(descriptors, stream, {
      layout: optimizedLayout,
      memory: this.#parts.memory,
    });
  }

  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    checkEmpty(byteSize, kind);
    return this.#parts.memory.allocate(byteSize, stream, kind);
  }

  /**
   * Pinned host buffers: `write` copies straight from them (no extra host copy). They stay valid
   * until the server is destroyed; do not change one that a `write` reads until that write
   * completed (a later `sync` or `read` on its stream).
   */
  staging(sizes: readonly number[], stream: StreamId): Uint8Array[] {
    this.#assertUsable(stream);
    return this.#parts.pinned.userBuffers(sizes);
  }

  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle {
    this.#assertUsable(stream);
    return createWithData(data, kind, stream, { memory: this.#parts.memory, server: this });
  }

  async read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]> {
    this.#assertUsable(stream);
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    this.#parts.streams.errors.throwFor(stream);
    const sources = readSources(descriptors, this.#locate);
    const trace = this.#parts.profiler.trace, start = trace && performance.now();
    const ordered = orderOn(this.#parts, stream, descriptors.map((d) => d.ref));
    // read() enqueues synchronously, up to its first await: finish right after.
    const pending = read(this.#parts.copy, sources, ordered.stream, this.#parts.wait("a read"));
    finishAfter(ordered, pending);
    if (trace === undefined) return this.#settled(await pending);
    const bytes = sources.reduce((sum, s) => sum + s.layout.bytes, 0);
    trace.copy("read", stream, bytes);
    const mapStart = performance.now(), result = this.#settled(await pending);
    trace.span({ type: "read", stream, start: start!, mapStart, bytes });
    return this.#parts.sampleMemory(result);
  }

  write(entries: readonly WriteEntry[], stream: StreamId): void {
    this.#assertUsable(stream);
    const targets = writeTargetsOf(entries, this.#locate);
    if (targets.length === 0) return;
    using ordered = orderOn(this.#parts, stream, entries.map((e) => e.descriptor.ref));
    enqueueWrite(this.#parts.copy, targets, ordered.stream);
    const trace = this.#parts.profiler.trace;
    trace?.copy("write", stream, targets.reduce((n, t) => n + t.layout.bytes, 0));
  }

  async sync(stream: StreamId): Promise<void> {
    this.#assertUsable(stream);
    this.#parts.streams.errors.throwFor(stream);
    const trace = this.#parts.profiler.trace, start = trace && performance.now();
    await this.#parts.completeAll();
    this.#settled(undefined);
    this.#parts.bind();
    this.#parts.pinned.collect();
    this.#parts.memory.collectFrees(); // pages given back since: their stream work completed
    trace?.span({ type: "sync", stream, start: start! });
    this.#parts.sampleMemory(undefined);
  }

  /**
   * The device pointer behind a ref, leased: `stream`'s CUDA stream is first made to wait on the
   * other streams' work on the ref (the work itself is already submitted), and the memory is not
   * reused until the lease is released.
   */
  getResource(ref: HandleRef, stream: StreamId): ResourceLease<bigint> {
    this.#assertUsable(stream);
    if (!(ref instanceof HandleRef)) throw new TypeError("getResource needs a HandleRef");
    const at = this.#parts.memory.locate(ref);
    orderOn(this.#parts, stream, [ref]).finish();
    return leaseResource(at, ref);
  }

  checkLaunch(kernelLaunch: KernelLaunch<CudaKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.launcher.prepare(kernelLaunch); // every check of execute, nothing enqueued
  }

  checkRef(ref: HandleRef): void {
    this.#assertUsable();
    this.#locate(ref);
  }

  execute(kernelLaunch: KernelLaunch<CudaKernel>, stream: StreamId): void {
    this.#assertUsable(stream);
    // The stream's health is checked by the order (`enforceHealthy`), before anything is enqueued.
    this.#parts.launcher.enqueue(this.#parts.launcher.prepare(kernelLaunch), stream);
  }

  writtenBuffers(kernelLaunch: KernelLaunch<CudaKernel>): readonly HandleRef[] {
    return this.#parts.launcher.written(kernelLaunch);
  }

  /** Checks `launches` and records them as one CUDA graph (`launch/_graph.ts`). */
  captureGraph(
    launches: readonly KernelLaunch<CudaKernel>[],
    stream: StreamId,
    label: string,
  ): Promise<Disposable & { replay(stream: StreamId, params?: KernelParams): void }> {
    this.#assertUsable(stream);
    const usable = (id: StreamId) => this.#assertUsable(id); // a replay's check (the client calls it)
    return Promise.resolve(captureCudaGraph(this.#parts.launcher, launches, label, usable));
  }

  flush(stream: StreamId): void {
    // Work reaches the device as it is enqueued; flushing only recycles finished staging.
    this.#assertUsable(stream);
    this.#parts.pinned.collect();
  }

  memoryUsage(stream: StreamId): MemoryUsage {
    this.#assertUsable(stream);
    return this.#parts.memory.usage();
  }

  memoryCleanup(stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.pinned.collect();
    this.#parts.memory.cleanup(true);
  }

  startProfile(stream: StreamId, options?: StartProfileOptions): ProfilingToken {
    this.#assertUsable(stream);
    return this.#parts.profiler.start(this.#parts.streams.stream(stream), options, stream);
  }

  async endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration> {
    this.#assertUsable(stream);
    const profiler = this.#parts.profiler;
    return this.#settled(await profiler.end(this.#parts.streams.stream(stream), token, stream));
  }

  /** Starts recording every stream's timeline: every launch is timed by timing events. */
  startTrace(): void {
    this.#assertUsable();
    this.#parts.startTrace();
  }

  /** Stops the recording and returns it once its kernels completed. */
  async stopTrace(): Promise<Trace> {
    this.#assertUsable();
    const info = { backend: "cuda", device: this.properties.deviceName };
    return this.#settled(await this.#parts.stopTrace(info));
  }

  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void {
    this.#assertUsable(stream);
    this.#parts.memory.mode = mode;
  }

  /**
   * Copies into a new contiguous allocation of `destination`. On the same device (one context)
   * the copy stays on the device: the destination stream waits on an event of the source stream,
   * then `cuMemcpyDtoDAsync` (or 2D); the source stays pinned until the copy completed (for good
   * if the wait fails). Across devices it is {@linkcode enqueueCopy}'s peer or staged copy (a
   * strided source, or another driver library, goes through the host).
   */
  async copyTo(
    destination: this,
    source: CopyDescriptor,
    streams: CopyStreams,
  ): Promise<Allocation> {
    const to = this.#destinationParts(destination, streams);
    const handle = await copyOnDevices(this.#parts, to, source, streams);
    if (handle === undefined) return copyThroughHost(this, destination, source, streams);
    return { handle, strides: contiguousStrides(source.shape) };
  }

  /** Releases what the server created; never waits for the device ({@linkcode drained}). */
  destroy(): void {
    if (this.#state.destroyed) return;
    try {
      this.#parts.device.makeCurrent(); // the frees and destroys below act in this context
    } catch { /* they fail then, and the context is released all the same */ }
    this.#state.markDestroyed();
    this.#drained = this.#parts.destroy();
  }
  #drained: Promise<void> | undefined;

  /**
   * After {@linkcode destroy} (pending waits then reject `DESTROYED` at once): resolves once the
   * work in flight drained in the background and the context was released (`CudaParts.destroy`).
   */
  get drained(): Promise<void> | undefined {
    return this.#drained;
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  /** The parts of `destination` of a copy, both servers checked usable on their streams. */
  #destinationParts(destination: this, streams: CopyStreams): CudaParts {
    this.#assertUsable(streams?.source);
    if (!(destination instanceof CudaServer)) {
      throw new TypeError("destination must be a CudaServer");
    }
    destination.#assertUsable(streams.destination);
    return destination.#parts;
  }

  /**
   * A host wait's result, or `DESTROYED` if the server was destroyed before it settled: the
   * last poll may have seen the work complete before `destroy`, but the caller is told once, the
   * same way whatever the timing.
   */
  #settled<T>(value: T): T {
    if (this.#state.destroyed) throw this.#state.destroyedError();
    return value;
  }

  /** Throws `DESTROYED` (or for a bad stream id), then makes this server's context current. */
  #assertUsable(stream?: StreamId): void {
    this.#state.assertUsable(stream);
    this.#parts.device.makeCurrent();
  }
}
