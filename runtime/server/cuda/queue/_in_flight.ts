/**
 * The launch log of a context: the candidates a kernel fault's error names (`../_fault.ts`).
 *
 * A launch stores references (its name, stream, grid and block arrays) in a ring of the last
 * {@linkcode RING} launches and counts itself in its stream (`CudaStream.launched`): O(1), no
 * string built, nothing allocated. An event records its stream's count; when the event is seen
 * complete (the GC's poll, a host wait, a read: `markComplete` in `streams.ts`), the stream's
 * launches up to it are no longer in flight. Only the error of a fault walks the ring, once: the
 * snapshot is kept, since a faulted context completes nothing more.
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import {
  type FaultSnapshot,
  type FaultWitness,
  type InFlightLaunch,
  MAX_LISTED_LAUNCHES,
} from "../_fault.ts";
import type { CudaStream } from "./streams.ts";

/** Launches kept (a power of two). */
const RING = 64;
const MASK = RING - 1;

/** The last launches of a context, for the errors of a kernel fault. */
export class LaunchesInFlight implements FaultWitness {
  readonly #kernels: string[] = new Array(RING).fill("");
  readonly #streamIds: StreamId[] = new Array(RING).fill(0);
  readonly #streams: (CudaStream | undefined)[] = new Array(RING).fill(undefined);
  readonly #grids: (readonly number[])[] = new Array(RING).fill(null);
  readonly #blocks: (readonly number[])[] = new Array(RING).fill(null);
  /** Launches recorded so far (the last one's number). */
  #count = 0;
  #snapshot: FaultSnapshot | undefined;

  /** Launches recorded so far. */
  get count(): number {
    return this.#count;
  }

  /** Records an enqueued launch (references only: the arrays must not change afterwards). */
  record(
    kernel: string,
    streamId: StreamId,
    stream: CudaStream,
    grid: readonly number[],
    block: readonly number[],
  ): void {
    const slot = this.#count & MASK;
    this.#kernels[slot] = kernel;
    this.#streamIds[slot] = streamId;
    this.#streams[slot] = stream;
    this.#grids[slot] = grid;
    this.#blocks[slot] = block;
    stream.launched = ++this.#count;
  }

  /**
   * The launches not known complete, newest first (the first call's answer, kept): the oldest
   * of each stream always (a stream's likeliest culprit: what it ran first after its last known
   * completion), then the newest others, {@linkcode MAX_LISTED_LAUNCHES} in all where the streams
   * allow.
   */
  observe(): FaultSnapshot {
    if (this.#snapshot !== undefined) return this.#snapshot;
    const pending: number[] = []; // launch numbers, newest first
    const oldest = new Map<CudaStream, number>();
    for (let n = this.#count; n > Math.max(0, this.#count - RING); n--) {
      const stream = this.#streams[(n - 1) & MASK]!;
      if (n <= stream.completed) continue;
      pending.push(n);
      oldest.set(stream, n); // the walk goes back in time: the last one set is the oldest
    }
    const listed = new Set(oldest.values());
    for (const n of pending) {
      if (listed.size >= MAX_LISTED_LAUNCHES) break;
      listed.add(n);
    }
    const launches: InFlightLaunch[] = [];
    for (const n of pending) {
      if (!listed.has(n)) continue;
      const slot = (n - 1) & MASK;
      launches.push(Object.freeze({
        kernel: this.#kernels[slot],
        stream: this.#streamIds[slot],
        grid: Object.freeze([...this.#grids[slot]]),
        block: Object.freeze([...this.#blocks[slot]]),
      }));
    }
    const more = pending.length - launches.length;
    return this.#snapshot = Object.freeze({ launches: Object.freeze(launches), more });
  }
}
