/**
 * `cuLaunchKernel` parameter marshalling. `kernelParams` is an array of pointers, one per kernel
 * parameter, each to the parameter's value; the driver copies the values during the call, so
 * both arrays only need to live for the call, and one pair per parameter count is reused by
 * every launch (calls are synchronous, on one thread). Values sit in 8-byte slots.
 *
 * ABI (see `kernel.ts`): buffer pointers (`CUdeviceptr` of the ref, offsets applied); with
 * `bufferLengths`, one `u32` byte length per buffer; the metadata words (`u32`); the scalars,
 * type by type in insertion order, each value in its own slot at its natural size.
 *
 * @module
 */

import type { KernelArguments } from "../../../core/kernel_arguments.ts";
import { TimeoutError } from "../../../core/errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { MultiStream } from "../../../stream/event.ts";
import type { KernelLaunch, ResourceRange } from "../../server.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS } from "../_ffi.ts";
import type { CudaEvent, CudaStream } from "../queue/streams.ts";
import type { CopyContext } from "../memory/_write.ts";
import type { CudaDeviceAttributes } from "../device.ts";
import type { CudaKernel } from "../kernel.ts";
import type { ModuleCache } from "../compile/module_cache.ts";
import type { StreamMemory } from "../memory/memory.ts";
import type { CudaProfiler } from "../profile/profiler.ts";
import { kernelName } from "../kernel.ts";
import { checkLaunch } from "./_check_launch.ts";

/** The marshalled parameters of one launch. */
export interface LaunchParams {
  /** Byte size of each parameter, in order. */
  readonly sizes: readonly number[];
  /** The `void**` array. */
  readonly pointers: BigUint64Array;
  /** The values the pointers point into (keep alive through the call). */
  readonly values: ArrayBuffer;
}

const LENGTH_LIMIT = 2 ** 32;

/** Parameter buffers by slot count, reused: the driver copies the values during the call. */
const scratch = new Map<
  number,
  { values: ArrayBuffer; view: DataView; pointers: BigUint64Array }
>();

function buffersFor(count: number) {
  let entry = scratch.get(count);
  if (entry === undefined) {
    const values = new ArrayBuffer(Math.max(8, count * 8));
    const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
    const pointers = new BigUint64Array(count);
    for (let i = 0; i < count; i++) pointers[i] = base + BigInt(i * 8);
    entry = { values, view: new DataView(values), pointers };
    scratch.set(count, entry);
  }
  return entry;
}

/** Builds the parameters of `kernel` from located buffers and the launch's arguments. */
export function marshalParams(
  kernel: CudaKernel,
  buffers: readonly ResourceRange<bigint>[],
  args: KernelArguments,
): LaunchParams {
  const meta = args.metadata.data;
  let count = buffers.length * (kernel.bufferLengths ? 2 : 1) + meta.length;
  for (const scalar of args.scalars.values()) count += scalar.length;
  const { values, view, pointers } = buffersFor(count);
  const sizes: number[] = [];
  for (let i = 0; i < buffers.length; i++) sizes.push(8);
  if (kernel.bufferLengths) { for (let i = 0; i < buffers.length; i++) sizes.push(4); }
  for (let i = 0; i < meta.length; i++) sizes.push(4);
  let slot = 0;
  for (const buffer of buffers) {
    view.setBigUint64(slot++ * 8, buffer.resource + BigInt(buffer.offset), true);
  }
  if (kernel.bufferLengths) {
    for (const buffer of buffers) {
      if (buffer.size >= LENGTH_LIMIT) {
        throw new RangeError(
          `Kernel '${
            kernelName(kernel)
          }' takes u32 buffer lengths; a buffer of ${buffer.size} bytes exceeds them`,
        );
      }
      view.setUint32(slot++ * 8, buffer.size, true);
    }
  }
  for (let i = 0; i < meta.length; i++) view.setUint32(slot++ * 8, meta[i], true);
  const bytes = new Uint8Array(values);
  for (const scalar of args.scalars.values()) {
    const size = scalar.bytes.byteLength / Math.max(1, scalar.length);
    for (let i = 0; i < scalar.length; i++) {
      bytes.set(scalar.bytes.subarray(i * size, (i + 1) * size), slot++ * 8);
      sizes.push(size);
    }
  }
  return { sizes, pointers, values };
}

