/**
 * The state of one backend stream of the WebGPU encoder (`encoder.ts`), and its counters.
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import type { Isolated } from "./_device_validation.ts";
import type { PassGroup } from "./_tasks.ts";

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
  /** Streams of the dispatches in the open shared encoder (for the safety-net report). */
  readonly streams: Set<StreamId>;
  /** The last stream added to `streams` (most dispatches come from one: no Set lookup). */
  lastStream: StreamId;
  /** The profiling group of `pass` (`null`: untimed). */
  group: PassGroup | null;
  /**
   * Whether the open encoder holds work validated at its submission (anything but graph
   * replays, whose dispatches were validated at capture with the objects the graph holds).
   */
  scoped: boolean;
  done: (() => void)[];
  /** Submissions made by this stream. */
  cursor: number;
}

/** Submission counters. */
export interface EncoderStats {
  submits: number;
  passes: number;
  /** Submissions of unvalidated dispatches (see the module doc). */
  isolated: number;
  /** Submissions parked until a kernel's validation (see the module doc). */
  parked: number;
}

/** A new, empty backend stream. */
export function newStream(): EncoderStream {
  return {
    encoder: undefined,
    pass: undefined,
    pipeline: undefined,
    isolated: undefined,
    group: null,
    scoped: false,
    bindGroup: undefined,
    streams: new Set(),
    lastStream: -1,
    done: [],
    cursor: 0,
  };
}
