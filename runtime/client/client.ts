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
import type { ArrayOf, DType, DTypeOf, HandleType } from "../core/dtype.ts";
import type { TypedArray, TypedArrayConstructor } from "../core/dtype.ts";
import type { ComputeServer } from "../server/server.ts";
import type { KernelMetadata, MemoryAllocationMode } from "../core/kernel.ts";
import { resolveStreamId, type StreamId, withStream } from "../core/stream_id.ts";
import type { ProfileOptions, TraceRecorder } from "../core/trace.ts";
import type { CpuTimelineSignal, TimelineSignal } from "../../sync/mod.ts";
import { StreamCalls } from "./timeline/_stream_calls.ts";
import { LaunchRecord } from "./_launch_record.ts";
import { checkExecute, checkHandle, checkInstance, checkOptions, readArgs } from "./_checks.ts";
import { compileAhead, NO_FEATURES } from "./_compile.ts";
import { traceRecorder } from "./_recorder.ts";
import { arangeArray, fullArray, newArray } from "./_host_data.ts";
import { HandleFactory } from "./_handle_factory.ts";
import { chunkBytesOf, copyBetween } from "./_copy_to.ts";
import {
  createTexture,
  readTexture,
  type TextureArray,
  writeTexture,
} from "./textures/_textures.ts";
import { Texture } from "./textures/texture.ts";
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
 * ```ts ignore
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
    return this.#make.bytes(this.server, byteSize, options);
  }

  /** Allocates `length` uninitialised elements of `dtype`. */
  empty<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    const type = this.#make.typed(length, dtype, options);
    return this.#make.empty(this.server, length, type, options) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`, all zero. */
  zeros<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    const type = this.#make.typed(length, dtype, options);
    return this.#make.upload(this.server, newArray(type, length), "zeros", options) as Handle<D>;
  }

  /**
   * Allocates `length` elements of `options.dtype` (f32 by default), all `value`; a value an
   * integer type cannot hold exactly is a `RangeError`, never rounded or wrapped; floats round to
   * nearest, but a finite value that would overflow to Infinity is a `RangeError`.
   */
  full<D extends DType = "f32">(
    length: number,
    value: number | bigint,
    options?: FullOptions<D>,
  ): Handle<D> {
    const type = this.#make.typed(length, options?.dtype, options);
    const data = fullArray(length, type, value);
    return this.#make.upload(this.server, data, "full", options) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`: `start`, `start + step`, ... (0, 1, 2... by default). */
  arange<D extends DType = "f32">(
    length: number,
    dtype?: D,
    options?: ArangeOptions,
  ): Handle<D> {
    const type = this.#make.typed(length, dtype, options);
    const array = arangeArray(length, type, options?.start ?? 0, options?.step ?? 1);
    return this.#make.upload(this.server, array, "arange", options) as Handle<D>;
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
    return this.#make.upload(this.server, data, "createWithData", options) as Handle<DTypeOf<A>>;
  }

  /** Allocates a tensor of `shape` elements of `dtype`; returns its handle and strides. */
  createTensor(shape: readonly number[], dtype: DType, options: TensorOptions = {}): Allocation {
    return this.#make.tensor(this.server, shape, dtype, options);
  }

  /** Makes a 2-D texture (see {@linkcode CreateTextureOptions}); `UNSUPPORTED` on CUDA. */
  createTexture(options: CreateTextureOptions): Texture {
    return createTexture(this.server, this.#held, options);
  }

  /**
   * Writes `data` into the handle at `options.offset` elements, in stream order. The data must be
   * of the handle's type (an `ArrayBuffer` writes raw bytes into any handle). A texture takes
   * every texel, as its format's host array.
   */
  write(
    handle: Handle | Texture,
    data: TypedArray | ArrayBuffer,
    options: WriteOptions = {},
  ): void {
    if (!(handle instanceof Texture)) return this.#make.write(this.server, handle, data, options);
    writeTexture(this.server, this.#held, handle, data, resolveStreamId(options.stream));
  }

  /**
   * Reads a handle as its own type (`Float32Array` for f32...). Passing a typed array type is
   * allowed when it is the handle's own, a byte view (`Uint8Array`), or any type for an untyped
   * handle; anything else is a `TypeError` (reinterpret on purpose with `handle.as(...)`).
   */
  read<D extends HandleType>(handle: Handle<D>, options?: StreamOptions): Promise<ArrayOf<D>>;
  /** Reads every texel of a texture as its format's host array (`Uint8Array` for rgba8unorm...). */
  read(texture: Texture, options?: StreamOptions): Promise<TextureArray>;
  /** Reads a handle as `type` (see above). */
  read<T extends TypedArray>(
    handle: Handle,
    type: TypedArrayConstructor<T>,
    options?: StreamOptions,
  ): Promise<T>;
  async read(
    handle: Handle | Texture,
    type?: TypedArrayConstructor<TypedArray> | StreamOptions,
    options?: StreamOptions,
  ): Promise<TypedArray> {
    const stream = (type as StreamOptions | undefined)?.stream; // readMany tells them apart too
    if (handle instanceof Texture) return readTexture(this.server, this.#held, handle, stream);
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
    return await this.#calls.read(this.server, handles, explicit, stream);
  }

  /**
   * Copies `handle` to `destination`'s device (or this client's own) and returns the new handle
   * there, of the same element type, at once: after the writes of `handle` made before the call
   * (on `options.stream` or ordered before it), before every later use of the new handle on
   * `destination`. On the devices between CUDA servers of one driver; through the host in chunks
   * otherwise, `destination` holding `destinationStream` until the data landed (docs/devices.md).
   * A failed copy fails the destination's later calls on it (as `waitFor` does).
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
    const from = this.#calls.end(this.server, options.stream);
    const to = destination.#calls.end(destination.server, options.destinationStream);
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
    const held = this.#held;
    // Nothing held (the common case): straight to the server, which checks the launch and reads
    // it during the call only (the contract): one launch record is reused, nothing allocated.
    if (!held.busy) {
      const launch = this.#launch;
      try {
        launch.fill(kernel, options);
        const stream = resolveStreamId(options.stream);
        held.errors.throwFor(stream);
        this.server.execute(launch, stream);
      } finally {
        launch.clear();
      }
      return;
    }
    this.#calls.executeHeld(this.server, kernel, options);
  }

  /** Submits the stream's queued work. */
  flush(options: StreamOptions = {}): void {
    const stream = resolveStreamId(options.stream);
    this.#held.runVoid(stream, [], [], () => this.server.flush(stream));
  }

  /**
   * Resolves once all work submitted so far (and every call held by `waitFor`) has completed;
   * rejects with the first error the stream's work met (a kernel WebGPU refused, a failed wait).
   */
  async sync(options: StreamOptions = {}): Promise<void> {
    const stream = resolveStreamId(options.stream);
    if (this.#held.busy) await this.#held.drain();
    this.#held.errors.throwFor(stream);
    await this.server.sync(stream);
  }

  /**
   * The client's timeline: {@linkcode signal} marks points of streams on it. It lives in shared
   * memory, so other Workers can wait on it: post `timeline.buffer` and rebuild it there with
   * `new CpuTimelineSignal(buffer)`. Waits for a failed mark and later values reject (`ABORTED`);
   * after `destroy()` (still readable) waits for unreached values reject (`DESTROYED`).
   */
  get timeline(): CpuTimelineSignal {
    return this.#calls.timeline;
  }

  /**
   * Marks the current point of the stream (flushing it) and returns the value that
   * {@linkcode timeline} reaches once the work queued so far on the stream has completed.
   * Values increase with each call; reaching one means every earlier mark was reached too.
   *
   * @example Hand a point of the GPU work to another Worker
   * ```ts ignore
   * worker.postMessage({ timeline: client.timeline.buffer, ready: client.signal() });
   * // the worker: await new CpuTimelineSignal(timeline).wait(ready)
   * ```
   */
  signal(options: StreamOptions = {}): bigint {
    return this.#calls.signal(this.server, resolveStreamId(options.stream));
  }

  /**
   * Holds the stream until `signal` reaches `value`: the calls made on it from now on (writes,
   * kernels, reads, marks) run then, in call order, and so do later calls on other streams that
   * use memory a held call uses. A held `write` takes its data when it runs, so a host producer
   * (another Worker filling shared memory, say) may finish the input after this call. If the
   * wait fails (`timeoutMs`, or the signal's own error), the held calls fail with that error
   * (see the README's Errors section); `destroy()` settles them with `DESTROYED` at once, and so
   * does destroying the client whose `timeline` is waited on, for a value it did not reach.
   * Between CUDA devices the wait is on the device where it can be (docs/devices.md).
   *
   * @example Upload an input once a producer Worker has written it
   * ```ts ignore
   * client.waitFor(produced, 1, { stream: 1 }); // a Worker fills `input`, then sets produced to 1
   * using data = client.createWithData(input, { stream: 1 }); // copied once produced reaches 1
   * ```
   */
  waitFor(signal: TimelineSignal, value: bigint | number, options: WaitForOptions = {}): void {
    this.#assertLive();
    this.#calls.waitFor(this.#server, signal, value, options);
  }

  /**
   * Runs `fn` with `options.stream` as the current stream, inside a profiling window of that
   * stream, and returns its result with the time of the work that stream launched (other
   * streams' work is not counted, and is not flushed). Calls held by `waitFor` are measured when
   * they run. `fn` runs before `profile` returns, so its calls take effect in program order: a
   * read made right after sees them, without awaiting the profile.
   */
  async profile<T>(fn: () => T | Promise<T>, options: ProfileOptions = {}): Promise<Profiled<T>> {
    const stream = resolveStreamId(options.stream);
    return await this.#calls.profile(this.server, fn, stream, options.perKernel ?? false);
  }

  /**
   * Starts recording a timeline of every stream: kernels with device start and end, copies,
   * reads with their map wait, syncs, cross-stream waits, submissions and memory in use. One
   * recording at a time (`TRACE_ACTIVE`); `UNSUPPORTED` on a backend without traces.
   */
  trace(): TraceRecorder {
    return traceRecorder(this.server);
  }

  /** Memory figures of the server. */
  memoryUsage(options: StreamOptions = {}): MemoryUsage {
    return this.server.memoryUsage(resolveStreamId(options.stream));
  }

  /** Returns unused memory pages to the device. */
  memoryCleanup(options: StreamOptions = {}): void {
    this.server.memoryCleanup(resolveStreamId(options.stream));
  }

  /** Sets where new allocations go (`auto` or `persistent`). */
  allocationMode(mode: MemoryAllocationMode, options: StreamOptions = {}): void {
    this.server.allocationMode(mode, resolveStreamId(options.stream));
  }

  /** Runs `fn` with `stream` as the current stream of its async context. */
  withStream<T>(stream: StreamId, fn: () => T): T {
    this.#assertLive();
    return withStream(stream, fn);
  }

  /**
   * Destroys the server if this client owns it; settles every call held by `waitFor`, and every
   * wait for a value of {@linkcode timeline} not reached, with `DESTROYED` at once. Idempotent.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#calls.close(new DestroyedError("The compute client was destroyed"));
    if (this.#ownsServer) this.#server.destroy();
  }

  /** Same as {@linkcode destroy}, for `using`. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The compute client was destroyed");
  }
}
