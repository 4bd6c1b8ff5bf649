/**
 * The scheduler backend of the WebGPU server: a stream is a command encoder being filled.
 *
 * `enqueue` encodes a task at once; consecutive dispatches share ONE compute pass, which is ended
 * by the next copy or by `flush`. `flush` finishes the encoder and submits it (one submission per
 * executed stream), then runs the tasks' `done` callbacks (return info buffers, destroy staging).
 *
 * A dispatch whose pipeline is still `pending` (its validation scope has not popped yet) is
 * submitted in a command buffer of its own inside an error scope: if the pipeline is invalid only
 * that dispatch is lost, and the error is reported through `onError`. A dispatch of a `failed`
 * pipeline is skipped. Every submission runs inside a validation scope so that no error goes
 * unreported.
 *
 * @module
 */

import type { SchedulerStreamBackend } from "../../stream/scheduler.ts";
import { type ComputeError, RuntimeError } from "../../core/errors.ts";
import type { CompiledKernel } from "./_pipeline_cache.ts";

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
  /**
   * Static counts, or an indirect count: `[x, y, z]` u32 at `offset` in `buffer`, first copied
   * into `scratch`. Quirk: the count cannot be read from its pool page directly, since the page
   * may also be bound as writable storage in the same dispatch, a usage conflict in WebGPU.
   */
  readonly count: readonly [number, number, number] | {
    readonly buffer: GPUBuffer;
    readonly offset: number;
    readonly scratch: GPUBuffer;
  };
  /** Runs once the task was submitted (or dropped). */
  readonly done?: () => void;
}

/** Copies encoded in order. */
export interface CopyTask {
  readonly kind: "copy";
  readonly copies: readonly BufferCopy[];
  readonly done?: () => void;
}

/** A task of the WebGPU scheduler. */
export type GpuTask = DispatchTask | CopyTask;

/** A backend stream: the open encoder and pass, and what to run after submission. */
export interface EncoderStream {
  encoder: GPUCommandEncoder | undefined;
  pass: GPUComputePassEncoder | undefined;
  /** The pipeline last set on `pass`. */
  pipeline: GPUComputePipeline | undefined;
  done: (() => void)[];
  /** Submissions made by this stream. */
  cursor: number;
}

/** What the backend needs from the server. */
export interface EncoderHooks {
  /** Timestamp writes for a new compute pass while a profiling window is open. */
  passTimestamps(): GPUComputePassTimestampWrites | undefined;
  /** A deferred error (failed pipeline, rejected submission). */
  onError(error: ComputeError): void;
}

/** Submission counters. */
export interface EncoderStats {
  submits: number;
  passes: number;
}

/** The {@linkcode SchedulerStreamBackend} over one GPU queue. */
export class EncoderStreams implements SchedulerStreamBackend<GpuTask, EncoderStream> {
  readonly #device: GPUDevice;
  readonly #hooks: EncoderHooks;
  readonly stats: EncoderStats = { submits: 0, passes: 0 };

  constructor(device: GPUDevice, hooks: EncoderHooks) {
    this.#device = device;
    this.#hooks = hooks;
  }

  createStream(): EncoderStream {
    return { encoder: undefined, pass: undefined, pipeline: undefined, done: [], cursor: 0 };
  }

  enqueue(task: GpuTask, stream: EncoderStream): void {
    if (task.done) stream.done.push(task.done);
    if (task.kind === "copy") {
      this.#endPass(stream);
      const encoder = this.#encoder(stream);
      for (const copy of task.copies) {
        encoder.copyBufferToBuffer(
          copy.source,
          copy.sourceOffset,
          copy.destination,
          copy.destinationOffset,
          copy.size,
        );
      }
      return;
    }
    const { state } = task.kernel;
    if (state === "failed") return;
    if (state === "pending") {
      // Isolate: submit what precedes, then this dispatch alone.
      this.flush(stream, false);
      this.#dispatch(stream, task);
      this.flush(stream, false, task.kernel);
      return;
    }
    this.#dispatch(stream, task);
  }

  flush(stream: EncoderStream, runDone = true, isolated?: CompiledKernel): void {
    this.#endPass(stream);
    const encoder = stream.encoder;
    stream.encoder = undefined;
    if (encoder !== undefined) {
      this.#device.pushErrorScope("validation");
      this.#device.queue.submit([encoder.finish()]);
      this.stats.submits++;
      stream.cursor++;
      this.#device.popErrorScope().then((error) => {
        if (error === null) return;
        // An isolated dispatch of a failed pipeline is reported by the pipeline's own error.
        if (isolated !== undefined && isolated.state !== "ready") return;
        this.#hooks.onError(
          new RuntimeError("DRIVER", `A WebGPU submission was rejected: ${error.message}`),
        );
      }, () => {});
    }
    if (!runDone) return;
    const done = stream.done;
    stream.done = [];
    for (const callback of done) callback();
  }

  #dispatch(stream: EncoderStream, task: DispatchTask): void {
    if (!Array.isArray(task.count)) {
      const { buffer, offset, scratch } = task.count as Exclude<
        DispatchTask["count"],
        readonly number[]
      >;
      this.#endPass(stream);
      this.#encoder(stream).copyBufferToBuffer(buffer, offset, scratch, 0, 12);
    }
    if (stream.pass === undefined) {
      stream.pass = this.#encoder(stream).beginComputePass({
        timestampWrites: this.#hooks.passTimestamps(),
      });
      this.stats.passes++;
    }
    const pass = stream.pass;
    // Consecutive dispatches of one kernel share the pipeline state of the pass.
    if (stream.pipeline !== task.kernel.pipeline) {
      pass.setPipeline(task.kernel.pipeline);
      stream.pipeline = task.kernel.pipeline;
    }
    pass.setBindGroup(0, task.bindGroup);
    if (Array.isArray(task.count)) {
      const [x, y, z] = task.count as readonly [number, number, number];
      pass.dispatchWorkgroups(x, y, z);
    } else {
      const indirect = task.count as { scratch: GPUBuffer };
      pass.dispatchWorkgroupsIndirect(indirect.scratch, 0);
    }
  }

  #encoder(stream: EncoderStream): GPUCommandEncoder {
    return stream.encoder ??= this.#device.createCommandEncoder();
  }

  #endPass(stream: EncoderStream): void {
    stream.pass?.end();
    stream.pass = undefined;
    stream.pipeline = undefined;
  }
}
