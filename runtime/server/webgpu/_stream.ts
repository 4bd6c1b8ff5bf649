/**
 * The scheduler backend of the WebGPU server: a stream is a command encoder being filled.
 *
 * `enqueue` encodes a task at once; consecutive dispatches share ONE compute pass, which is ended
 * by the next copy or by `flush`. `flush` finishes the encoder and submits it, then runs the
 * tasks' `done` callbacks (return info buffers, destroy staging).
 *
 * Device quirk: a command buffer that fails validation at `submit` is dropped whole, with every
 * valid command in it, and WebGPU reports why only asynchronously. The server checks what it can
 * before a task is registered; for the rest, a dispatch is batched with other work only once its
 * pipeline is `ready` and its bind group's *shape* (layout and entry sizes, see
 * `_bind_group_cache.ts`) has been accepted by the device ("proven"). An unproven dispatch is
 * submitted in a command buffer of its own, inside its own validation scope, together with the
 * directly following unproven dispatches of the same shape from the same stream (they are valid
 * or invalid together: what WebGPU checks beyond the server's own checks depends only on the
 * shape). So an invalid launch loses only itself and its like, and its error goes to the stream
 * that launched it (`origin.errors`), naming the kernel and the stream. One accepted submission
 * proves a shape; one rejection lets the server refuse later launches of it synchronously.
 *
 * Held submissions: a kernel with `var<storage, read>` bindings runs as a widened module (see
 * `_reflect.ts`), so its pipeline is valid even when the kernel writes a read-only binding; only
 * the validation of the unwidened module, which arrives asynchronously, says so. A submission
 * holding a dispatch of such a kernel still `pending` validation is therefore held back (finished,
 * not submitted), and so is every later submission, in order, until the kernel settles: then a
 * failed kernel's submission is dropped (its error goes to its stream) and the rest is submitted.
 * Calls that wait for the queue (`mapAsync`, `onSubmittedWorkDone`) wait for {@linkcode
 * EncoderStreams.released} first, and the scheduler keeps the memory of held work pinned.
 *
 * Profiling hook: {@linkcode EncoderStreams.timing} is `null` unless a profiling window or a trace
 * is open, and then the only cost on the dispatch path is that one null check. While it is set,
 * each dispatch asks it which pass group it belongs to: a new group ends the open pass and begins
 * one with the group's timestamp writes (a pass then holds one stream's work, or one kernel).
 *
 * @module
 */

import type { SchedulerStreamBackend } from "../../stream/scheduler.ts";
import { type ComputeError, DriverError } from "../../core/errors.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { CompiledKernel } from "./_pipeline_cache.ts";
import { launchError, LaunchProofs, report, reportCompilation } from "./_proofs.ts";

/** One buffer-to-buffer copy. */
export interface BufferCopy {
  readonly source: GPUBuffer;
  readonly sourceOffset: number;
  readonly destination: GPUBuffer;
  readonly destinationOffset: number;
  readonly size: number;
}

/** A dispatch of a compiled kernel. */
export interface DispatchTask {
  readonly kind: "dispatch";
  readonly kernel: CompiledKernel;
  readonly bindGroup: GPUBindGroup;
  /** Workgroups per axis (ignored when {@linkcode indirect} is set). */
  readonly x: number;
  readonly y: number;
  readonly z: number;
  /**
   * An indirect count: `[x, y, z]` u32 at `offset` in `buffer`, first copied into `scratch`.
   * Quirk: the count cannot be read from its pool page directly, since the page may also be bound
   * as writable storage in the same dispatch, a usage conflict in WebGPU.
   */
  readonly indirect: IndirectCount | undefined;
  /** The backend stream of the stream that launched it: where its deferred error goes. */
  readonly origin: EncoderStream;
  /** The id of that stream, for messages. */
  readonly stream: StreamId;
  /** Runs once the task was submitted (or dropped). */
  readonly done?: () => void;
}

/** Where an indirect dispatch reads its workgroup counts. */
export interface IndirectCount {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly scratch: GPUBuffer;
}

/** Copies encoded in order (checked before registration: they cannot fail at submit). */
export interface CopyTask {
  readonly kind: "copy";
  readonly copies: readonly BufferCopy[];
  readonly done?: () => void;
}

/** A task of the WebGPU scheduler. */
export type GpuTask = DispatchTask | CopyTask;

/** An isolated submission being encoded: unproven dispatches of one shape from one stream. */
interface Isolated {
  readonly task: DispatchTask;
  readonly shape: string;
  launches: number;
}