/** What a launch works with: the server's parts, made before it. */
export interface LaunchParts extends CopyContext {
  readonly modules: ModuleCache;
  readonly attributes: CudaDeviceAttributes;
  readonly timeoutMs: number;
  /** Where every ref's memory is. */
  readonly memory: StreamMemory;
  /** Orders the launch's stream after other streams' uses of its refs. */
  readonly streams: MultiStream<CudaStream, CudaEvent>;
  /** Per-kernel profiling (see `CudaProfiler.timeLaunch`). */
  readonly profiler: CudaProfiler;
}

function checkGrid(ctx: LaunchParts, grid: number[]): number[] {
  const { maxGridDim } = ctx.attributes;
  if (grid.some((n, i) => n > maxGridDim[i])) {
    throw new RangeError(`Cube count [${grid}] exceeds the device's grid limit [${maxGridDim}]`);
  }
  return grid;
}

/** What the checks of a launch found, for the launch itself. */
interface Checked {
  readonly fixed: number[] | undefined;
  readonly fn: Deno.PointerValue;
  readonly params: LaunchParams;
  readonly countAt: ResourceRange<bigint> | undefined;
}

/**
 * Checks a launch whose shape was checked against the device: block and grid limits, the
 * module's function, every buffer's memory (`INVALID_HANDLE` for a disposed handle or another
 * server's) and the parameter sizes. Enqueues nothing.
 */
function deviceChecks(ctx: LaunchParts, kernelLaunch: KernelLaunch<CudaKernel>): Checked {
  const { kernel, count, args } = kernelLaunch;
  const name = kernelName(kernel);
  const [bx, by, bz] = kernel.blockSize;
  const { maxBlockDim, maxThreadsPerBlock } = ctx.attributes;
  if (
    bx * by * bz > maxThreadsPerBlock || bx > maxBlockDim[0] || by > maxBlockDim[1] ||
    bz > maxBlockDim[2]
  ) {
    throw new RangeError(
      `Kernel '${name}' has blocks of [${kernel.blockSize}] but the device allows ` +
        `${maxThreadsPerBlock} threads and [${maxBlockDim}] per dimension`,
    );
  }
  // `threads` launches: enough blocks to cover the threads (CUDA's x limit, 2^31 - 1 blocks,
  // needs no folding; every kernel checks its bound, the last block is partial).
  const fixed = count.kind === "static"
    ? [count.x, count.y, count.z]
    : count.kind === "threads"
    ? [count.x, count.y, count.z].map((n, i) => Math.ceil(n / kernel.blockSize[i]))
    : undefined;
  if (fixed !== undefined) checkGrid(ctx, fixed);
  const fn = ctx.modules.function(kernel);
  const buffers = args.refs();
  const params = marshalParams(kernel, buffers.map((ref) => ctx.memory.locate(ref)), args);
  const expected = ctx.modules.signature(kernel);
  if (expected !== undefined && !sameSizes(expected, params.sizes)) {
    // A mismatch would make the device read garbage (a fault at best): refuse it here.
    throw new TypeError(
      `Kernel '${name}' takes ${expected.length} parameters of [${expected}] bytes, ` +
        `but the launch gives ${params.sizes.length} of [${params.sizes}] (${buffers.length} ` +
        `buffers${kernel.bufferLengths ? " and their lengths" : ""}, ` +
        `${args.metadata.data.length} metadata words, then scalars)`,
    );
  }
  const countAt = count.kind === "dynamic" ? ctx.memory.locate(count.ref) : undefined;
  return { fixed, fn, params, countAt };
}

/** A launch every check accepted, ready to enqueue ({@linkcode CudaLauncher.prepare}). */
export interface PreparedLaunch extends Checked {
  /** The launch. */
  readonly launch: KernelLaunch<CudaKernel>;
}

