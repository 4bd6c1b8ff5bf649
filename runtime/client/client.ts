/**
 * The user-facing API over one compute server: typed handles in and out (each handle carries its
 * element type, so data is never read as another type by accident), `Disposable` handles, and
 * the current stream taken from the async context (see {@linkcode withStream}) unless a call
 * names one.
 *
 * @module
 */

import { assertNonNegativeInteger, describe } from "../core/_validate.ts";
import type { MemoryUsage } from "../memory/memory_usage.ts";
import { KernelArguments, STORAGE_TYPE_SIZE, type StorageType } from "../core/kernel_arguments.ts";
import { AbortedError, ComputeError, DestroyedError, UnsupportedError } from "../core/errors.ts";
import { Handle, type HandleKind, HandleRef } from "../core/handle.ts";
import { type Allocation, AllocationDescriptor, contiguousStrides } from "../core/allocation.ts";
import { type CopyDescriptor, copyDescriptor } from "../core/allocation.ts";
import {
  type ArrayOf,
  arrayTypeOf,
  assertDType,
  type DType,
  DTYPE_SIZE,
  type DTypeOf,
  dtypeOf,
  type HandleType,
  type TypedArray,
  type TypedArrayConstructor,
} from "../core/dtype.ts";
import type { ComputeServer } from "../server/server.ts";
import type { KernelMetadata, MemoryAllocationMode } from "../core/kernel.ts";
import { resolveStreamId, type StreamId, withStream } from "../core/stream_id.ts";
import type { ProfileOptions, Trace, TraceRecorder } from "../core/trace.ts";
import type { TimelineSignal } from "../../sync/timeline_signal.ts";
import { CpuTimelineSignal } from "../../sync/cpu_signal.ts";
import { HeldStreams } from "./_held_streams.ts";
import { cubeCount, LaunchRecord } from "./_launch_record.ts";
import {
  arangeArray,
  byteLength,
  checkReadType,
  checkWriteData,
  fromBytes,
  fullArray,
  newArray,
  toBytes,
} from "./_host_data.ts";
import { KindCache } from "./_kinds.ts";
import type {
  ArangeOptions,
  ComputeClientOptions,
  CreateOptions,
  ExecuteOptions,
  FullOptions,
  Profiled,
  StreamOptions,
  TensorOptions,
  WaitForOptions,
  WriteOptions,
} from "./options.ts";

const NO_BUFFERS: readonly Handle[] = Object.freeze([]);
const BYTES: HandleKind = Object.freeze({ madeBy: "createBytes" });

