/**
 * The user-facing API over one compute server: typed handles in and out (each handle carries its
 * element type, so data is never read as another type by accident), `Disposable` handles, and
 * the current stream taken from the async context (see {@linkcode withStream}) unless a call
 * names one.
 *
 * @module
 */

import type { MemoryUsage } from "../memory/memory_usage.ts";
import { DestroyedError } from "../core/errors.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { Allocation } from "../core/allocation.ts";
import type { ArrayOf, DType, DTypeOf, HandleType, TypedArray } from "../core/dtype.ts";
import type { TypedArrayConstructor } from "../core/dtype.ts";
import type { ComputeServer } from "../server/server.ts";
import type { KernelMetadata, MemoryAllocationMode } from "../core/kernel.ts";
import { type StreamId, withStream } from "../core/stream_id.ts";
import type { ProfileOptions, TraceRecorder } from "../core/trace.ts";
import type { CpuTimelineSignal, TimelineSignal } from "../../sync/mod.ts";
import { StreamCalls } from "./timeline/_stream_calls.ts";
import { LaunchRecord } from "./_launch_record.ts";
import { checkExecute, checkHandle, checkInstance, checkOptions, readArgs } from "./_checks.ts";
import { streamOf } from "./_checks.ts";
import { compileAhead, NO_FEATURES } from "./_compile.ts";
import { traceRecorder } from "./_recorder.ts";
import { arangeArray, fullArray, newArray } from "./_host_data.ts";
import { HandleFactory } from "./_handle_factory.ts";
import { CaptureGate, type CaptureOptions, type LaunchGraph } from "./_capture.ts";
import { chunkBytesOf, copyBetween } from "./_copy_to.ts";
import * as textures from "./textures/_textures.ts";
import type { Texture } from "./textures/texture.ts";
import type { TextureView } from "./textures/texture_view.ts";
import type { ArangeOptions, ArraysOf, ComputeClientOptions, CopyToOptions } from "./options.ts";
import type { CreateOptions, CreateTextureOptions, ExecuteOptions } from "./options.ts";
import type { FullOptions, Profiled, StreamOptions, TensorOptions } from "./options.ts";
import type { WaitForOptions, WriteOptions } from "./options.ts";

/**
 * Runs kernels on one server. Every method takes an optional `stream`; without it the call runs
 * on the current stream of the async context. Work on different streams is ordered
 * automatically where they share memory: no manual flush or sync is needed for correctness.
 *
 * @example Scale a vector on the default WebGPU adapter
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using data = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * const scale = {
 *   source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
 *     @group(0) @binding(1) var<uniform> s: f32;
 *     @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
 *       if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] * s; } }`,
 * };
 * client.execute(scale, { threads: data.length, buffers: [data], params: { s: 2 } });
 * console.log(await client.read(data)); // Float32Array [2, 4, 6, 8]
 * ```
 */
export class ComputeClient<K extends KernelMetadata = KernelMetadata> implements Disposable {
  readonly #server: ComputeServer<K>;
  readonly #ownsServer: boolean;
  readonly #calls = new StreamCalls();
  readonly #held = this.#calls.held;
  readonly #launch = new LaunchRecord<K>();
  readonly #make = new HandleFactory(this.#held);
  readonly #gate = new CaptureGate();
  #destroyed = false;

  /** Wraps a server. */
  constructor(server: ComputeServer<K>, options: ComputeClientOptions = {}) {
    this.#server = server;
    this.#ownsServer = options.ownsServer ?? true;
    this.#calls.name(server);
  }