/**
 * Prepares and enqueues launches, as the WebGPU launcher does: `prepare` makes every check (the
 * launch's shape, the device's limits, the module's function, every buffer's memory, the
 * parameter sizes) and enqueues nothing, so a refused launch changes nothing and a client holding
 * the stream can check a launch at the call; `enqueue` orders the stream and launches. The
 * marshalled parameters of a prepared launch are valid until the next `prepare`.
 */
export class CudaLauncher {
  readonly #parts: LaunchParts;

  /** A launcher over the server's parts. */
  constructor(parts: LaunchParts) {
    this.#parts = parts;
  }

  /** What launches work with (captured graphs too, `_graph.ts`). */
  get parts(): LaunchParts {
    return this.#parts;
  }

  /** Checks `launch` and returns it prepared; enqueues nothing. */
  prepare(launch: KernelLaunch<CudaKernel>): PreparedLaunch {
    checkLaunch(launch);
    return { launch, ...deviceChecks(this.#parts, launch) };
  }

  /** Orders `streamId` after other streams' uses of the launch's refs, then launches. */
  enqueue(prepared: PreparedLaunch, streamId: StreamId): void {
    const ctx = this.#parts;
    const { launch: { kernel, count, args }, fixed, fn, params, countAt } = prepared;
    const name = kernelName(kernel);
    const [bx, by, bz] = kernel.blockSize;
    const buffers = args.refs();
    using ordered = ctx.streams.order(
      streamId,
      count.kind === "dynamic" ? [...buffers, count.ref] : buffers,
      { enforceHealthy: true },
    );
    const stream = ordered.stream;
    const grid = fixed ??
      (countAt !== undefined ? checkGrid(ctx, readCount(ctx, countAt, stream)) : []);
    if (grid.some((n) => n === 0)) return; // nothing to run
    const timed = ctx.profiler.timeLaunch(stream, streamId, name, grid as [number, number, number]);
    ctx.driver.check(
      ctx.driver.symbols.cuLaunchKernel(
        fn,
        grid[0],
        grid[1],
        grid[2],
        bx,
        by,
        bz,
        kernel.sharedMemoryBytes ?? 0,
        stream.handle,
        params.pointers,
        null,
      ),
      `cuLaunchKernel(${name}, grid [${grid}], block [${kernel.blockSize}], stream ${stream.index})`,
    );
    timed?.();
  }
}

const nap = new Int32Array(new SharedArrayBuffer(4));

/**
 * Reads a dynamic cube count (3 x u32) in stream order and waits for it on the host: the driver
 * takes grids from the host. Sleeps 50 µs between polls; `TIMEOUT` after the timeout (the
 * staging buffer then stays pinned until the copy completes).
 */
function readCount(ctx: LaunchParts, at: ResourceRange<bigint>, stream: CudaStream): number[] {
  const { driver, pinned, events } = ctx;
  const staging = pinned.acquire(12);
  driver.check(
    driver.symbols.cuMemcpyDtoHAsync_v2(
      staging.pointer,
      at.resource + BigInt(at.offset),
      12n,
      stream.handle,
    ),
    `cuMemcpyDtoHAsync_v2(cube count, stream ${stream.index})`,
  );
  const event = events.record(stream);
  const deadline = performance.now() + ctx.timeoutMs;
  for (;;) {
    const result = driver.symbols.cuEventQuery(event.handle);
    if (result === CUDA_SUCCESS) break;
    if (result !== CUDA_ERROR_NOT_READY || performance.now() > deadline) {
      pinned.retire(staging, event);
      if (result !== CUDA_ERROR_NOT_READY) throw driver.error(result, "cuEventQuery(cube count)");
      throw new TimeoutError("a dynamic cube count", ctx.timeoutMs, "its copy is not complete");
    }
    Atomics.wait(nap, 0, 0, 0.05);
  }
  const counts = [...new Uint32Array(staging.bytes.buffer, staging.bytes.byteOffset, 3)];
  events.release(event);
  pinned.release(staging);
  return counts;
}

function sameSizes(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
