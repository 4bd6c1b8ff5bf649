/**
 * The user-facing API over one compute server: typed arrays in and out, handles that are
 * `Disposable`, and the current stream taken from the async context (see
 * {@linkcode withStream}) unless a call names one.
 *
 * @module
 */

import { assertNonNegativeInteger, describe } from "./core/_validate.ts";
import type { MemoryUsage } from "./memory/memory_usage.ts";
import {
  Bindings,
  type MetadataBinding,
  STORAGE_TYPE_SIZE,
  type StorageType,
} from "./core/bindings.ts";
import type { CubeCount } from "./core/cube_count.ts";
import { RuntimeError, UnsupportedError } from "./core/errors.ts";
import { Binding, Handle, type Placement } from "./core/handle.ts";
import {
  type Allocation,
  AllocationDescriptor,
  type AllocationKind,
  contiguousStrides,
  type CopyDescriptor,
  copyDescriptor,
} from "./core/allocation.ts";
import type { ComputeServer, ProfileDuration } from "./server/server.ts";
import type { KernelMetadata, KernelParams, MemoryAllocationMode } from "./core/kernel.ts";
import { resolveStreamId, type StreamId, withStream } from "./core/stream_id.ts";
import type { ProfileOptions, Trace, TraceRecorder } from "./core/trace.ts";
import type { TimelineSignal } from "../sync/timeline_signal.ts";
import { CpuTimelineSignal } from "../sync/cpu_signal.ts";
import { StreamGates } from "./_stream_gates.ts";
import { cubeCount, LaunchRecord } from "./_launch_record.ts";
import {
  fromBytes,
  toBytes,
  type TypedArray,
  type TypedArrayConstructor,
} from "./_typed_arrays.ts";

export type { TypedArray, TypedArrayConstructor };

const NO_BUFFERS: readonly Handle[] = Object.freeze([]);

