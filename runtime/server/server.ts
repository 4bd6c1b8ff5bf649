/**
 * The backend contract: what every compute server (WebGPU, CUDA, the simulated test backend)
 * implements. Ported from CubeCL's `ComputeServer` with these choices:
 *
 * - **Streams are explicit.** Every operation takes the logical stream it runs on as its last
 *   positional argument; the {@linkcode ComputeClient} fills it from the current async context.
 *   Servers order work across streams themselves (events or a task scheduler): callers never
 *   flush to make a cross-stream result visible.
 * - **Reads are asynchronous, everything else is synchronous.** `create`, `write`, `execute` and
 *   `flush` enqueue work and return at once; `read`, `sync` and `endProfile` return promises.
 *   A pending promise settles with `DESTROYED` when the server is destroyed, and with
 *   `DEVICE_LOST` when the device is lost.
 * - **Errors reach their caller.** A launch that can be checked synchronously throws from
 *   `execute`. A failure the device reports later is attributed to the stream that launched the
 *   work and raised by that stream's next `sync` or `read`, naming the kernel and the stream;
 *   it never discards other work or another stream's read.
 * - **Errors are typed.** Bad arguments throw `TypeError`/`RangeError`; domain failures throw a
 *   {@linkcode ComputeError} subclass with a literal code. A failed call leaves the server usable.
 *   Optional operations a backend lacks throw `UNSUPPORTED`, never fail silently.
 * - **Ownership.** Handles returned by `create` are the caller's to dispose. Servers pin every
 *   ref's memory while work using it is queued or in flight (disposing at once is safe).
 * - **Disposable.** `destroy()` releases the device objects the server created (not an adopted
 *   device) and is idempotent; any later call throws `DESTROYED`.
 * - **Use after dispose fails always.** A ref (or copy descriptor) whose handles were all
 *   disposed is refused with `INVALID_HANDLE` even while queued work still pins its memory, so
 *   the outcome never depends on when that work completes.
 *
 * Rules for backends built on the event `MultiStream` (`runtime/stream/event.ts`):
 *
 * 1. **Order, enqueue, finish: one critical section.** Call `order`, enqueue the work on
 *    `ordered.stream`, then `finish()` (or `using`), with no other `order` in between and no
 *    `await` inside. Reserve temporaries before ordering. A second order while one is
 *    unfinished throws `ORDER_IN_PROGRESS`: accepting it would flush a stream whose work is
 *    not enqueued yet and record it as synchronized, so a later read would miss the write.
 * 2. **Memory freed on a stream is reused only in that stream's order.** Keep one memory pool
 *    per stream index (`streamId % maxStreams`): same-stream refs are not pinned, so a slice
 *    freed on stream S may be handed out again only to work that S runs after. Memory used by
 *    another stream is pinned by the multi-stream until that use completed.
 * 3. **What a copy still reads goes to the GC.** Staging buffers and host buffers that enqueued
 *    work reads are handed to `ordered.gc(...)` (or `multiStream.gc(stream, event, ...)`), never
 *    released at once.
 * 4. **A failed or timed-out wait frees nothing.** The multi-stream keeps the memory pinned and
 *    leaves the stream unhealthy (later work on it, or waiting on it, throws `STREAM_UNHEALTHY`
 *    with the failure as `cause`), and records the failure in `multiStream.errors`: throw it
 *    from that stream's next `sync` or `read` (`errors.throwFor(stream)`).
 * 5. **Bounded GC.** Implement `waitEventHostSync` (a blocking host wait with a deadline) so that
 *    a long synchronous loop of cross-stream work blocks on old GC work (`maxPendingGc`, 8 by
 *    default) instead of keeping every allocation alive until the event loop turns.
 * 6. **Poll where you can.** Implement `isEventComplete` (one non-blocking event query) so that
 *    the GC polls one FIFO per stream index instead of parking a host wait per task; with
 *    `hostWaitsSleep` (a `waitEventHost` that sleeps, no timer loop) it polls when a wait parked
 *    on each FIFO's oldest task settles, else on a timer.
 *
 * Backends on the task-queue `SchedulerMultiStream` own a task's resources (its completion
 * callbacks) from the scheduler's call to `enqueue`, even if it or the next `flush` throws: the
 * scheduler enqueues every task it took and flushes every stream, then releases and rethrows.
 *
 * @module
 */

