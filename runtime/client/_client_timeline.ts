/**
 * The timeline of a client (`client.timeline`): a {@linkcode CpuTimelineSignal} that its client
 * closes when it is destroyed. A destroyed client never reaches the values it marked and did not
 * reach yet, so every wait for such a value (another client's `waitFor`, a user's `wait`) rejects
 * then with the client's `DESTROYED` error instead of waiting forever; values already reached
 * still resolve. Copies rebuilt from `buffer` in other Workers are plain CPU signals, not closed.
 *
 * @module
 */

import { CpuTimelineSignal } from "../../sync/cpu_signal.ts";
import type { TimelineWaitOptions } from "../../sync/timeline_signal.ts";

/** A client's timeline; see the module doc. */
export class ClientTimeline extends CpuTimelineSignal {
  readonly #closed = new AbortController();

  /** Rejects pending and later waits for unreached values with `reason`. Idempotent. */
  close(reason: unknown): void {
    this.#closed.abort(reason);
  }

  /** As {@linkcode CpuTimelineSignal.wait}; after `close`, an unreached value rejects. */
  override wait(target: bigint | number, options: TimelineWaitOptions = {}): Promise<void> {
    const closed = this.#closed.signal;
    if (closed.aborted) {
      return this.isReached(target) ? Promise.resolve() : Promise.reject(closed.reason);
    }
    const signal = options.signal === undefined
      ? closed
      : AbortSignal.any([options.signal, closed]);
    return super.wait(target, { ...options, signal });
  }
}
