/**
 * The waits `waitFor` handed to the device (`waitSignal`: CUDA's `cuStreamWaitEvent`), per
 * stream: the device runs the stream's later work once the producer's event completed, also when
 * the producer's marked work faulted. {@linkcode DeviceWaits.check} makes the stream's next read
 * or `sync` reject with the producer's `ABORTED` then (once), as a wait held on the host does,
 * instead of returning what that work computed as if the producer had reached the value.
 *
 * @module
 */

import { DestroyedError } from "../../core/errors.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { heldError } from "./_held_streams.ts";

/** One wait on the device: the stream's later work runs after `signal` reached `value`. */
interface DeviceWait {
  readonly signal: TimelineSignal;
  readonly value: bigint;
}

/** The device waits of a client's streams not checked yet. */
export class DeviceWaits {
  readonly #waits = new Map<StreamId, DeviceWait[]>();

  /** Remembers that `stream` waits on the device for `signal` to reach `value`. */
  add(stream: StreamId, signal: TimelineSignal, value: bigint): void {
    const list = (this.#waits.get(stream) ?? []).filter((w) => !w.signal.isReached(w.value));
    list.push({ signal, value });
    this.#waits.set(stream, list);
  }

  /**
   * After a read or `sync` of `stream` completed: rejects with the producer's error if a value
   * the stream waited for on the device is never reached (its mark failed). A producer destroyed
   * meanwhile is no failure: its work drained before the device ran past the wait.
   */
  async check(stream: StreamId): Promise<void> {
    const list = this.#waits.get(stream);
    if (list === undefined) return;
    this.#waits.delete(stream); // reported once
    for (const { signal, value } of list) {
      try {
        await signal.wait(value);
      } catch (cause) {
        if (!(cause instanceof DestroyedError)) throw heldError(cause, stream, value);
      }
    }
  }
}
