/**
 * A captured graph's dispatches as runs, made once at capture: consecutive dispatches that share
 * their pipeline and bind groups form one run, encoded as one `setPipeline`/`setBindGroup` and
 * its `dispatchWorkgroups` calls from a flat array of counts, equal consecutive counts stored once
 * with their repeat (a replay reads a few numbers, not three per dispatch: the array is cold by
 * then, like the rest of the path, see docs/benchmarks.md "Launch graphs"). A replay encodes them in a tight
 * loop over objects prepared at capture, with no per-dispatch checks (the encoder's general path
 * is for launches, whose state changes between dispatches).
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import type { DispatchTask, PassGroup } from "./_tasks.ts";

/** Consecutive dispatches of one pipeline and one set of bind groups. */
export interface GraphRun {
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  /** The bind groups of groups 1 and up, or `undefined`. */
  readonly groups: readonly GPUBindGroup[] | undefined;
  /** Workgroup counts, `x, y, z, repeat` per group of consecutive equal dispatches. */
  readonly counts: readonly number[];
}

/** The pass state the encoder keeps: what was set last on the open pass. */
export interface PassState {
  pipeline: GPUComputePipeline | undefined;
  bindGroup: GPUBindGroup | undefined;
}

/**
 * The runs of `dispatches`, or `undefined` when one is indirect (it needs a copy between passes:
 * the encoder's general path encodes those).
 */
export function graphRuns(dispatches: readonly DispatchTask[]): GraphRun[] | undefined {
  const runs: {
    pipeline: GPUComputePipeline;
    bindGroup: GPUBindGroup;
    groups: readonly GPUBindGroup[] | undefined;
    counts: number[];
  }[] = [];
  for (const dispatch of dispatches) {
    if (dispatch.indirect !== undefined || dispatch.copies !== undefined) return undefined;
    const pipeline = dispatch.kernel.pipeline;
    const last = runs.at(-1);
    if (
      last !== undefined && last.pipeline === pipeline && last.bindGroup === dispatch.bindGroup &&
      last.groups === dispatch.groups
    ) {
      const counts = last.counts, at = counts.length - 4;
      if (
        counts[at] === dispatch.x && counts[at + 1] === dispatch.y && counts[at + 2] === dispatch.z
      ) {
        counts[at + 3]++;
      } else counts.push(dispatch.x, dispatch.y, dispatch.z, 1);
      continue;
    }
    runs.push({
      pipeline,
      bindGroup: dispatch.bindGroup,
      groups: dispatch.groups,
      counts: [dispatch.x, dispatch.y, dispatch.z, 1],
    });
  }
  return runs;
}

/**
 * The fields of the encoder's stream (`encoder.ts`) that encoding and submitting replays use.
 * Both below are written out for their path's sake: each call on it is a cold function.
 */
export interface ReplayStream extends PassState {
  encoder: GPUCommandEncoder | undefined;
  pass: GPUComputePassEncoder | undefined;
  group: PassGroup | null;
  readonly streams: Set<StreamId>;
  lastStream: StreamId;
  cursor: number;
}

/**
 * Encodes `runs` in the stream's open pass (begun on `device` if none, counted in `stats`),
 * setting only what differs from the pass state (updated).
 */
export function encodeReplay(
  device: GPUDevice,
  stream: ReplayStream,
  runs: readonly GraphRun[],
  stats: { passes: number },
): void {
  let pass = stream.pass;
  if (pass === undefined) {
    stats.passes++;
    pass = stream.pass = (stream.encoder ??= device.createCommandEncoder()).beginComputePass();
  }
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    if (stream.pipeline !== run.pipeline) {
      pass.setPipeline(run.pipeline);
      stream.pipeline = run.pipeline;
      stream.bindGroup = undefined;
    }
    if (stream.bindGroup !== run.bindGroup) {
      pass.setBindGroup(0, run.bindGroup);
      stream.bindGroup = run.bindGroup;
    }
    const groups = run.groups;
    if (groups !== undefined) {
      for (let g = 0; g < groups.length; g++) pass.setBindGroup(g + 1, groups[g]);
    }
    const counts = run.counts;
    for (let i = 0; i < counts.length; i += 4) {
      const x = counts[i], y = counts[i + 1], z = counts[i + 2];
      // One argument where the others are their default: fewer to convert per call.
      if (y === 1 && z === 1) {
        for (let n = counts[i + 3]; n > 0; n--) pass.dispatchWorkgroups(x);
      } else for (let n = counts[i + 3]; n > 0; n--) pass.dispatchWorkgroups(x, y, z);
    }
  }
}

/**
 * Ends the pass, finishes and submits the stream's encoder, which holds replays only (no
 * validation scope, see `encoder.ts`), and starts the stream over: the encoder's `#take` steps.
 */
export function submitReplays(queue: GPUQueue, stream: ReplayStream): void {
  const encoder = stream.encoder!;
  stream.pass?.end();
  stream.pass =
    stream.encoder =
    stream.pipeline =
    stream.bindGroup =
      undefined;
  stream.group = null;
  stream.streams.clear();
  stream.lastStream = -1;
  stream.cursor++;
  queue.submit([encoder.finish()]);
}