/** Options that pick the stream of one call. */
export interface StreamOptions {
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/** Options of {@linkcode ComputeClient.create}. */
export interface CreateOptions extends StreamOptions {
  /**
   * Memory layout.
   * @default {"contiguous"}
   */
  kind?: AllocationKind;
}

/** Options of {@linkcode ComputeClient.write}. */
export interface WriteOptions extends StreamOptions {
  /**
   * Byte offset in the handle where the data goes.
   * @default {0}
   */
  offset?: number;
}

/**
 * A kernel launch through the client: how many invocations (`threads`) or workgroups (`count`),
 * the storage buffers in binding order, and the named `params` of the kernel's uniform.
 *
 * @example
 * ```ts
 * import type { ExecuteOptions, Handle } from "@gpucompute/runtime";
 * const saxpy = (x: Handle, y: Handle): ExecuteOptions => ({
 *   threads: 1024,
 *   buffers: [x, y],
 *   params: { a: 2, n: 1024 },
 * });
 * ```
 */
export interface ExecuteOptions extends StreamOptions {
  /**
   * Invocations to run: `n` or `[x, y, z]`. The workgroups are computed from the kernel's
   * `@workgroup_size`; a one-dimensional launch beyond 65,535 workgroups is folded into y and z,
   * see the index formula in the README. Give either `threads` or `count`.
   */
  threads?: number | readonly [number, number?, number?];
  /** Workgroups (cubes) to dispatch, when you count them yourself. */
  count?: CubeCount;
  /**
   * Handles (or bindings) for the kernel's `var<storage>` bindings, in binding order. Read-only
   * (`var<storage, read>`) and writable ones take any handle.
   * @default {[]}
   */
  buffers?: readonly (Handle | Binding)[];
  /**
   * Values of the kernel's `var<uniform>` struct fields by name, packed by WGSL layout rules
   * (f32, i32, u32, f16, vectors and matrices as arrays, fixed arrays, nested structs as objects).
   * A missing, unknown or out-of-range field is a `KernelArgumentError` naming it.
   * @default {undefined}
   */
  params?: KernelParams;
  /** For generated kernels: scalars by storage type, in CubeCL's info buffer (backend API). */
  scalars?: Partial<Record<StorageType, readonly (number | bigint)[]>>;
  /** For generated kernels: packed metadata, in CubeCL's info buffer (backend API). */
  metadata?: MetadataBinding;
}

/** What {@linkcode ComputeClient.profile} returns. */
export interface Profiled<T> {
  /** The value the profiled function returned. */
  readonly result: T;
  /** The device (or wall-clock) time of the work it launched on the profiled stream. */
  readonly duration: ProfileDuration;
}

/** Options of {@linkcode ComputeClient}. */
export interface ComputeClientOptions {
  /**
   * Whether {@linkcode ComputeClient.destroy} also destroys the server.
   * @default {true}
   */
  ownsServer?: boolean;
}

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
 * client.execute(scale, { threads: 4, buffers: [data], params: { s: 2 } });
 * console.log(await client.read(data, Float32Array)); // Float32Array [2, 4, 6, 8]
 * ```
 */
export class ComputeClient<K extends KernelMetadata = KernelMetadata> implements Disposable {
  readonly #server: ComputeServer<K>;
  readonly #ownsServer: boolean;
  readonly #gates = new StreamGates();
  readonly #scratch = new LaunchRecord<K>();
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

  /** Allocates `byteSize` bytes (uninitialised). The caller disposes the handle. */
  create(byteSize: number, options?: StreamOptions): Handle {
    assertNonNegativeInteger(byteSize, "byteSize");
    if (options !== undefined) checkOptions(options);
    return this.server.empty(byteSize, resolveStreamId(options?.stream));
  }

  /** Allocates a tensor of `shape` elements of `elemSize` bytes; returns handle and strides. */
  createTensor(
    shape: readonly number[],
    elemSize: number,
    options: CreateOptions = {},
  ): Allocation {
    checkOptions(options);
    if (
      options.kind !== undefined && options.kind !== "contiguous" && options.kind !== "optimized"
    ) {
      throw new RangeError(
        `kind must be "contiguous" or "optimized", got ${describe(options.kind)}`,
      );
    }
    const descriptor = options.kind === "optimized"
      ? AllocationDescriptor.optimized(shape, elemSize)
      : AllocationDescriptor.contiguous(shape, elemSize);
    return this.server.create([descriptor], resolveStreamId(options.stream))[0];
  }

  /** Allocates a buffer holding a copy of `data`. */
  createWithData(data: TypedArray | ArrayBuffer, options: StreamOptions = {}): Handle {
    checkOptions(options);
    const stream = resolveStreamId(options.stream);
    const bytes = toBytes(data);
    if (!this.#gates.held(stream)) return this.server.createWithData(bytes, stream);
    // A held stream (waitFor) takes the data when the write runs.
    const handle = this.create(bytes.byteLength, { stream });
    this.write(handle, bytes, { stream });
    return handle;
  }

  /** Writes `data` into the handle's memory at `options.offset` bytes, in stream order. */
  write(handle: Handle, data: TypedArray | ArrayBuffer, options: WriteOptions = {}): void {
    checkHandle(handle, "handle");
    checkOptions(options);
    const bytes = toBytes(data);
    const offset = options.offset ?? 0;
    assertNonNegativeInteger(offset, "offset");
    const whole = handle.binding();
    if (offset + bytes.byteLength > whole.size()) {
      throw new RangeError(
        `Cannot write ${bytes.byteLength} bytes at offset ${offset} into a ${whole.size()}-byte handle`,
      );
    }
    // Narrow the binding to the written range; the handle keeps owning the whole slice.
    const target = new Binding(whole.memory, {
      ...placementOf(whole),
      offsetStart: (whole.offsetStart ?? 0) + offset,
      offsetEnd: (whole.offsetEnd ?? 0) + whole.size() - offset - bytes.byteLength,
    });
    const descriptor = copyDescriptor(target, [bytes.byteLength], [1], 1);
    const stream = resolveStreamId(options.stream);
    this.#gates.runVoid(stream, [whole.memory.id], [handle], () => {
      this.server.write([{ descriptor, data: bytes }], stream);
    });
  }

  /** Reads a handle's bytes as `type` (default `Uint8Array`). */
  async read<T extends TypedArray = Uint8Array>(
    handle: Handle,
    type?: TypedArrayConstructor<T>,
    options: StreamOptions = {},
  ): Promise<T> {
    const [result] = await this.readMany([handle], type, options);
    return result;
  }

  /** Reads several handles in one round trip to the device. */
  async readMany<T extends TypedArray = Uint8Array>(
    handles: readonly Handle[],
    type?: TypedArrayConstructor<T>,
    options: StreamOptions = {},
  ): Promise<T[]> {
    if (!Array.isArray(handles)) {
      throw new TypeError(`handles must be an array of Handle, got ${describe(handles)}`);
    }
    handles.forEach((handle, i) => checkHandle(handle, `handles[${i}]`));
    checkOptions(options);
    if (
      type !== undefined &&
      (typeof type !== "function" || !Number.isInteger(type.BYTES_PER_ELEMENT))
    ) {
      throw new TypeError(`type must be a typed array constructor, got ${describe(type)}`);
    }
    const descriptors: CopyDescriptor[] = handles.map((handle) => {
      const size = handle.size();
      return copyDescriptor(handle.binding(), [size], contiguousStrides([size]), 1);
    });
    const stream = resolveStreamId(options.stream);
    const keys = descriptors.map((descriptor) => descriptor.binding.memory.id);
    const bytes = await this.#gates.run(stream, keys, handles, () => {
      return this.server.read(descriptors, stream);
    });
    return bytes.map((chunk) => fromBytes(chunk, type));
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
    const gates = this.#gates;
    // Nothing held (the common case): the launch goes straight to the server, which reads it
    // during the call only (the contract), so one launch record is reused: no allocation here.
    const held = gates.busy;
    const bindings = held ? new Bindings() : this.#scratch.bindings;
    try {
      for (let i = 0; i < buffers.length; i++) {
        const item = buffers[i];
        if (item instanceof Handle) bindings.buffers.push(item.binding());
        else if (item instanceof Binding) bindings.buffers.push(item);
        else {
          throw new TypeError(`buffers[${i}] must be a Handle or a Binding, got ${describe(item)}`);
        }
      }
      const scalars = options.scalars;
      if (scalars !== undefined) {
        if (typeof scalars !== "object" || scalars === null) {
          throw new TypeError(
            `scalars must be an object by storage type, got ${describe(scalars)}`,
          );
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
      if (options.metadata !== undefined) bindings.withMetadata(options.metadata);
      const stream = resolveStreamId(options.stream);
      if (!held) {
        const launch = this.#scratch;
        launch.kernel = kernel;
        launch.count = cubeCount(options, launch.threads);
        launch.params = options.params;
        gates.throwRecorded(stream);
        this.server.execute(launch, stream);
        return;
      }
      const launch = {
        kernel,
        count: cubeCount(options, { kind: "threads", x: 1, y: 1, z: 1 }),
        bindings,
        params: options.params,
      };
      gates.runVoid(
        stream,
        bindings.buffers.map((binding) => binding.memory.id),
        buffers.filter((item) => item instanceof Handle),
        () => this.server.execute(launch, stream),
      );
    } finally {
      if (!held) this.#scratch.clear();
    }
  }

  /** Submits the stream's queued work. */
  flush(options: StreamOptions = {}): void {
    const stream = resolveStreamId(options.stream);
    this.#gates.runVoid(stream, [], [], () => this.server.flush(stream));
  }

  /** Resolves once all work submitted so far (and every call held by `waitFor`) has completed. */
  sync(options: StreamOptions = {}): Promise<void> {
    const stream = resolveStreamId(options.stream);
    if (this.#gates.busy) {
      return this.#gates.drain().then(() => this.sync({ stream }));
    }
    const failed = this.#gates.take(stream);
    return failed === undefined ? this.server.sync(stream) : Promise.reject(failed.error);
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
    this.#gates.runVoid(stream, [], [], () => {
      const server = this.server;
      if (server.signal !== undefined) return server.signal(timeline, value, stream);
      // Without a native mark, `sync` covers every stream's submitted work.
      server.sync(stream).then(
        () => timeline.set(value),
        (error) => this.#gates.record(stream, error),
      );
    });
    return value;
  }

  /**
   * Holds the stream until `signal` reaches `value`: the calls made on it from now on (writes,
   * kernels, reads, marks) run then, in call order, and so do later calls on other streams that
   * use memory a held call uses. A held `write` takes its data when it runs, so a host producer
   * (another Worker filling shared memory, say) may finish the input after this call.
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
   * console.log(await client.read(data, Float32Array, { stream: 1 }));
   * ```
   */
  waitFor(signal: TimelineSignal, value: bigint | number, options: StreamOptions = {}): void {
    this.#assertLive();
    const stream = resolveStreamId(options.stream);
    this.#gates.hold(stream, signal.wait(value));
  }