import type {
  ExecutionMode,
  KernelMetadata,
  KernelParams,
  MemoryAllocationMode,
} from "../core/kernel.ts";
import type { MemoryUsage } from "../memory/memory_usage.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { KernelArguments } from "../core/kernel_arguments.ts";
import type { CubeCount } from "../core/cube_count.ts";
import type { Handle, HandleKind, HandleRef } from "../core/handles/handle.ts";
import type { Allocation, AllocationDescriptor, CopyDescriptor } from "../core/allocation.ts";
import type { Trace } from "../core/trace.ts";
import type { TimelineSignal } from "../../sync/timeline_signal.ts";
import type { LaunchBindings, TextureServer } from "./texture_server.ts";
import type { ProfileDuration, ProfilingToken, StartProfileOptions } from "./profiling.ts";

export type { ProfileDuration, ProfilingToken, StartProfileOptions } from "./profiling.ts";

/**
 * The backend resource behind a ref, with the byte range it covers.
 *
 * @example
 * ```ts
 * import type { ResourceRange } from "@gpucompute/runtime/backend";
 * const range = (r: ResourceRange<unknown>) => [r.offset, r.offset + r.size];
 * ```
 */
export interface ResourceRange<R> {
  /** The backend resource (a `GPUBuffer`, a device pointer...). */
  readonly resource: R;
  /** Byte offset of the ref in the resource. */
  readonly offset: number;
  /** Byte length of the ref. */
  readonly size: number;
}

/**
 * The backend resource behind a ref, leased by {@linkcode ComputeServer.getResource}: the work
 * queued before it that it depends on has been submitted, and its memory is kept alive (not
 * reused by another allocation) until the lease is released, even if every handle is disposed.
 *
 * @example
 * ```ts
 * import type { ResourceLease } from "@gpucompute/runtime/backend";
 * function use(lease: ResourceLease<GPUBuffer>) {
 *   using held = lease; // released at the end of the block
 *   return [held.offset, held.size];
 * }
 * ```
 */
export interface ResourceLease<R> extends ResourceRange<R>, Disposable {
  /** True once released. */
  readonly released: boolean;
  /** Lets the memory be reused. Idempotent. */
  release(): void;
}

/**
 * A kernel launch: the kernel, its cube count, its arguments, named parameters and execution mode.
 *
 * @example
 * ```ts
 * import { KernelArguments, CubeCount, type KernelLaunch } from "@gpucompute/runtime/backend";
 * const launch: KernelLaunch<{ id: string }> = {
 *   kernel: { id: "noop" },
 *   count: CubeCount.newSingle(),
 *   args: new KernelArguments(),
 * };
 * ```
 */
export interface KernelLaunch<K extends KernelMetadata> extends LaunchBindings {
  /** The kernel to run. */
  readonly kernel: K;
  /** How many cubes to dispatch. */
  readonly count: CubeCount;
  /** What the kernel receives: buffers, scalars, metadata. */
  readonly args: KernelArguments;
  /**
   * Named parameters, packed by the backend following its kernel language's layout (WGSL
   * uniform structs on WebGPU). A backend without named parameters throws `UNSUPPORTED`.
   * @default {undefined}
   */
  readonly params?: KernelParams;
  /**
   * The kernel's `override` constant values by name (WGSL); `UNSUPPORTED` where not supported.
   * @default {undefined}
   */
  readonly overrides?: { readonly [name: string]: number | boolean };
  /**
   * Bounds-checked or not, for backends that compile generated kernels either way. WebGPU always
   * runs checked (WGSL's robust buffer access) and ignores it; the user client does not offer it.
   * @default {"checked"}
   */
  readonly mode?: ExecutionMode;
}

/**
 * Bytes to write into a destination described by a copy descriptor.
 *
 * @example
 * ```ts
 * import type { WriteEntry } from "@gpucompute/runtime/backend";
 * const bytes = (entry: WriteEntry) => entry.data.byteLength;
 * ```
 */
export interface WriteEntry {
  /** Where to write. */
  readonly descriptor: CopyDescriptor;
  /** The bytes, laid out as the descriptor's shape in row-major order. */
  readonly data: Uint8Array;
}

/**
 * Facts about the device behind a server, for clients and the autotuner (CubeCL keeps these in
 * `DeviceProperties` and a server's `utilities`).
 *
 * @example
 * ```ts
 * import type { DeviceProperties } from "@gpucompute/runtime/backend";
 * const label = (u: DeviceProperties) => `${u.backend}: ${u.deviceName}`;
 * ```
 */