/** A finished submission held back until the kernel it waits for is validated. */
interface HeldSubmission {
  readonly buffer: GPUCommandBuffer;
  readonly isolated: Isolated | undefined;
  readonly origins: readonly EncoderStream[];
  /** Validation errors of finishing the encoder. */
  readonly finished: Promise<string | undefined>;
  /** `done` callbacks of the tasks submitted with or before it. */
  readonly done: (() => void)[];
}

const RELEASED: Promise<void> = Promise.resolve();

/** A compute pass's profiling identity: dispatches of one group share a pass. */
export interface PassGroup {
  /** Where the pass writes its begin and end timestamps, if it is timed. */
  readonly timestampWrites: GPUComputePassTimestampWrites | undefined;
}

/** The profiler's view of encoding, set only while profiling (see the module doc). */
export interface EncoderTiming {
  /**
   * The pass group of a dispatch of `task`, given the group of the open pass (`undefined` when no
   * pass is open); returning a different group (or `null`, untimed) begins a new pass.
   */
  group(task: DispatchTask, current: PassGroup | null | undefined): PassGroup | null;
  /** A copy task was encoded. */
  copied(task: CopyTask): void;
  /** A command buffer with everything encoded since the last one was submitted. */
  submitted(): void;
}

/** A backend stream: the open encoder and pass, and what to run after submission. */
export interface EncoderStream {
  encoder: GPUCommandEncoder | undefined;
  pass: GPUComputePassEncoder | undefined;
  /** The pipeline last set on `pass`. */
  pipeline: GPUComputePipeline | undefined;
  /** The bind group last set on `pass` with `pipeline`. */
  bindGroup: GPUBindGroup | undefined;
  /** Set while `encoder` holds an isolated submission. */
  isolated: Isolated | undefined;
  /** Origins of the dispatches in the open shared encoder (for the safety-net report). */
  readonly origins: Set<EncoderStream>;
  /** The profiling group of `pass` (`null`: untimed). */
  group: PassGroup | null;
  done: (() => void)[];
  /** Deferred errors of launches made on this stream, reported by its next `sync` or `read`. */
  readonly errors: ComputeError[];
  /** Submissions made by this stream. */
  cursor: number;
}

/** What the backend needs from the server. */
export interface EncoderHooks {
  /** The shape of a bind group: its layout and entry sizes. */
  shape(bindGroup: GPUBindGroup): string;
  /** Runs right before every submission (uploads the launches' uniform bytes). */
  beforeSubmit(): void;
  /**
   * Takes back a dispatch task that was encoded and is referenced nowhere any more (a proven
   * dispatch encoded while no profiling is open), so its object can serve a later launch.
   */
  recycle?(task: DispatchTask): void;
}

/** Submission counters. */
export interface EncoderStats {
  submits: number;
  passes: number;
  /** Submissions of unproven dispatches (see the module doc). */
  isolated: number;
  /** Submissions held back until a kernel's validation (see the module doc). */
  held: number;
}

/** The {@linkcode SchedulerStreamBackend} over one GPU queue. */
export class EncoderStreams implements SchedulerStreamBackend<GpuTask, EncoderStream> {
  readonly #device: GPUDevice;
  readonly #hooks: EncoderHooks;
  readonly #proofs: LaunchProofs;
  readonly #checks = new Set<Promise<void>>();
  readonly #held: HeldSubmission[] = [];
  #released: Promise<void> | undefined;
  readonly stats: EncoderStats = { submits: 0, passes: 0, isolated: 0, held: 0 };
  /** The profiler while a window or trace is open, else `null`. */
  timing: EncoderTiming | null = null;

  constructor(device: GPUDevice, hooks: EncoderHooks) {
    this.#device = device;
    this.#hooks = hooks;
    this.#proofs = new LaunchProofs(hooks.shape);
  }

  createStream(): EncoderStream {
    return {
      encoder: undefined,
      pass: undefined,
      pipeline: undefined,
      isolated: undefined,
      group: null,
      bindGroup: undefined,
      origins: new Set(),
      done: [],
      errors: [],
      cursor: 0,
    };
  }

  /** WebGPU's message when this bind group's shape was already rejected, else `undefined`. */
  rejection(bindGroup: GPUBindGroup): string | undefined {
    return this.#proofs.rejection(bindGroup);
  }

