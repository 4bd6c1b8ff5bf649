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

import { TimeoutError } from "../../../core/errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import { type MultiStream, type OrderOptions, unhealthy } from "../../../stream/event.ts";
import type { KernelLaunch, ResourceRange } from "../../server.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, CudaDriverError } from "../_ffi.ts";
import { blockUntilComplete, type WakeOwner } from "../queue/_wake.ts";
import { type CudaEvent, type CudaStream, markComplete } from "../queue/streams.ts";
import type { LaunchesInFlight } from "../queue/_in_flight.ts";
import type { CopyContext } from "../memory/_write.ts";
import type { CudaDeviceAttributes } from "../device.ts";
import type { CudaKernel } from "../kernel.ts";
import type { ModuleCache } from "../compile/module_cache.ts";
import { unreadHint } from "../compile/_resolve_kernel.ts";
import type { StreamMemory } from "../memory/memory.ts";
import type { CudaProfiler } from "../profile/profiler.ts";
import { kernelName } from "../kernel.ts";
import { checkLaunch } from "./_check_launch.ts";
import { launchBlock } from "./_block.ts";
import { LaunchPlans } from "./_plan.ts";
import { buffersByName, type LaunchParams, packBySignature, usesLayout } from "./_params.ts";
import { packByLayout } from "./_layout_params.ts";
import { KernelArgumentError } from "../../../core/errors.ts";

export type { LaunchParams } from "./_params.ts";

/** How a launch orders its stream (`MultiStream.order`), without read-only buffers. */
const ORDER: OrderOptions = Object.freeze({ enforceHealthy: true, healthFromWork: true });
/** The same, the stream's health asked of the driver first. */
const ORDER_QUERIED: OrderOptions = Object.freeze({ enforceHealthy: true });

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
  /** The server, for the blocking wait of a dynamic cube count (`queue/_wake.ts`). */
  readonly owner: WakeOwner;
  /** The context's launch log: the candidates a kernel fault's error names. */
  readonly inFlight: LaunchesInFlight;
}

/**
 * `grid`, unless past the device's limits: then a `KernelArgumentError` naming `what` (the
 * launch's `threads` or `count`), as the WebGPU backend refuses a launch past its workgroup
 * limits.
 */
function checkGrid(
  ctx: LaunchParts,
  grid: number[],
  name: string,
  what: "threads" | "count",
): number[] {
  const { maxGridDim } = ctx.attributes;
  if (grid[0] > maxGridDim[0] || grid[1] > maxGridDim[1] || grid[2] > maxGridDim[2]) {
    throw new KernelArgumentError(
      name,
      what,
      `needs [${grid.join(", ")}] blocks; the device runs at most [${
        maxGridDim.join(", ")
      }] per dimension`,
    );
  }
  return grid;
}