  /**
   * Runs `fn` with `options.stream` as the current stream, inside a profiling window of that
   * stream, and returns its result with the time of the work that stream launched (other
   * streams' work is not counted, and is not flushed).
   */
  async profile<T>(fn: () => T | Promise<T>, options: ProfileOptions = {}): Promise<Profiled<T>> {
    const stream = resolveStreamId(options.stream);
    const perKernel = options.perKernel ?? false;
    const token = this.server.startProfile(stream, perKernel ? { perKernel } : undefined);
    let result: T;
    try {
      result = await withStream(stream, fn);
    } catch (error) {
      // Close the window so the token does not leak, then report the original failure.
      await this.#server.endProfile(stream, token).catch(() => {});
      throw error;
    }
    const duration = await this.server.endProfile(stream, token);
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

  /** Destroys the server if this client owns it. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    if (this.#ownsServer) this.#server.destroy();
  }

  /** Same as {@linkcode destroy}, for `using`. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #assertLive(): void {
    if (this.#destroyed) throw new RuntimeError("DESTROYED", "The compute client was destroyed");
  }
}

function placementOf(binding: Binding): Placement {
  const { offsetStart, offsetEnd, stream, cursor, fullSize } = binding;
  return { offsetStart, offsetEnd, stream, cursor, fullSize };
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${describe(options)}`);
  }
}

function checkHandle(handle: unknown, what: string): void {
  if (!(handle instanceof Handle)) {
    throw new TypeError(`${what} must be a Handle, got ${describe(handle)}`);
  }
}
