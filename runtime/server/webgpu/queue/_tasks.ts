/**
 * The tasks of the WebGPU scheduler (what `execute`, `write` and `read` register, what the
 * encoder encodes) and the pool that recycles dispatch tasks.
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { CompiledKernel } from "../compile/pipeline_cache.ts";
import type { GraphRun } from "./_graph_runs.ts";
import type { Isolated } from "./_device_validation.ts";

/** One buffer-to-buffer copy. */
export interface BufferCopy {
  readonly source: GPUBuffer;
  readonly sourceOffset: number;
  readonly destination: GPUBuffer;
  readonly destinationOffset: number;
  readonly size: number;
}

/** Encodes `copies` in order. */
export function encodeCopies(encoder: GPUCommandEncoder, copies: readonly BufferCopy[]): void {
  for (const copy of copies) {
    const { source, sourceOffset, destination, destinationOffset, size } = copy;
    encoder.copyBufferToBuffer(source, sourceOffset, destination, destinationOffset, size);
  }
}

/** Where an indirect dispatch reads its workgroup counts. */
export interface IndirectCount {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  /**
   * The count is first copied here: it cannot be read from its pool page directly, since the
   * page may also be bound as writable storage in the same dispatch, a usage conflict in WebGPU.
   */
  readonly scratch: GPUBuffer;
}

/** A dispatch of a compiled kernel. */
export interface DispatchTask {
  readonly kind: "dispatch";
  readonly kernel: CompiledKernel;
  readonly bindGroup: GPUBindGroup;
  /** The bind groups of groups 1 and up, or `undefined` when the kernel has group 0 only. */
  readonly groups: readonly GPUBindGroup[] | undefined;
  /** Workgroups per axis (ignored when {@linkcode indirect} is set). */
  readonly x: number;
  readonly y: number;
  readonly z: number;
  /** An indirect count, if any. */
  readonly indirect: IndirectCount | undefined;
  /**
   * Copies encoded before the dispatch: read-only bindings of a kernel that runs its declared
   * module (`compile/_settle.ts`) that share a `GPUBuffer` with a writable binding, copied into
   * the scratch buffers bound instead (`launch/_read_only_copies.ts`).
   */
  readonly copies?: readonly BufferCopy[] | undefined;
  /**
   * The bind-group entries of a launch prepared while its kernel (with read-only storage) was
   * pending: its bind groups are made again if the kernel settles on its declared module.
   */
  readonly replan?: readonly GPUBindGroupEntry[] | undefined;
  /** The stream that launched it: its errors are recorded there. */
  readonly stream: StreamId;
  /** The refs the scheduler orders and pins for it (buffers, an indirect count). */
  readonly refs: readonly HandleRef[];
  /** Those of {@linkcode refs} it only reads (declared `read`, an indirect count), or none. */
  readonly reads: readonly HandleRef[] | undefined;
  /** Runs once the task was submitted (or dropped). */
  readonly done?: () => void;
}

/** Copies encoded in order (checked before registration: they cannot fail at submit). */
export interface CopyTask {
  readonly kind: "copy";
  readonly copies: readonly BufferCopy[];
  /** Commands encoded after the copies (texture copies, `memory/textures.ts`). */
  readonly encode?: (encoder: GPUCommandEncoder) => void;
  readonly done?: () => void;
}

/**
 * A replay of a captured graph: its dispatches, prepared once at capture (pipelines, bind groups,
 * counts), encoded in order in one pass where they allow (`launch/_graph.ts`).
 */
export interface GraphTask {
  readonly kind: "graph";
  readonly dispatches: readonly DispatchTask[];
  /** The dispatches as runs (`_graph_runs.ts`), or `undefined` when one is indirect. */
  readonly runs: readonly GraphRun[] | undefined;
  /** The stream the dispatches were launched on (the capture's). */
  readonly stream: StreamId;
  readonly done?: () => void;
}

/** A task of the WebGPU scheduler. */
export type GpuTask = DispatchTask | CopyTask | GraphTask;

/**
 * A copy task with nothing to copy: registered by `getResource` so that the scheduler orders and
 * submits the streams the ref depends on, and encoded as nothing.
 */
export const ORDER_ONLY: CopyTask = Object.freeze({ kind: "copy", copies: Object.freeze([]) });