/** What the checks of a launch found, for the launch itself. */
interface Checked {
  /** The kernel's name, for errors. */
  readonly name: string;
  /** The launch's buffers (`args.refs()`). */
  readonly buffers: readonly HandleRef[];
  readonly block: readonly [number, number, number];
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
function deviceChecks(
  ctx: LaunchParts,
  plans: LaunchPlans,
  kernelLaunch: KernelLaunch<CudaKernel>,
): PreparedLaunch {
  const { kernel, count, args } = kernelLaunch;
  const name = kernelName(kernel);
  const resolved = ctx.modules.resolve(kernel);
  const { signature, entryPoint } = resolved;
  // A kernel launched before, unchanged since: its block, function and PTX sizes as found then
  // (`_plan.ts`); otherwise every check below, in this order.
  const plan = plans.get(kernel, resolved);
  const block = plan !== undefined ? plan.block : launchBlock(ctx.modules, ctx.attributes, kernel);
  const [bx, by, bz] = block;
  // `threads` launches: enough blocks to cover the threads (CUDA's x limit, 2^31 - 1 blocks,
  // needs no folding; every kernel checks its bound, the last block is partial).
  const fixed = count.kind === "static"
    ? [count.x, count.y, count.z]
    : count.kind === "threads"
    ? [Math.ceil(count.x / bx), Math.ceil(count.y / by), Math.ceil(count.z / bz)]
    : undefined;
  if (fixed !== undefined) {
    checkGrid(ctx, fixed, name, count.kind === "threads" ? "threads" : "count");
  }
  const fn = plan !== undefined ? plan.fn : ctx.modules.function(kernel);
  const given = args.tensorMaps.length === 0 ? args.buffers : args.refs();
  const buffers = kernelLaunch.bufferNames === undefined
    ? given
    : buffersByName(name, signature, kernelLaunch.bufferNames, given);
  const located: ResourceRange<bigint>[] = new Array(buffers.length);
  for (let i = 0; i < buffers.length; i++) located[i] = ctx.memory.locate(buffers[i]);
  const layout = usesLayout(args, kernel.bufferLengths);
  if (layout && kernelLaunch.bufferNames !== undefined) {
    throw new KernelArgumentError(
      name,
      "buffers",
      "cannot be named with metadata, scalars or bufferLengths (the internal layout binds by position)",
    );
  }
  if (layout && kernelLaunch.params !== undefined) {
    throw new KernelArgumentError(
      name,
      "params",
      "cannot be given with metadata, scalars or bufferLengths (the internal layout)",
    );
  }
  // `#if` variants of a CUDA C kernel the PTX does not tell apart: params by position only
  const unread = resolved.unread;
  if (
    !layout && unread !== undefined && kernelLaunch.params !== undefined &&
    (signature === undefined || !Array.isArray(kernelLaunch.params))
  ) {
    throw new KernelArgumentError(name, "params", `cannot be matched by name: ${unread}`);
  }
  if (!layout && signature === undefined && kernelLaunch.params !== undefined) {
    throw new KernelArgumentError(
      name,
      "params",
      `cannot be matched: the kernel's parameters could not be read from its ${
        typeof kernel.source === "string" ? "CUDA C" : "PTX"
      }${typeof kernel.source === "string" ? unreadHint(kernel.source, entryPoint) : ""}`,
    );
  }
  const params = !layout && signature !== undefined
    ? packBySignature(
      name,
      signature,
      buffers,
      located,
      kernelLaunch.params,
      kernelLaunch.bufferNames !== undefined,
    )
    : packByLayout(name, kernel.bufferLengths ?? false, located, args, signature);
  const expected = plan !== undefined ? plan.expected : ctx.modules.signature(kernel);
  if (
    expected !== undefined && plan?.checkedSizes !== params.sizes &&
    !sameSizes(expected, params.sizes)
  ) {
    // A mismatch would make the device read garbage (a fault at best): refuse it here.
    throw new TypeError(
      `Kernel '${name}' takes ${expected.length} parameters of [${expected}] bytes, ` +
        `but the launch gives ${params.sizes.length} of [${params.sizes}] (${buffers.length} ` +
        `buffers${kernel.bufferLengths ? " and their lengths" : ""}, ` +
        `${args.metadata.data.length} metadata words, then scalars)`,
    );
  }
  const countAt = count.kind === "dynamic" ? ctx.memory.locate(count.ref) : undefined;
  if (plan === undefined) plans.set(kernel, resolved, block, fn, expected, params.sizes);
  return { launch: kernelLaunch, name, buffers, block, fixed, fn, params, countAt };
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
  readonly #plans = new LaunchPlans();

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
    return deviceChecks(this.#parts, this.#plans, launch);
  }

  /**
   * The refs `launch` may write: those bound to a parameter that is not `const T*` (a ref bound
   * to both kinds counts). Prepares it again: for a launch just enqueued, where a client asks.
   */
  written(launch: KernelLaunch<CudaKernel>): readonly HandleRef[] {
    const { buffers, params: { readOnly } } = this.prepare(launch);
    if (readOnly === undefined || readOnly.length === 0) return buffers;
    return buffers.filter((_, i) => !readOnly.includes(i));
  }

  /**
   * Orders `streamId` after other streams' uses of the launch's refs, then launches; `name` is
   * the launch's name in traces and profiles (a graph's replay: `label/kernel`).
   */
  enqueue(prepared: PreparedLaunch, streamId: StreamId, name?: string): void {
    const { launch: { count }, buffers, params } = prepared;
    const dynamic = count.kind === "dynamic";
    // A dynamic count is copied before the launch: its stream's health is asked first.
    const options = dynamic ? ORDER_QUERIED : ORDER;
    const ordered = this.#parts.streams.order(
      streamId,
      dynamic ? [...buffers, count.ref] : buffers,
      orderOptions(options, params.readOnly),
    );
    // `using` without its per-call disposal stack (this is the path of every launch).
    try {
      launch(this.#parts, prepared, streamId, ordered.stream, name);
    } catch (error) {
      try {
        ordered.finish();
      } catch (finishError) {
        throw new SuppressedError(finishError, error, "finish() failed after the launch failed");
      }
      throw error;
    }
    ordered.finish();
  }
}

/** Launches a prepared launch on `stream`, ordered for it. */
function launch(
  ctx: LaunchParts,
  prepared: PreparedLaunch,
  streamId: StreamId,
  stream: CudaStream,
  name: string = prepared.name,
): void {
  const { launch: { kernel }, block, fixed, fn, params, countAt } = prepared;
  const grid = fixed ??
    (countAt !== undefined ? checkGrid(ctx, readCount(ctx, countAt, stream), name, "count") : []);
  if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return; // nothing to run
  const timed = ctx.profiler.timeLaunch(stream, streamId, name, grid as [number, number, number]);
  const result = ctx.driver.symbols.cuLaunchKernel(
    fn,
    grid[0],
    grid[1],
    grid[2],
    block[0],
    block[1],
    block[2],
    kernel.sharedMemoryBytes ?? 0,
    stream.handle,
    params.pointers,
    null,
  );
  if (result !== CUDA_SUCCESS) {
    // An unhealthy stream (a sticky fault) is found here rather than by a query per launch:
    // the launch returns the fault and nothing ran. The message is built only on failure.
    const health = ctx.driver.symbols.cuStreamQuery(stream.handle);
    if (health !== CUDA_SUCCESS && health !== CUDA_ERROR_NOT_READY) {
      throw unhealthy(streamId, ctx.driver.error(health, `cuStreamQuery(stream ${stream.index})`));
    }
    throw ctx.driver.error(
      result,
      `cuLaunchKernel(${name}, grid [${grid}], block [${block}], stream ${stream.index})`,
    );
  }
  ctx.inFlight.record(name, streamId, stream, grid, block);
  timed?.();
}

/**
 * Reads a dynamic cube count (3 x u32) in stream order and waits for it on the host: the driver
 * takes grids from the host. The wait blocks until the device wakes it (`queue/_wake.ts`);
 * `TIMEOUT` after the timeout (the staging buffer then stays pinned until the copy completes).
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
  let complete: boolean;
  try {
    complete = blockUntilComplete(driver, ctx.owner, event.handle, ctx.timeoutMs);
  } catch (error) {
    pinned.retire(staging, event);
    throw error instanceof CudaDriverError
      ? driver.error(error.result, "cuEventQuery(cube count)")
      : error;
  }
  if (!complete) {
    pinned.retire(staging, event);
    throw new TimeoutError("a dynamic cube count", ctx.timeoutMs, "its copy is not complete");
  }
  const counts = [...new Uint32Array(staging.bytes.buffer, staging.bytes.byteOffset, 3)];
  markComplete(event);
  events.release(event);
  pinned.release(staging);
  return counts;
}

/**
 * `options` with the launch's read-only buffers; made once per frozen list (a signature's own,
 * `_params.ts`), which cannot change.
 */
function orderOptions(
  options: OrderOptions,
  readOnly: readonly number[] | undefined,
): OrderOptions {
  if (readOnly === undefined || readOnly.length === 0) return options;
  if (!Object.isFrozen(readOnly)) return { ...options, readOnly };
  let made = READ_ONLY_ORDERS.get(readOnly);
  if (made === undefined) READ_ONLY_ORDERS.set(readOnly, made = new Map());
  let found = made.get(options);
  if (found === undefined) made.set(options, found = Object.freeze({ ...options, readOnly }));
  return found;
}

const READ_ONLY_ORDERS = new WeakMap<readonly number[], Map<OrderOptions, OrderOptions>>();

function sameSizes(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
