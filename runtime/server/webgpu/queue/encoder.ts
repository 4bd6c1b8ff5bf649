/**
 * The scheduler backend of the WebGPU server: a stream is a command encoder being filled.
 * `enqueue` encodes a task at once (consecutive dispatches share one compute pass, ended by the
 * next copy or by `flush`); `flush` finishes the encoder and submits it. The encoder receives
 * what it works with from their owners: the launches' parameter chunks (uploaded before every
 * submission), the task pool (encoded tasks go back to it), the bind-group cache (whose shapes
 * it validates).
 *
 * Validation (the device quirk: a command buffer that fails validation at `submit` is dropped
 * whole, and WebGPU says why only asynchronously): a dispatch is batched with other work only
 * once its pipeline is `ready` and its bind group's shape was accepted ("validated"); otherwise
 * it is submitted in a command buffer of its own with the directly following unvalidated
 * dispatches of the same shape from the same stream, inside a validation scope. Its error is
 * recorded in {@linkcode EncoderStreams.errors} on the stream that launched it. Submissions
 * holding a widened kernel (read-only storage, see `compile/_reflect.ts`) still pending validation are
 * parked, with every later one, until it settles. The full rules are in docs/architecture.md
 * ("WebGPU submissions"). A submission of graph replays only is made without a scope: their
 * dispatches and copies were validated at capture (`launch/_graph.ts`) with the pipelines, bind
 * groups and buffers the graph holds until its replays were submitted, so none can fail.
 *
 * Profiling hook: {@linkcode EncoderStreams.timing} is `null` unless a profiling window or a
 * trace is open; then each dispatch asks it which pass group it belongs to.
 *
 * @module
 */

import type { SchedulerStreamBackend } from "../../../stream/scheduler_backend.ts";
import type { StreamErrors } from "../../../stream/stream_errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { BindGroupCache } from "../launch/_bind_group_cache.ts";
import type { ParamChunks } from "../launch/_param_chunks.ts";
import {
  type DispatchTask,
  encodeCopies,
  type EncodedDispatch,
  type EncoderTiming,
  type GpuTask,
  type Parked,
  type PooledTask,
  type TaskPool,
} from "./_tasks.ts";
import { encodeAgain, type Replan } from "./_encode_again.ts";
import { type EncoderStats, type EncoderStream, newStream } from "./_encoder_stream.ts";
export type { EncoderStats, EncoderStream };
import { type Bound, type Isolated, LaunchValidation } from "./_device_validation.ts";
import { encodeReplay, submitReplays } from "./_graph_runs.ts";

const SETTLED: Promise<void> = Promise.resolve();
const NO_STREAMS: readonly StreamId[] = Object.freeze([]);

/** What the encoder receives from the owners of what it works with. */
export interface EncoderParts {
  /** The launches' parameter chunks, uploaded before every submission (the launcher's). */
  readonly chunks: ParamChunks;
  /** Where encoded dispatch tasks go back to (the launcher's). */
  readonly tasks: TaskPool;
  /** The cache that made the launches' bind groups (their shapes are validated here). */
  readonly bindGroups: BindGroupCache;
  /** Streams of the server (errors are recorded by pool index). */
  readonly maxStreams: number;
  /**
   * Makes a task's bind groups again for its kernel's declared module (the launcher's).
   * @default none (no task needs it)
   */
  readonly replan?: Replan;
}

/** The {@linkcode SchedulerStreamBackend} over one GPU queue. */
export class EncoderStreams implements SchedulerStreamBackend<GpuTask, EncoderStream> {
  readonly #device: GPUDevice;
  readonly #chunks: ParamChunks;
  readonly #tasks: TaskPool;
  readonly #validation: LaunchValidation;
  readonly #replan: Replan;
  readonly #parked: Parked[] = [];
  #released: Promise<void> | undefined;
  readonly stats: EncoderStats = { submits: 0, passes: 0, isolated: 0, parked: 0 };
  /** The profiler while a window or trace is open, else `null`. */
  timing: EncoderTiming | null = null;

  constructor(device: GPUDevice, parts: EncoderParts) {
    this.#device = device;
    this.#chunks = parts.chunks;
    this.#tasks = parts.tasks;
    this.#replan = parts.replan ?? (() => undefined);
    this.#validation = new LaunchValidation(parts.bindGroups, parts.maxStreams);
  }

  createStream(): EncoderStream {
    return newStream();
  }

  /** Errors of launches WebGPU rejected, on the streams that launched them. */
  get errors(): StreamErrors {
    return this.#validation.errors;
  }

  /** WebGPU's message when this launch's bind-group shape was already rejected, else `undefined`. */
  rejection(task: Bound): string | undefined {
    return this.#validation.shapes.rejection(task);
  }

