/**
 * The WebGPU server's `signal` once its stream's work went out: sets the timeline when the
 * queue's work submitted so far completes, or fails the mark (never left unsettled).
 *
 * @module
 */

import { DestroyedError, DriverError } from "../../core/errors.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { failMark } from "../shared/_fail_mark.ts";
import type { ServerState } from "../shared/server_state.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { signalOnQueue } from "../../../sync/webgpu_signal.ts";
import type { WebGpuParts } from "./_parts.ts";

/** Sets `timeline` to `value` once the queue's submitted work completes. */
export function signalAt(
  parts: WebGpuParts,
  state: ServerState,
  timeline: TimelineSignal,
  value: bigint,
  stream: StreamId,
): void {
  // A mark never reached is told to the timeline (`failMark`): waits for it reject.
  if (state.destroyed) {
    failMark(timeline, value, new DestroyedError("The WebGPU server was destroyed"));
    return;
  }
  const errors = parts.encoder.errors;
  signalOnQueue(parts.gpu.device.queue, {
    timeline: {
      set: (reached) => {
        const closed = parts.closedError();
        if (closed === undefined) return timeline.set(reached);
        errors.record(stream, closed);
        failMark(timeline, value, closed);
      },
    },
    value,
    onError: (cause) => {
      const message = `The queue failed to report completion of timeline value ${value}`;
      const error = new DriverError(message, { cause });
      errors.record(stream, error);
      failMark(timeline, value, error);
    },
  });
}