  /** The server this client drives. */
  get server(): ComputeServer<K> {
    this.#assertLive();
    return this.#server;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /**
   * Allocates `byteSize` uninitialised, untyped bytes: a handle that binds to any kernel and reads
   * back as a `Uint8Array` (reinterpretation on purpose; prefer the typed constructors).
   */
  createBytes(byteSize: number, options?: CreateOptions): Handle<"bytes"> {
    return this.#make.bytes(this.#use("createBytes"), byteSize, options);
  }

  /** Allocates `length` uninitialised elements of `dtype`. */
  empty<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    const type = this.#make.typed(length, dtype, options);
    return this.#make.empty(this.#use("empty"), length, type, options) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`, all zero. */
  zeros<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    const data = newArray(this.#make.typed(length, dtype, options, this.#use("zeros")), length);
    return this.#make.upload(this.#use("zeros"), data, "zeros", options) as Handle<D>;
  }

  /**
   * Allocates `length` elements of `options.dtype` (f32 by default), all `value`; a value an
   * integer type cannot hold exactly, or a float overflow to Infinity, is a `RangeError`.
   */
  full<D extends DType = "f32">(
    length: number,
    value: number | bigint,
    options?: FullOptions<D>,
  ): Handle<D> {
    const type = this.#make.typed(length, options?.dtype, options, this.#use("full"));
    const data = fullArray(length, type, value);
    return this.#make.upload(this.#use("full"), data, "full", options) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`: `start`, `start + step`, ... (0, 1, 2... by default). */
  arange<D extends DType = "f32">(
    length: number,
    dtype?: D,
    options?: ArangeOptions,
  ): Handle<D> {
    const type = this.#make.typed(length, dtype, options, this.#use("arange"));
    const array = arangeArray(length, type, options?.start ?? 0, options?.step ?? 1);
    return this.#make.upload(this.#use("arange"), array, "arange", options) as Handle<D>;
  }

  /**
   * Allocates a handle holding a copy of `data`, of `data`'s element type (`Float32Array`: f32,
   * `Int32Array`: i32...; an `ArrayBuffer` gives untyped bytes).
   */
  createWithData<A extends TypedArray | ArrayBuffer>(
    data: A,
    options?: CreateOptions,
  ): Handle<DTypeOf<A>> {
    if (options !== undefined) checkOptions(options);
    return this.#make.upload(
      this.#use("createWithData"),
      data,
      "createWithData",
      options,
    ) as Handle<DTypeOf<A>>;
  }

  /** Allocates a tensor of `shape` elements of `dtype`; returns its handle and strides. */
  createTensor(shape: readonly number[], dtype: DType, options: TensorOptions = {}): Allocation {
    return this.#make.tensor(this.#use("createTensor"), shape, dtype, options);
  }

  /** Makes a 1-D, 2-D or 3-D texture ({@linkcode CreateTextureOptions}); `UNSUPPORTED` on CUDA. */
  createTexture(options: CreateTextureOptions): Texture {
    return textures.createTexture(this.server, this.#held, options);
  }

  /**
   * Writes `data` into the handle at `options.offset` elements, in stream order. The data must be
   * of the handle's type (an `ArrayBuffer` writes raw bytes into any handle). A texture takes
   * every texel, as its format's host array (of level 0; `texture.view({ mipLevel })`: a level).
   */
  write(
    handle: Handle | Texture | TextureView,
    data: TypedArray | ArrayBuffer,
    options: WriteOptions = {},
  ): void {
    const server = this.#use("write");
    if (!textures.isTexture(handle)) return this.#make.write(server, handle, data, options);
    textures.writeTexture(server, this.#held, handle, data, options);
  }

  /**
   * Reads a handle as its own type (`Float32Array` for f32...), or as `type`: its own, a byte
   * view, any type for untyped handles; else `TypeError` (reinterpret with `handle.as(...)`).
   */
  read<D extends HandleType>(handle: Handle<D>, options?: StreamOptions): Promise<ArrayOf<D>>;
  /** Reads every texel of a texture (level 0) or view as its format's array (`Uint8Array`...). */
  read(texture: Texture | TextureView, options?: StreamOptions): Promise<textures.TextureArray>;
  /** Reads a handle as `type` (see above). */
  read<T extends TypedArray>(
    handle: Handle,
    type: TypedArrayConstructor<T>,
    options?: StreamOptions,
  ): Promise<T>;
  async read(
    handle: Handle | Texture | TextureView,
    type?: TypedArrayConstructor<TypedArray> | StreamOptions,
    options?: StreamOptions,
  ): Promise<TypedArray> {
    if (textures.isTexture(handle)) {
      return textures.readTexture(this.#use("read"), this.#held, handle, type, options);
    }
    return (await this.readMany([handle], type as TypedArrayConstructor<TypedArray>, options))[0];
  }

  /** Reads several handles, each as its own type, in one round trip to the device. */
  readMany<const H extends readonly Handle[]>(
    handles: H,
    options?: StreamOptions,
  ): Promise<ArraysOf<H>>;
  /** Reads several handles as `type` (see {@linkcode read}) in one round trip. */
  readMany<T extends TypedArray>(
    handles: readonly Handle[],
    type: TypedArrayConstructor<T>,
    options?: StreamOptions,
  ): Promise<T[]>;
  async readMany(
    handles: readonly Handle[],
    type?: TypedArrayConstructor<TypedArray> | StreamOptions,
    options?: StreamOptions,
  ): Promise<TypedArray[]> {
    const { explicit, stream } = readArgs(handles, type, options);
    return await this.#calls.read(this.#use("readMany"), handles, explicit, stream);
  }

  /**
   * Copies `handle` to `destination`'s device (or this client's) and returns the new handle of the
   * same type at once: after the writes of `handle` made before the call, before every later use
   * of the new one. Device to device between CUDA servers of one driver, else through the host
   * (docs/devices.md); a failed copy fails the destination's later calls on it.
   *
   * @example Copy a partial result to the first device
   * ```ts ignore
   * import { createClients, listDevices } from "@gpucompute/runtime";
   * using clients = await createClients(await listDevices());
   * using part = clients[1]!.createWithData(new Float32Array([1, 2, 3]));
   * using copied = clients[1]!.copyTo(part, clients[0]); // a Handle<"f32"> on the first device
   * console.log(await clients[0].read(copied)); // Float32Array [1, 2, 3]
   * ```
   */
  copyTo<D extends HandleType>(
    handle: Handle<D>,
    destination: ComputeClient,
    options: CopyToOptions = {},
  ): Handle<D> {
    checkHandle(handle, "handle");
    checkInstance(destination, ComputeClient, "destination");
    const chunkBytes = chunkBytesOf(options);
    const from = this.#calls.end(this.#use("copyTo"), options.stream);
    const to = destination.#calls.end(destination.#use("copyTo"), options.destinationStream);
    const kind = destination.#make.kind("copyTo", handle.dtype, options);
    return copyBetween(handle, from, to, { kind, chunkBytes }) as Handle<D>;
  }

  /** Compiles a kernel now (with `overrides`, that variant): its `CompilationError` comes here. */
  async compile(kernel: K, options?: Pick<ExecuteOptions, "overrides">): Promise<void> {
    await compileAhead(this.server, kernel, options);
  }

  /** The device's features (`shader-f16`...); empty where the backend lists none. */
  get features(): ReadonlySet<string> {
    return this.server.properties.features ?? NO_FEATURES;
  }

  /**
   * Enqueues a kernel. Handles passed in `buffers` may be disposed right after. Throws
   * `KernelArgumentError` (before anything is enqueued) when the launch does not match the WGSL.
   */
  execute(kernel: K, options: ExecuteOptions): void {
    checkExecute(kernel, options);
    if (this.#gate.active) return this.#gate.record(this.#server, kernel, options);
    if (!this.#held.busy) return this.#launch.run(this.server, this.#held, kernel, options);
    this.#calls.executeHeld(this.server, kernel, options);
  }

  /**
   * Records the launches `fn` makes on `options.stream` (none run) into a {@linkcode LaunchGraph}
   * that replays them with almost no host cost. Inside `fn` only `execute` is allowed on this
   * client (other calls throw `CAPTURE_UNSUPPORTED`); a kernel error rejects the capture.
   */
  capture(fn: () => void | Promise<void>, options: CaptureOptions = {}): Promise<LaunchGraph> {
    return this.#gate.capture(() => this.server, this.#held, fn, options);
  }

  /** Submits the stream's queued work. */
  flush(options?: StreamOptions): void {
    const server = this.#destroyed ? this.server : this.#server; // the getter throws DESTROYED
    this.#held.flush(server, streamOf(options, "flush"));
  }

  /**
   * Resolves once all work submitted so far (and every call held by `waitFor`) has completed;
   * rejects with the first error the stream's work met (a kernel WebGPU refused, a failed wait).
   */
  async sync(options: StreamOptions = {}): Promise<void> {
    this.#gate.refuse("sync");
    const stream = streamOf(options, "sync");
    if (this.#held.busy) await this.#held.drain();
    // The stream's recorded errors, after the verdicts of other clients' work it runs behind.
    await this.#held.deps.sync(stream, () => this.server.sync(stream));
  }

  /**
   * The client's timeline, marked by {@linkcode signal}, in shared memory (Workers rebuild it
   * from `timeline.buffer`). Waits for a failed mark reject (`ABORTED`), after `destroy()` too.
   */
  get timeline(): CpuTimelineSignal {
    return this.#calls.timeline;
  }

  /**
   * Marks the stream's current point (flushing it); returns the value {@linkcode timeline} reaches
   * once the work queued so far on it completed. Values increase; reaching one reaches all earlier.
   * A Worker waits with `new CpuTimelineSignal(timeline.buffer)` (example: {@linkcode waitFor}).
   */
  signal(options: StreamOptions = {}): bigint {
    return this.#calls.signal(this.#use("signal"), streamOf(options, "signal"));
  }

  /**
   * Holds the stream until `signal` reaches `value`: its calls from now on (writes, kernels,
   * reads, marks) run then, in call order, and so do later calls on other streams using memory a
   * held call uses. A held `write` takes its data when it runs. A failed wait (`timeoutMs`, the
   * signal's error) fails the held calls (README, Errors); `destroy()` of this client, or of the
   * one whose `timeline` is waited on, settles them with `DESTROYED` (docs/devices.md for CUDA).
   *
   * @example Upload an input once a producer Worker has written it
   * ```ts
   * import { CpuTimelineSignal, createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * const produced = new CpuTimelineSignal(), input = new Float32Array(4); // shared with a Worker
   * client.waitFor(produced, 1, { stream: 1 });
   * using data = client.createWithData(input, { stream: 1 }); // copied once produced reaches 1
   * input.set([1, 2, 3, 4]), produced.set(1); // the producer fills `input`, then says so
   * await client.timeline.wait(client.signal({ stream: 1 })); // the copy completed
   * console.log(await client.read(data, { stream: 1 })); // Float32Array [1, 2, 3, 4]
   * ```
   */
  waitFor(signal: TimelineSignal, value: bigint | number, options: WaitForOptions = {}): void {
    this.#calls.waitFor(this.#use("waitFor"), signal, value, options);
  }

  /**
   * Runs `fn` on `options.stream` inside a profiling window of that stream; returns its result
   * with the time of the work that stream launched (held calls timed when they run), or rejects
   * with the stream's unreported errors as `sync`. `fn` runs (in program order) before it returns.
   */
  async profile<T>(fn: () => T | Promise<T>, options: ProfileOptions = {}): Promise<Profiled<T>> {
    return await this.#calls.profile(this.#use("profile"), fn, options);
  }

  /**
   * Starts recording every stream's timeline (kernels, copies, reads, syncs, waits, submissions,
   * memory). One at a time (`TRACE_ACTIVE`); `UNSUPPORTED` on a backend without traces.
   */
  trace(): TraceRecorder {
    return traceRecorder(this.server);
  }

  /** Memory figures of the server. */
  memoryUsage(options: StreamOptions = {}): MemoryUsage {
    return this.server.memoryUsage(streamOf(options, "memoryUsage"));
  }

  /** Returns unused memory pages to the device. */
  memoryCleanup(options: StreamOptions = {}): void {
    this.server.memoryCleanup(streamOf(options, "memoryCleanup"));
  }

  /** Sets where new allocations go (`auto` or `persistent`). */
  allocationMode(mode: MemoryAllocationMode, options: StreamOptions = {}): void {
    this.server.allocationMode(mode, streamOf(options, "allocationMode"));
  }

  /** Runs `fn` with `stream` as the current stream of its async context. */
  withStream<T>(stream: StreamId, fn: () => T): T {
    this.#assertLive();
    return withStream(stream, fn);
  }

  /**
   * Destroys the server if this client owns it; settles held calls, timeline waits and a running
   * `profile` or `capture` with `DESTROYED` at once, and disposes its graphs. Idempotent.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const error = new DestroyedError("The compute client was destroyed");
    this.#calls.close(error);
    this.#gate.close(error);
    if (this.#ownsServer) this.#server.destroy();
  }

  /** Same as {@linkcode destroy}, for `using`. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  /** The server for `call`, refused inside a capture. */
  #use(call: string): ComputeServer<K> {
    this.#gate.refuse(call);
    return this.server;
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The compute client was destroyed");
  }
}