  /**
   * Settles once the validation results of `stream`'s submissions made so far are recorded
   * (other streams' are not waited for; all streams' without `stream`), with the first error.
   */
  async validated(stream?: StreamId): Promise<unknown> {
    if (this.#released !== undefined) await this.#released;
    return await this.#validation.validated(stream);
  }

  /** Whether submissions are parked (see the module doc). */
  get parking(): boolean {
    return this.#parked.length > 0;
  }

  /** Part of the scheduler backend: what flushed submissions wait for, when they are parked. */
  parkedUntil(): Promise<void> | undefined {
    return this.#released;
  }

  /**
   * Settles once no submission made so far is parked: await it before anything that waits for
   * the queue (mapping a buffer, `onSubmittedWorkDone`). Already settled when nothing is parked.
   */
  released(): Promise<void> {
    return this.#released ?? SETTLED;
  }

  /** Drops the parked submissions (the server is being destroyed). */
  destroy(): void {
    for (const parked of this.#parked.splice(0)) {
      parked.timed?.(false);
      for (const callback of parked.done) callback();
    }
  }

  enqueue(task: GpuTask, stream: EncoderStream): void {
    if (task.done) stream.done.push(task.done);
    if (task.kind === "copy") {
      if (task.copies.length === 0 && task.encode === undefined) return;
      if (stream.isolated !== undefined) this.#submit(stream);
      this.#endPass(stream);
      stream.scoped = true;
      encodeCopies(this.#encoder(stream), task.copies);
      task.encode?.(this.#encoder(stream));
      this.timing?.copied(task);
      return;
    }
    if (task.kind === "graph") {
      // Validated once at capture: encoded like validated dispatches, in the open pass.
      if (stream.isolated !== undefined) this.#submit(stream);
      const from = task.stream;
      if (stream.lastStream !== from) {
        stream.streams.add(from); // named by the safety net of a shared submission
        stream.lastStream = from;
      }
      // Untimed: the runs prepared at capture, in a tight loop (`_graph_runs.ts`).
      if (task.runs !== undefined && this.timing === null) {
        return encodeReplay(this.#device, stream, task.runs, this.stats);
      }
      const dispatches = task.dispatches;
      for (let i = 0; i < dispatches.length; i++) this.#dispatch(stream, dispatches[i]);
      return;
    }
    const kernel = task.kernel;
    if (task.replan !== undefined && kernel.state !== "pending") {
      const release = this.#replan(task as PooledTask); // prepared while its kernel was pending
      if (release !== undefined) stream.done.push(release);
    }
    if (kernel.state === "failed") return void this.#validation.failedKernel(task);
    if (kernel.state === "ready" && this.#validation.shapes.isValid(task)) {
      if (stream.isolated !== undefined) this.#submit(stream);
      stream.scoped = true;
      if (stream.lastStream !== task.stream) {
        stream.streams.add(task.stream);
        stream.lastStream = task.stream;
      }
      this.#dispatch(stream, task);
      // Encoded, and kept by nothing here: no isolated submission, no profiling window.
      if (this.timing === null) this.#tasks.recycle(task);
      return;
    }
    const shape = this.#validation.shapes.shape(task);
    const open = stream.isolated;
    if (open?.shape === shape && open.task.stream === task.stream) {
      open.launches++;
      this.#dispatch(stream, task);
      open.tasks?.push({ task, group: stream.group });
      return;
    }
    if (stream.encoder !== undefined) this.#submit(stream); // what precedes, shared or not
    const tasks: EncodedDispatch[] | undefined = task.replan === undefined ? undefined : [];
    stream.isolated = { task, shape, launches: 1, tasks };
    this.#dispatch(stream, task);
    tasks?.push({ task, group: stream.group });
  }

  flush(stream: EncoderStream): void {
    if (stream.encoder !== undefined) this.#submit(stream);
    const done = stream.done;
    if (done.length === 0) return;
    stream.done = [];
    // What the parked submissions use is given back once they are submitted (or dropped).
    const last = this.#parked.at(-1);
    if (last !== undefined) last.done.push(...done);
    else for (const callback of done) callback();
  }

  /** Ends the pass, finishes and submits the open encoder inside a validation scope. */
  #submit(stream: EncoderStream): void {
    if (!stream.scoped && stream.isolated === undefined && this.#parked.length === 0) {
      // Graph replays only: nothing here can fail validation (module doc), no scope to watch.
      this.#chunks.upload();
      submitReplays(this.#device.queue, stream);
      this.stats.submits++;
      this.timing?.submitted();
      return;
    }
    const kernel = stream.isolated?.task.kernel;
    const validating = kernel?.state === "pending" && kernel.reflection.hasReadOnlyStorage;
    if (validating || this.#parked.length > 0) return this.#park(stream);
    this.#chunks.upload(); // outside the scope: its errors are not this submission's
    this.#device.pushErrorScope("validation");
    const { encoder, isolated, streams } = this.#take(stream);
    const again = this.#again(isolated);
    this.#device.queue.submit([again?.buffer ?? encoder.finish()]);
    again?.release();
    this.stats.submits++;
    if (isolated !== undefined) this.stats.isolated++;
    const unrun = this.timing?.submitted();
    const message = this.#device.popErrorScope().then((error) => error?.message, String);
    this.#validation.track(isolated, streams, message, unrun);
  }

  /**
   * Finishes the open encoder without submitting it; it is submitted (or dropped) in order once
   * the kernels it waits for are validated. Parameters are uploaded now: the chunks never rewrite
   * a range before its launches are released, and their `done` waits for the release.
   */
  #park(stream: EncoderStream): void {
    this.#chunks.upload();
    this.#device.pushErrorScope("validation");
    const { encoder, isolated, streams } = this.#take(stream);
    const buffer = encoder.finish();
    const finished = this.#device.popErrorScope().then((e) => e?.message, String);
    // Submitted (or dropped) later: its tasks are stamped then, not now.
    const timed = this.timing?.parked();
    this.#parked.push({ buffer, isolated, streams, finished, done: [], timed });
    this.stats.parked++;
    this.#released ??= this.#release();
  }

  /**
   * Ends the pass and takes the stream's encoder with what it holds (the stream starts over).
   */
  #take(stream: EncoderStream) {
    this.#endPass(stream);
    const encoder = stream.encoder!;
    const isolated = stream.isolated;
    const streams = isolated === undefined && stream.streams.size > 0
      ? [...stream.streams]
      : NO_STREAMS;
    stream.encoder = undefined;
    stream.isolated = undefined;
    stream.scoped = false;
    stream.streams.clear();
    stream.lastStream = -1;
    stream.cursor++;
    return { encoder, isolated, streams };
  }

  /** Submits the parked submissions in order, each once the kernel it waits for settled. */
  async #release(): Promise<void> {
    while (this.#parked.length > 0) {
      const parked = this.#parked[0];
      await parked.isolated?.task.kernel.settled;
      if (this.#parked[0] !== parked) continue; // dropped by destroy meanwhile
      this.#parked.shift();
      const task = parked.isolated?.task;
      if (task?.kernel.state === "failed") {
        // Never run: a widened kernel whose unwidened module is invalid (it writes read-only).
        parked.timed?.(false);
        this.#validation.failedKernel(task);
      } else {
        this.#device.pushErrorScope("validation");
        const again = this.#again(parked.isolated);
        this.#device.queue.submit([again?.buffer ?? parked.buffer]);
        again?.release();
        const unrun = parked.timed?.(true);
        this.stats.submits++;
        if (parked.isolated !== undefined) this.stats.isolated++;
        const submitted = this.#device.popErrorScope();
        const finished = again === undefined ? parked.finished : undefined;
        const message = Promise.all([finished, submitted]).then(
          ([a, b]) => a ?? b?.message,
          String,
        );
        this.#validation.track(parked.isolated, parked.streams, message, unrun);
      }
      for (const callback of parked.done) callback();
    }
    this.#released = undefined;
  }

  /**
   * The isolated dispatches encoded again where their kernel settled on its declared module after
   * they were encoded (`_encode_again.ts`), else `undefined`.
   */
  #again(isolated: Isolated | undefined) {
    if (isolated?.tasks === undefined || isolated.task.kernel.fallback === undefined) return;
    return encodeAgain(this.#device, isolated.tasks, this.#replan);
  }

  #dispatch(stream: EncoderStream, task: DispatchTask): void {
    if (task.copies !== undefined) {
      this.#endPass(stream); // read-only bindings copied first (`launch/_read_only_copies.ts`)
      encodeCopies(this.#encoder(stream), task.copies);
    }
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
    const pass = timing === null ? this.#openPass(stream) : stream.pass!;
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
    const groups = task.groups;
    if (groups !== undefined) {
      for (let g = 0; g < groups.length; g++) pass.setBindGroup(g + 1, groups[g]);
    }
    if (indirect === undefined) pass.dispatchWorkgroups(task.x, task.y, task.z);
    else pass.dispatchWorkgroupsIndirect(indirect.scratch, 0);
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

  /** The open pass (untimed), begun if there is none. */
  #openPass(stream: EncoderStream): GPUComputePassEncoder {
    if (stream.pass !== undefined) return stream.pass;
    this.stats.passes++;
    return stream.pass = this.#encoder(stream).beginComputePass();
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