/** A dispatch task as the launcher fills it. */
export type PooledTask = { -readonly [P in keyof DispatchTask]: DispatchTask[P] } & {
  /** Whether the pool may take it back once encoded (never a task a profiler noted). */
  pooled: boolean;
  /** The task's own storage for {@linkcode DispatchTask.reads}, reused with the task. */
  readonly readStore: HandleRef[];
};

/** Most encoded tasks kept for reuse. */
const MAX_FREE_TASKS = 1024;

/**
 * Dispatch tasks for reuse: the launcher takes one per launch, the encoder gives back those it
 * encoded and nothing else references (no parked submission, no profiling window).
 */
export class TaskPool {
  readonly #free: PooledTask[] = [];

  /** A task to fill: a recycled one, or a new one. */
  take(): PooledTask {
    const recycled = this.#free.pop();
    if (recycled !== undefined) {
      recycled.pooled = true;
      return recycled;
    }
    return {
      kind: "dispatch",
      kernel: undefined!,
      bindGroup: undefined!,
      groups: undefined,
      x: 1,
      y: 1,
      z: 1,
      indirect: undefined,
      copies: undefined,
      replan: undefined,
      stream: 0,
      refs: [],
      reads: undefined,
      readStore: [],
      done: undefined,
      pooled: true,
    };
  }

  /** Keeps a task out of the pool for good (a profiler keeps it in its maps). */
  keep(task: DispatchTask): void {
    (task as PooledTask).pooled = false;
  }

  /** Takes back an encoded task that nothing references any more (pooled ones only, once). */
  recycle(task: DispatchTask): void {
    const pooled = task as PooledTask;
    if (!pooled.pooled || this.#free.length >= MAX_FREE_TASKS) return;
    pooled.pooled = false; // once: a task recycled twice would serve two launches
    pooled.done = undefined;
    pooled.indirect = undefined;
    pooled.copies = pooled.replan = undefined;
    pooled.refs = [];
    pooled.reads = undefined;
    pooled.readStore.length = 0;
    this.#free.push(pooled);
  }
}

/** A compute pass's profiling identity: dispatches of one group share a pass. */
export interface PassGroup {
  /** Where the pass writes its begin and end timestamps, if it is timed. */
  readonly timestampWrites: GPUComputePassTimestampWrites | undefined;
}

/** A dispatch as it was encoded: the pass group it was timed in (`null`: untimed). */
export interface EncodedDispatch {
  readonly task: DispatchTask;
  readonly group: PassGroup | null;
}

/** The profiler's view of encoding, set on the encoder only while profiling. */
export interface EncoderTiming {
  /**
   * The pass group of a dispatch of `task`, given the group of the open pass (`undefined` when no
   * pass is open); returning a different group (or `null`, untimed) begins a new pass.
   */
  group(task: DispatchTask, current: PassGroup | null | undefined): PassGroup | null;
  /** A copy task was encoded. */
  copied(task: CopyTask): void;
  /**
   * A command buffer with everything encoded since the last one was submitted. Returns what to
   * call if WebGPU rejects it (its tasks never ran, and a trace says so), or `undefined`.
   */
  submitted(): Unrun | undefined;
  /**
   * A command buffer with everything encoded since the last one was finished and parked: call
   * the returned function once it is submitted (`true`) or dropped (`false`; its tasks never
   * ran, and a trace says so). `undefined`: nothing to stamp.
   */
  parked(): ((submitted: boolean) => Unrun | undefined) | undefined;
}

/** Marks the tasks of a submission that WebGPU rejected as never run (`EncoderTiming`). */
export type Unrun = () => void;

/** A finished submission parked until the kernel it waits for is validated. */
export interface Parked {
  readonly buffer: GPUCommandBuffer;
  readonly isolated: Isolated | undefined;
  /** The streams of the dispatches of a shared submission. */
  readonly streams: readonly StreamId[];
  /** Validation errors of finishing the encoder. */
  readonly finished: Promise<string | undefined>;
  /** `done` callbacks of the tasks submitted with or before it. */
  readonly done: (() => void)[];
  /** Stamps its traced tasks once it is submitted or dropped (`EncoderTiming.parked`). */
  readonly timed: ((submitted: boolean) => Unrun | undefined) | undefined;
}