/** The arrays `readMany` returns for a list of handles. */
export type ArraysOf<H extends readonly Handle[]> = {
  -readonly [I in keyof H]: H[I] extends Handle<infer D> ? ArrayOf<D> : never;
};

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
  readonly #held = new HeldStreams();
  readonly #scratch = new LaunchRecord<K>();
  readonly #kinds = new KindCache();
  #timeline: CpuTimelineSignal | undefined;
  #marked = 0n;
  #destroyed = false;

  /** Wraps a server. */
  constructor(server: ComputeServer<K>, options: ComputeClientOptions = {}) {
    this.#server = server;
    this.#ownsServer = options.ownsServer ?? true;
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
    assertNonNegativeInteger(byteSize, "byteSize");
    if (options !== undefined) checkOptions(options);
    const kind = options?.label === undefined
      ? BYTES
      : this.#kinds.get("createBytes", "bytes", options);
    return this.server.empty(byteSize, resolveStreamId(options?.stream), kind) as Handle<"bytes">;
  }

  /** Allocates `length` uninitialised elements of `dtype`. */
  empty<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    if (options !== undefined) checkOptions(options);
    const type = checkedType(dtype);
    assertNonNegativeInteger(length, "length");
    const kind = this.#kinds.get("empty", type, options);
    const bytes = byteLength(length, type);
    return this.server.empty(bytes, resolveStreamId(options?.stream), kind) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`, all zero. */
  zeros<D extends DType = "f32">(length: number, dtype?: D, options?: CreateOptions): Handle<D> {
    if (options !== undefined) checkOptions(options);
    const type = checkedType(dtype);
    assertNonNegativeInteger(length, "length");
    return this.#upload(newArray(type, length), "zeros", options) as Handle<D>;
  }

  /**
   * Allocates `length` elements of `options.dtype` (f32 by default), all `value`; a value the
   * type cannot hold exactly is a `RangeError`, never rounded or wrapped.
   */
  full<D extends DType = "f32">(
    length: number,
    value: number | bigint,
    options?: FullOptions<D>,
  ): Handle<D> {
    if (options !== undefined) checkOptions(options);
    const type = checkedType(options?.dtype);
    assertNonNegativeInteger(length, "length");
    return this.#upload(fullArray(length, type, value), "full", options) as Handle<D>;
  }

  /** Allocates `length` elements of `dtype`: `start`, `start + step`, ... (0, 1, 2... by default). */
  arange<D extends DType = "f32">(
    length: number,
    dtype?: D,
    options?: ArangeOptions,
  ): Handle<D> {
    if (options !== undefined) checkOptions(options);
    const type = checkedType(dtype);
    assertNonNegativeInteger(length, "length");
    const array = arangeArray(length, type, options?.start ?? 0, options?.step ?? 1);
    return this.#upload(array, "arange", options) as Handle<D>;
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
    return this.#upload(data, "createWithData", options) as Handle<DTypeOf<A>>;
  }

  /** Allocates a tensor of `shape` elements of `dtype`; returns its handle and strides. */
  createTensor(shape: readonly number[], dtype: DType, options: TensorOptions = {}): Allocation {
    checkOptions(options);
    assertDType(dtype, "dtype");
    if (
      options.kind !== undefined && options.kind !== "contiguous" && options.kind !== "optimized"
    ) {
      throw new RangeError(
        `kind must be "contiguous" or "optimized", got ${describe(options.kind)}`,
      );
    }
    const size = DTYPE_SIZE[dtype];
    const descriptor = options.kind === "optimized"
      ? AllocationDescriptor.optimized(shape, size)
      : AllocationDescriptor.contiguous(shape, size);
    const [allocation] = this.server.create([descriptor], resolveStreamId(options.stream));
    using untyped = allocation.handle;
    return { handle: untyped.as(dtype), strides: allocation.strides };
  }

  /**
   * Writes `data` into the handle at `options.offset` elements, in stream order. The data must be
   * of the handle's type (an `ArrayBuffer` writes raw bytes into any handle).
   */
  write(handle: Handle, data: TypedArray | ArrayBuffer, options: WriteOptions = {}): void {
    checkHandle(handle, "handle");
    checkOptions(options);
    checkWriteData(handle, data);
    const offset = options.offset ?? 0;
    assertNonNegativeInteger(offset, "offset");
    this.#write(handle, toBytes(data), offset, resolveStreamId(options.stream));
  }

  /**
   * Reads a handle as its own type (`Float32Array` for f32...). Passing a typed array type is
   * allowed when it is the handle's own, a byte view (`Uint8Array`), or any type for an untyped
   * handle; anything else is a `TypeError` (reinterpret on purpose with `handle.as(...)`).
   */
  read<D extends HandleType>(handle: Handle<D>, options?: StreamOptions): Promise<ArrayOf<D>>;
  /** Reads a handle as `type` (see above). */
  read<T extends TypedArray>(
    handle: Handle,
    type: TypedArrayConstructor<T>,
    options?: StreamOptions,
  ): Promise<T>;
  async read(
    handle: Handle,
    type?: TypedArrayConstructor<TypedArray> | StreamOptions,
    options?: StreamOptions,
  ): Promise<TypedArray> {
    const [result] = typeof type === "function"
      ? await this.readMany([handle], type, options)
      : await this.readMany([handle], type);
    return result;
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
    const explicit = typeof type === "function" ? type : undefined;
    const streamOptions = (typeof type === "function" ? options : type) ?? {};
    if (!Array.isArray(handles)) {
      throw new TypeError(`handles must be an array of Handle, got ${describe(handles)}`);
    }
    checkOptions(streamOptions);
    const descriptors: CopyDescriptor[] = handles.map((handle, i) => {
      checkHandle(handle, `handles[${i}]`);
      if (explicit !== undefined) checkReadType(handle, explicit, `handles[${i}]`);
      const size = handle.size();
      return copyDescriptor(handle.ref(), [size], contiguousStrides([size]), 1);
    });
    const stream = resolveStreamId(streamOptions.stream);
    const keys = descriptors.map((descriptor) => descriptor.ref.slice.record);
    const bytes = await this.#held.run(stream, keys, handles, () => {
      return this.server.read(descriptors, stream);
    });
    return bytes.map((chunk, i) => fromBytes(chunk, explicit ?? arrayTypeOf(handles[i].dtype)));
  }

  /**
   * Compiles a kernel now, so that compilation errors (`CompilationError` with the line) come
   * here instead of from the first launch's stream.
   */
  async compile(kernel: K): Promise<void> {
    const server = this.server;
    if (server.compile === undefined) {
      throw new UnsupportedError(`The ${server.properties.backend} backend cannot compile ahead`);
    }
    await server.compile(kernel);
  }

  /**
   * Enqueues a kernel. Handles passed in `buffers` may be disposed right after. Throws
   * `KernelArgumentError` (before anything is enqueued) when the launch does not match the WGSL.
   */
  execute(kernel: K, options: ExecuteOptions): void {
    if (typeof kernel !== "object" || kernel === null) {
      throw new TypeError(`kernel must be a kernel object, got ${describe(kernel)}`);
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`execute options must be an object, got ${describe(options)}`);
    }
    const buffers = options.buffers ?? NO_BUFFERS;
    if (!Array.isArray(buffers)) {
      throw new TypeError(`buffers must be an array, got ${describe(buffers)}`);
    }
    const held = this.#held;
    // Nothing held (the common case): the launch goes straight to the server, which reads it
    // during the call only (the contract), so one launch record is reused: no allocation here.
    const busy = held.busy;
    const bindings = busy ? new KernelArguments() : this.#scratch.args;
    try {
      for (let i = 0; i < buffers.length; i++) {
        const item = buffers[i];
        if (item instanceof Handle) bindings.buffers.push(item.ref());
        else if (item instanceof HandleRef) bindings.buffers.push(item);
        else {
          throw new TypeError(
            `buffers[${i}] must be a Handle or a HandleRef, got ${describe(item)}`,
          );
        }
      }
      if (options.scalars !== undefined) addScalars(bindings, options.scalars);
      if (options.metadata !== undefined) bindings.withMetadata(options.metadata);
      const stream = resolveStreamId(options.stream);
      if (!busy) {
        const launch = this.#scratch;
        launch.kernel = kernel;
        launch.count = cubeCount(options, launch.threads);
        launch.params = options.params;
        held.throwRecorded(stream);
        this.server.execute(launch, stream);
        return;
      }
      const launch = {
        kernel,
        count: cubeCount(options, { kind: "threads", x: 1, y: 1, z: 1 }),
        args: bindings,
        params: options.params,
      };
      held.runVoid(
        stream,
        bindings.buffers.map((binding) => binding.slice.record),
        buffers.filter((item) => item instanceof Handle),
        () => this.server.execute(launch, stream),
      );
    } finally {
      if (!busy) this.#scratch.clear();
    }
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
    const failed = this.#held.take(stream);
    if (failed !== undefined) throw failed.error;
    await this.server.sync(stream);
  }

  /**
   * The client's timeline: {@linkcode signal} marks points of streams on it. It lives in shared
   * memory, so other Workers can wait on it: post `timeline.buffer` and rebuild it there with
   * `new CpuTimelineSignal(buffer)`.
   */
  get timeline(): CpuTimelineSignal {
    this.#assertLive();
    return this.#timeline ??= new CpuTimelineSignal();
  }

  /**
   * Marks the current point of the stream (flushing it) and returns the value that
   * {@linkcode timeline} reaches once the work queued so far on the stream has completed.
   * Values increase with each call; reaching one means every earlier mark was reached too.
   *
   * @example Hand a point of the GPU work to another Worker
   * ```ts ignore
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * const worker = new Worker(new URL("./consumer.ts", import.meta.url), { type: "module" });
   * worker.postMessage({ timeline: client.timeline.buffer });
   * // ... client.execute(...) on the stream ...
   * const done = client.signal();
   * worker.postMessage({ ready: done }); // the worker: await timeline.wait(ready)
   * await client.timeline.wait(done);
   * ```
   */
  signal(options: StreamOptions = {}): bigint {
    const stream = resolveStreamId(options.stream);
    const timeline = this.timeline;
    const current = timeline.value;
    const value = (this.#marked > current ? this.#marked : current) + 1n;
    this.#marked = value;
    this.#held.runVoid(stream, [], [], () => {
      const server = this.server;
      if (server.signal !== undefined) return server.signal(timeline, value, stream);
      // Without a native mark, `sync` covers every stream's submitted work.
      server.sync(stream).then(
        () => timeline.set(value),
        (error) => this.#held.record(stream, error),
      );
    });
    return value;
  }

  /**
   * Holds the stream until `signal` reaches `value`: the calls made on it from now on (writes,
   * kernels, reads, marks) run then, in call order, and so do later calls on other streams that
   * use memory a held call uses. A held `write` takes its data when it runs, so a host producer
   * (another Worker filling shared memory, say) may finish the input after this call. If the
   * wait fails (`timeoutMs`, or the signal's own error), the held calls fail with that error
   * (see the README's Errors section); `destroy()` settles them with `DESTROYED` at once.
   *
   * @example Upload an input once a producer Worker has written it
   * ```ts ignore
   * import { createClient } from "@gpucompute/runtime";
   * import { CpuTimelineSignal } from "@gpucompute/runtime/sync";
   * using client = await createClient();
   * const produced = new CpuTimelineSignal();
   * const input = new Float32Array(new SharedArrayBuffer(1024));
   * // a Worker fills `input`, then calls new CpuTimelineSignal(buffer).set(1)
   * client.waitFor(produced, 1, { stream: 1 });
   * using data = client.createWithData(input, { stream: 1 }); // copied once produced reaches 1
   * console.log(await client.read(data, { stream: 1 }));
   * ```
   */
  waitFor(signal: TimelineSignal, value: bigint | number, options: WaitForOptions = {}): void {
    this.#assertLive();
    checkOptions(options);
    const stream = resolveStreamId(options.stream);
    const timeoutMs = options.timeoutMs ?? 0;
    assertNonNegativeInteger(timeoutMs, "timeoutMs");
    if (typeof signal?.wait !== "function") {
      throw new TypeError(`signal must be a TimelineSignal, got ${describe(signal)}`);
    }
    const wait = signal.wait(value, { timeoutMs, signal: this.#held.abortSignal });
    this.#held.hold(stream, wait.catch((cause) => Promise.reject(waitError(cause, stream, value))));
  }

  /**
   * Runs `fn` with `options.stream` as the current stream, inside a profiling window of that
   * stream, and returns its result with the time of the work that stream launched (other
   * streams' work is not counted, and is not flushed). Calls held by `waitFor` are measured when
   * they run.
   */
  async profile<T>(fn: () => T | Promise<T>, options: ProfileOptions = {}): Promise<Profiled<T>> {
    const stream = resolveStreamId(options.stream);
    const perKernel = options.perKernel ?? false;
    const held = this.#held;
    const start = () => this.server.startProfile(stream, perKernel ? { perKernel } : undefined);
    const token = await held.run(stream, [], [], start);
    let result: T;
    try {
      result = await withStream(stream, fn);
    } catch (error) {
      // Close the window so the token does not leak, then report the original failure.
      await Promise.resolve(held.run(stream, [], [], () => this.#server.endProfile(stream, token)))
        .catch(() => {});
      throw error;
    }
    const duration = await held.run(stream, [], [], () => this.server.endProfile(stream, token));
    return { result, duration };
  }

  /**
   * Starts recording a timeline of every stream: kernels with device start and end, copies,
   * reads with their map wait, syncs, cross-stream waits, submissions and memory in use. One
   * recording at a time (`TRACE_ACTIVE`); `UNSUPPORTED` on a backend without traces.
   */
  trace(): TraceRecorder {
    const server = this.server;
    const { startTrace, stopTrace } = server;
    if (startTrace === undefined || stopTrace === undefined) {
      throw new UnsupportedError(`The ${server.properties.backend} backend cannot record traces`);
    }
    startTrace.call(server);
    let stopped: Promise<Trace> | undefined;
    const stop = () => stopped ??= stopTrace.call(server);
    return {
      get recording() {
        return stopped === undefined;
      },
      stop,
      async [Symbol.asyncDispose]() {
        await stop();
      },
    };
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
   * Destroys the server if this client owns it, and settles every call held by `waitFor` with
   * `DESTROYED` at once. Idempotent.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#held.close(new DestroyedError("The compute client was destroyed"));
    if (this.#ownsServer) this.#server.destroy();
  }

  /** Same as {@linkcode destroy}, for `using`. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  /** Uploads `data` into a new handle of its type (through the held path when needed). */
  #upload(data: TypedArray | ArrayBuffer, origin: string, options?: CreateOptions): Handle {
    const stream = resolveStreamId(options?.stream);
    const bytes = toBytes(data);
    const kind = this.#kinds.get(origin, dtypeOf(data), options);
    if (!this.#held.held(stream)) return this.server.createWithData(bytes, stream, kind);
    // A held stream (waitFor) takes the data when the write runs.
    const handle = this.server.empty(bytes.byteLength, stream, kind);
    this.#write(handle, bytes, 0, stream);
    return handle;
  }

  /** Writes `bytes` (checked by the caller to be of the handle's type) at element `offset`. */
  #write(handle: Handle, bytes: Uint8Array, offset: number, stream: StreamId): void {
    const unit = DTYPE_SIZE[handle.dtype];
    const whole = handle.ref();
    const start = offset * unit;
    if (start + bytes.byteLength > whole.size() || bytes.byteLength % unit !== 0) {
      throw new RangeError(
        `Cannot write ${bytes.byteLength} bytes at element ${offset} of ${handle.describe()} ` +
          `(${whole.size()} bytes, ${unit}-byte elements)`,
      );
    }
    // Narrow the binding to the written range; the handle keeps owning the whole slice.
    const target = new HandleRef(whole.slice, {
      offsetStart: (whole.offsetStart ?? 0) + start,
      offsetEnd: (whole.offsetEnd ?? 0) + whole.size() - start - bytes.byteLength,
      stream: whole.stream,
      cursor: whole.cursor,
      fullSize: whole.fullSize,
      dtype: whole.dtype,
    });
    const descriptor = copyDescriptor(target, [bytes.byteLength], [1], 1);
    this.#held.runVoid(stream, [whole.slice.record], [handle], () => {
      this.server.write([{ descriptor, data: bytes }], stream);
    });
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The compute client was destroyed");
  }
}

/** The error a held call gets when the wait holding its stream failed. */
function waitError(cause: unknown, stream: StreamId, value: bigint | number): unknown {
  if (cause instanceof ComputeError) return cause;
  return new AbortedError(
    `The wait of stream ${stream} for timeline value ${value} failed: ${
      cause instanceof Error ? cause.message : String(cause)
    }`,
    { cause },
  );
}

function checkedType<D extends DType>(dtype: D | undefined): D {
  if (dtype === undefined) return "f32" as D;
  assertDType(dtype, "dtype");
  return dtype;
}

function addScalars(
  bindings: KernelArguments,
  scalars: Partial<Record<StorageType, readonly (number | bigint)[]>>,
): void {
  if (typeof scalars !== "object" || scalars === null) {
    throw new TypeError(`scalars must be an object by storage type, got ${describe(scalars)}`);
  }
  for (const [type, values] of Object.entries(scalars)) {
    if (!Object.hasOwn(STORAGE_TYPE_SIZE, type)) {
      throw new TypeError(
        `scalars.${type}: unknown storage type (one of ${Object.keys(STORAGE_TYPE_SIZE)})`,
      );
    }
    if (values !== undefined) bindings.withScalar(type as StorageType, values);
  }
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${describe(options)}`);
  }
}

function checkHandle(handle: unknown, what: string): asserts handle is Handle {
  if (!(handle instanceof Handle)) {
    throw new TypeError(`${what} must be a Handle, got ${describe(handle)}`);
  }
}

export type { HandleKind };
