/**
 * How a server with native marks (`ComputeServer.signal`) reports a mark that will never be
 * reached: its work failed, its event failed or timed out, or the server was destroyed first. A
 * client's timeline has a `fail(value, error)` method, which rejects the waits for that value and
 * later ones (their callers' held calls with them) instead of leaving them pending; any other
 * signal is left as it is.
 *
 * @module
 */

import type { TimelineSignal } from "../../../sync/timeline_signal.ts";

/** A timeline that can be told that a value will never be reached. */
interface FailingTimeline {
  fail(value: bigint, error: unknown): void;
}

/** Tells `timeline` (when it can be told) that `value` will never be reached, because of `error`. */
export function failMark(timeline: TimelineSignal, value: bigint, error: unknown): void {
  const fail = (timeline as Partial<FailingTimeline>).fail;
  if (typeof fail === "function") fail.call(timeline, value, error);
}