export interface DeviceProperties {
  /** `webgpu`, `cuda`, or a test backend's name. */
  readonly backend: string;
  /** Human-readable device name (adapter description, CUDA device name). */
  readonly deviceName: string;
  /** Largest single allocation in bytes. */
  readonly maxAllocationSize: number;
  /** Whether `endProfile` reports device time. */
  readonly deviceTimer: boolean;
  /** The device's features (WebGPU: `shader-f16`, `timestamp-query`...), where listed. */
  readonly features?: ReadonlySet<string>;
}

/**
 * The contract every backend implements. See the module documentation for the design rules.
 *
 * @example Allocate, write, read back
 * ```ts
 * import { AllocationDescriptor, type ComputeServer } from "@gpucompute/runtime/backend";
 * async function roundTrip(server: ComputeServer, data: Uint8Array) {
 *   const [allocation] = server.create([AllocationDescriptor.contiguous([data.length], 1)], 0);
 *   using handle = allocation.handle;
 *   server.write([{ descriptor: handle.copyDescriptor([data.length], [1], 1), data }], 0);
 *   const [bytes] = await server.read([handle.copyDescriptor([data.length], [1], 1)], 0);
 *   return bytes;
 * }
 * ```
 */
export interface ComputeServer<K extends KernelMetadata = KernelMetadata, R = unknown>
  extends Disposable, TextureServer {
  /** Facts about the device. */
  readonly properties: DeviceProperties;
  /** True after {@linkcode destroy}. */
  readonly destroyed: boolean;

  /**
   * Reserves memory for each descriptor; the caller owns the handles. The descriptors are read
   * during the call only (callers may reuse them).
   */
  create(descriptors: readonly AllocationDescriptor[], stream: StreamId): Allocation[];
  /**
   * Reserves `byteSize` uninitialised bytes (as `create` with one contiguous descriptor of 1-byte
   * elements, without the allocation records: the client's allocation path), for a handle of
   * `kind` (untyped by default). `TypeError` / `RangeError` for a size that is not a
   * non-negative safe integer or not a whole number of elements. `kind` is read during the call
   * only.
   */
  empty(byteSize: number, stream: StreamId, kind?: HandleKind): Handle;
  /** Host buffers to stage uploads in; `UNSUPPORTED` where the backend has no pinned memory. */
  staging(sizes: readonly number[], stream: StreamId): Uint8Array[];
  /**
   * Allocates a contiguous buffer of `data.byteLength` bytes and writes `data` into it, for a
   * handle of `kind` (untyped by default; read during the call only).
   */
  createWithData(data: Uint8Array, stream: StreamId, kind?: HandleKind): Handle;
  /**
   * Optional. Compiles a kernel now, rejecting with `CompilationError` (with the line when the
   * compiler gives one), so that compilation errors need not wait for a launch.
   */
  compile?(kernel: K, options?: Pick<KernelLaunch<K>, "overrides">): void | Promise<void>;
  /** Reads every descriptor; one round trip to the device for all of them. */
  read(descriptors: readonly CopyDescriptor[], stream: StreamId): Promise<Uint8Array[]>;
  /** Writes bytes into memory, in stream order. */
  write(entries: readonly WriteEntry[], stream: StreamId): void;
  /** Resolves when every task submitted so far (on every stream) has completed. */
  sync(stream: StreamId): Promise<void>;
  /**
   * The backend resource behind a ref, for use outside the runtime (e.g. in your own command
   * buffers). Submits the queued work the ref depends on first; the memory stays alive until
   * the returned lease is released.
   */
  getResource(ref: HandleRef, stream: StreamId): ResourceLease<R>;
  /**
   * Enqueues a kernel launch. The launch is read during the call only: a server keeps the
   * `HandleRef`s (and the cube count's ref) it needs, never the launch, its `KernelArguments` or their
   * arrays, which callers reuse for the next launch (the client does).
   */
  execute(launch: KernelLaunch<K>, stream: StreamId): void;
  /**
   * Optional. Runs every check `execute` makes of `launch`'s own arguments (handles and their
   * owner, element types, sizes, params, counts) and throws what `execute` would, enqueueing
   * nothing: a client that holds `stream` (`waitFor`, a copy through the host) calls it at the
   * call and `execute` later. Only what the device reports later may still fail then.
   */
  checkLaunch?(launch: KernelLaunch<K>, stream: StreamId): void;
  /**
   * Optional. Throws `INVALID_HANDLE` (naming the handle) unless `ref` is live memory of this
   * server: a disposed handle, or another server's.
   */
  checkRef?(ref: HandleRef): void;
  /**
   * Optional. The buffers of `launch` (just executed) that it may write: not those bound only
   * to read-only parameters (CUDA's `const T*`). Asked only while the client's device work runs
   * behind another client's unsettled work, so that a failure there loses only what the kernel
   * wrote (client/timeline/_device_deps.ts); where absent, every buffer counts as written.
   */
  writtenBuffers?(launch: KernelLaunch<K>): readonly HandleRef[];
  /**
   * Optional. Prepares `launches` (recorded on `stream`, none run) as one graph released by its
   * dispose; a kernel error rejects. The graph's `replay` runs it on `stream`, named `params`
   * rewritten first, and throws `DESTROYED` once the graph or the server is gone (the client calls
   * it directly: a replay goes through no server method). Without it a client replays launch by
   * launch.
   */
  captureGraph?(
    launches: readonly KernelLaunch<K>[],
    stream: StreamId,
    label: string,
  ): Promise<Disposable & { replay(stream: StreamId, params?: KernelParams): void }>;
  /** Submits the stream's queued work to the device. */
  flush(stream: StreamId): void;
  /** Memory figures of the server. */
  memoryUsage(stream: StreamId): MemoryUsage;
  /** Returns unused pages to the device. */
  memoryCleanup(stream: StreamId): void;
  /**
   * Opens a profiling window on `stream`: it measures the work that stream launches until
   * `endProfile`, and no other stream's. Windows may nest and overlap; opening one submits the
   * stream's earlier work, never other streams'.
   */
  startProfile(stream: StreamId, options?: StartProfileOptions): ProfilingToken;
  /**
   * Closes a window; `PROFILE_NOT_REGISTERED` for an unknown or already closed token, and for a
   * token of another stream's window (which stays open).
   */
  endProfile(stream: StreamId, token: ProfilingToken): Promise<ProfileDuration>;
  /**
   * Starts recording a timeline of every stream (optional: a server without it makes the client
   * throw `UNSUPPORTED`). One recording at a time: `TRACE_ACTIVE` while one runs.
   */
  startTrace?(): void;
  /** Stops the recording and returns it; `PROFILE_NOT_REGISTERED` when none runs. */
  stopTrace?(): Promise<Trace>;
  /** Sets where new allocations go. */
  allocationMode(mode: MemoryAllocationMode, stream: StreamId): void;
  /**
   * Copies `source` into a new allocation on `destination` (another server of the same kind).
   * Throws `UNSUPPORTED` where the two servers cannot exchange memory.
   */
  copyTo(destination: this, source: CopyDescriptor, streams: CopyStreams): Promise<Allocation>;
  /**
   * Optional. Marks the work submitted so far on `stream` (flushing it first): `timeline` is
   * `set` to `value` once that work has completed. Marks on one timeline complete in the order
   * they were made, so reaching `value` means the work of every earlier mark has completed too.
   * Where absent, the client marks through `sync` (correct, one device round trip per mark).
   */
  signal?(timeline: TimelineSignal, value: bigint, stream: StreamId): void;
  /**
   * Optional. Makes `stream` wait on the device until `timeline` reaches `value` when the backend
   * has a device event for that point (a `signal` mark of a server of the same driver, or a
   * signal of its own kind): no host round trip. Returns false when it has none; the client then
   * holds the stream on the host until the value is reached.
   */
  waitSignal?(timeline: TimelineSignal, value: bigint, stream: StreamId): boolean;
  /**
   * Optional. Enqueues a copy of `source` into `target` (memory of `destination`: this server or
   * another of the same kind) that runs on the devices without a host round trip: after the
   * writes of `source` ordered before `streams.source`'s current point, before
   * `streams.destination`'s later work, and before later work of `streams.source` (which may
   * overwrite the source). Returns false where the two servers cannot copy on the devices; the
   * client then copies through the host. `settled`, when given, is disposed once the source
   * side of the copy completed on the device, or told (`fail`) that it failed there (a kernel
   * before it faulted): the destination's device runs the copy either way, so only this tells
   * whether its bytes are the source's.
   */
  enqueueCopy?(
    destination: this,
    source: CopyDescriptor,
    target: CopyDescriptor,
    streams: CopyStreams,
    settled?: Disposable & { fail(error: unknown): void },
  ): boolean;
  /** Releases everything the server created. Idempotent. */
  destroy(): void;
}

/**
 * The streams of a server-to-server copy.
 *
 * @example
 * ```ts
 * import type { CopyStreams } from "@gpucompute/runtime/backend";
 * const streams: CopyStreams = { source: 0, destination: 1 };
 * ```
 */
export interface CopyStreams {
  /** Stream on the source server. */
  readonly source: StreamId;
  /** Stream on the destination server. */
  readonly destination: StreamId;
}