  /** Settles once the validation results of the submissions made so far are recorded. */
  async settled(): Promise<void> {
    if (this.#released !== undefined) await this.#released;
    if (this.#checks.size > 0) await Promise.all([...this.#checks]);
  }

  /** Whether submissions are held back (see the module doc). */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  /** Part of the scheduler backend: what flushed submissions wait for, when they are held. */
  parkedUntil(): Promise<void> | undefined {
    return this.#released;
  }

  /**
   * Settles once no submission made so far is held back: await it before anything that waits for
   * the queue (mapping a buffer, `onSubmittedWorkDone`). Already settled when nothing is held.
   */
  released(): Promise<void> {
    return this.#released ?? RELEASED;
  }

  /** Drops the held submissions (the server is being destroyed). */
  destroy(): void {
    for (const held of this.#held.splice(0)) for (const callback of held.done) callback();
  }

  enqueue(task: GpuTask, stream: EncoderStream): void {
    if (task.done) stream.done.push(task.done);
    if (task.kind === "copy") {
      if (task.copies.length === 0) return;
      if (stream.isolated !== undefined) this.#submit(stream);
      this.#endPass(stream);
      this.#encodeCopies(this.#encoder(stream), task.copies);
      this.timing?.copied(task);
      return;
    }
    const kernel = task.kernel;
    if (kernel.state === "failed") {
      reportCompilation(task.origin.errors, { error: kernel.error!, stream: task.stream });
      return;
    }
    if (kernel.state === "ready" && this.#proofs.isProven(task.bindGroup)) {
      if (stream.isolated !== undefined) this.#submit(stream);
      stream.origins.add(task.origin);
      this.#dispatch(stream, task);
      // Encoded, and kept by nothing here: no isolated submission, no profiling window.
      if (this.timing === null) this.#hooks.recycle?.(task);
      return;
    }
    const shape = this.#proofs.shape(task.bindGroup);
    const open = stream.isolated;
    if (open?.shape === shape && open.task.origin === task.origin) {
      open.launches++;
      this.#dispatch(stream, task);
      return;
    }
    if (stream.encoder !== undefined) this.#submit(stream); // what precedes, shared or not
    stream.isolated = { task, shape, launches: 1 };
    this.#dispatch(stream, task);
  }

  flush(stream: EncoderStream): void {
    if (stream.encoder !== undefined) this.#submit(stream);
    const done = stream.done;
    if (done.length === 0) return;
    stream.done = [];
    // What the held submissions use is given back once they are submitted (or dropped).
    const last = this.#held.at(-1);
    if (last !== undefined) last.done.push(...done);
    else for (const callback of done) callback();
  }

  /** Ends the pass, finishes and submits the open encoder inside a validation scope. */
  #submit(stream: EncoderStream): void {
    const kernel = stream.isolated?.task.kernel;
    const validating = kernel?.state === "pending" && kernel.reflection.hasReadOnlyStorage;
    if (validating || this.#held.length > 0) return this.#hold(stream);
    this.#hooks.beforeSubmit(); // outside the scope: its errors are not this submission's
    this.#device.pushErrorScope("validation");
    this.#endPass(stream);
    const encoder = stream.encoder!;
    const isolated = stream.isolated;
    const origins = isolated === undefined && stream.origins.size > 0 ? [...stream.origins] : [];
    stream.encoder = undefined;
    stream.isolated = undefined;
    stream.origins.clear();
    this.#device.queue.submit([encoder.finish()]);
    this.stats.submits++;
    if (isolated !== undefined) this.stats.isolated++;
    stream.cursor++;
    this.timing?.submitted();
    const check: Promise<void> = this.#device.popErrorScope().then(
      (error) => this.#record(isolated, origins, error?.message),
      (cause) => this.#record(isolated, origins, String(cause)),
    ).finally(() => this.#checks.delete(check));
    this.#checks.add(check);
  }

  /**
   * Finishes the open encoder without submitting it; it is submitted (or dropped) in order once
   * the kernels it waits for are validated. Uniform bytes are uploaded now: the arena never
   * rewrites a range before its launches are released, and their `done` waits for the release.
   */
  #hold(stream: EncoderStream): void {
    this.#hooks.beforeSubmit();
    this.#device.pushErrorScope("validation");
    this.#endPass(stream);
    const encoder = stream.encoder!;
    const isolated = stream.isolated;
    const origins = isolated === undefined && stream.origins.size > 0 ? [...stream.origins] : [];
    stream.encoder = undefined;
    stream.isolated = undefined;
    stream.origins.clear();
    const buffer = encoder.finish();
    const finished = this.#device.popErrorScope().then((e) => e?.message, String);
    this.#held.push({ buffer, isolated, origins, finished, done: [] });
    stream.cursor++;
    this.stats.held++;
    this.timing?.submitted();
    this.#released ??= this.#release();
  }

  /** Submits the held submissions in order, each once the kernel it waits for settled. */
  async #release(): Promise<void> {
    while (this.#held.length > 0) {
      const held = this.#held[0];
      await held.isolated?.task.kernel.settled;
      if (this.#held[0] !== held) continue; // dropped by destroy meanwhile
      this.#held.shift();
      const kernel = held.isolated?.task.kernel;
      if (kernel?.state === "failed") {
        // Never run: a widened kernel whose unwidened module is invalid (it writes read-only).
        reportCompilation(held.isolated!.task.origin.errors, {
          error: kernel.error!,
          stream: held.isolated!.task.stream,
        });
      } else {
        this.#device.pushErrorScope("validation");
        this.#device.queue.submit([held.buffer]);
        this.stats.submits++;
        if (held.isolated !== undefined) this.stats.isolated++;
        const submitted = this.#device.popErrorScope();
        const check: Promise<void> = Promise.all([held.finished, submitted]).then(
          ([a, b]) => this.#record(held.isolated, held.origins, a ?? b?.message),
          (cause) => this.#record(held.isolated, held.origins, String(cause)),
        ).finally(() => this.#checks.delete(check));
        this.#checks.add(check);
      }
      for (const callback of held.done) callback();
    }
    this.#released = undefined;
  }

  async #record(
    isolated: Isolated | undefined,
    origins: readonly EncoderStream[],
    message: string | undefined,
  ): Promise<void> {
    if (isolated === undefined) {
      // Safety net: shared submissions hold only proven dispatches and checked copies.
      if (message === undefined) return;
      const error = new DriverError(`A WebGPU submission was rejected: ${message}`);
      for (const origin of origins) report(origin.errors, error);
      return;
    }
    const { task, shape, launches } = isolated;
    if (message === undefined) {
      this.#proofs.prove(shape, task.bindGroup);
      return;
    }
    await task.kernel.settled;
    const errors = task.origin.errors;
    if (task.kernel.error !== undefined) {
      reportCompilation(errors, { error: task.kernel.error, stream: task.stream });
      return;
    }
    this.#proofs.reject(shape, message.trim());
    const times = launches === 1 ? "" : ` (${launches} launches)`;
    report(errors, launchError(task.kernel.reflection.name, task.stream, message.trim(), times));
  }

  #dispatch(stream: EncoderStream, task: DispatchTask): void {
    const indirect = task.indirect;
    if (indirect !== undefined) {
      this.#endPass(stream);
      this.#encoder(stream).copyBufferToBuffer(
        indirect.buffer,
        indirect.offset,
        indirect.scratch,
        0,
        12,
      );
    }
    const timing = this.timing;
    if (timing !== null) this.#timedPass(stream, task, timing);
    else if (stream.pass === undefined) {
      stream.pass = this.#encoder(stream).beginComputePass();
      this.stats.passes++;
    }
    const pass = stream.pass!;
    // Consecutive dispatches of one kernel share the pipeline state of the pass.
    if (stream.pipeline !== task.kernel.pipeline) {
      pass.setPipeline(task.kernel.pipeline);
      stream.pipeline = task.kernel.pipeline;
      stream.bindGroup = undefined;
    }
    // Bind-group state persists across dispatches of a pass: set only what changes.
    if (stream.bindGroup !== task.bindGroup) {
      pass.setBindGroup(0, task.bindGroup);
      stream.bindGroup = task.bindGroup;
    }
    if (indirect === undefined) pass.dispatchWorkgroups(task.x, task.y, task.z);
    else pass.dispatchWorkgroupsIndirect(indirect.scratch, 0);
  }

  #encodeCopies(encoder: GPUCommandEncoder, copies: readonly BufferCopy[]): void {
    for (const copy of copies) {
      encoder.copyBufferToBuffer(
        copy.source,
        copy.sourceOffset,
        copy.destination,
        copy.destinationOffset,
        copy.size,
      );
    }
  }

  #timedPass(stream: EncoderStream, task: DispatchTask, timing: EncoderTiming): void {
    const group = timing.group(task, stream.pass === undefined ? undefined : stream.group);
    if (stream.pass !== undefined && group === stream.group) return;
    this.#endPass(stream);
    stream.pass = this.#encoder(stream).beginComputePass({
      timestampWrites: group?.timestampWrites,
    });
    stream.group = group;
    this.stats.passes++;
  }

  #encoder(stream: EncoderStream): GPUCommandEncoder {
    return stream.encoder ??= this.#device.createCommandEncoder();
  }

  #endPass(stream: EncoderStream): void {
    stream.pass?.end();
    stream.pass = undefined;
    stream.pipeline = undefined;
    stream.bindGroup = undefined;
    stream.group = null;
  }
}
