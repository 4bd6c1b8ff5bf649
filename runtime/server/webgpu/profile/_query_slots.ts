/**
 * Timestamp query slots: one slot is the (begin, end) query pair of one compute pass. Slots come
 * from fixed-size query sets and are recycled through a free list, so overlapping profiling
 * windows (some window always open) keep reusing the same sets instead of creating new ones.
 *
 * Invariant: a slot is released only after the resolve that reads it was submitted. A pass that
 * reuses it is submitted later on the same queue, so the resolve reads the old values.
 *
 * @module
 */

import { BufferUsage } from "../memory/_buffer_usage.ts";

const PAIRS_PER_SET = 128; // 256 queries per set
const ALIGN = 256; // resolveQuerySet destination offsets are multiples of 256

/** Begin and end of each slot read, in device nanoseconds (`0, 0` when never written). */
export type SlotTimes = Float64Array;

/** The query slots of one device. */
export class QuerySlots {
  readonly #device: GPUDevice;
  readonly #sets: GPUQuerySet[] = [];
  readonly #free: number[] = [];
  #next = 0;
  /** Buffers mapped to read timestamps. */
  maps = 0;

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** Query sets created so far. */
  get sets(): number {
    return this.#sets.length;
  }

  /** A free slot, creating a query set when every slot is taken. */
  acquire(): number {
    const slot = this.#free.pop() ?? this.#next++;
    const set = Math.floor(slot / PAIRS_PER_SET);
    if (set === this.#sets.length) {
      this.#sets.push(this.#device.createQuerySet({ type: "timestamp", count: PAIRS_PER_SET * 2 }));
    }
    return slot;
  }

  /** Returns a slot whose resolve was submitted. */
  release(slot: number): void {
    this.#free.push(slot);
  }

  /** The query set and indices of a slot's pass. */
  writes(slot: number): GPUComputePassTimestampWrites {
    const index = (slot % PAIRS_PER_SET) * 2;
    return {
      querySet: this.#sets[Math.floor(slot / PAIRS_PER_SET)],
      beginningOfPassWriteIndex: index,
      endOfPassWriteIndex: index + 1,
    };
  }

  /**
   * Submits the resolve of `slots` now (synchronously) and maps the result once. Returns, for the
   * i-th slot, begin at `[2i]` and end at `[2i + 1]`. Consecutive slots of one set are resolved
   * in one call, each run at a 256-byte aligned offset.
   */
  read(slots: readonly number[]): Promise<SlotTimes> {
    if (slots.length === 0) return Promise.resolve(new Float64Array(0));
    const order = slots.map((slot, i) => [slot, i]).sort((a, b) => a[0] - b[0]);
    const runs: { first: number; count: number; at: number }[] = [];
    const where = new Array<number>(slots.length); // byte offset of each slot's pair
    let size = 0;
    for (let k = 0; k < order.length;) {
      const first = order[k][0];
      let count = 1;
      while (
        k + count < order.length && order[k + count][0] === first + count &&
        (first + count) % PAIRS_PER_SET !== 0
      ) count++;
      runs.push({ first, count, at: size });
      for (let j = 0; j < count; j++) where[order[k + j][1]] = size + j * 16;
      size += Math.ceil((count * 16) / ALIGN) * ALIGN;
      k += count;
    }
    const resolve = this.#device.createBuffer({
      size,
      usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
    });
    const staging = this.#device.createBuffer({
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    const encoder = this.#device.createCommandEncoder();
    for (const run of runs) {
      const { querySet, beginningOfPassWriteIndex } = this.writes(run.first);
      encoder.resolveQuerySet(querySet, beginningOfPassWriteIndex!, run.count * 2, resolve, run.at);
    }
    encoder.copyBufferToBuffer(resolve, 0, staging, 0, size);
    this.#device.queue.submit([encoder.finish()]);
    this.maps++;
    return (async () => {
      try {
        await staging.mapAsync(GPUMapMode.READ);
        const values = new BigUint64Array(staging.getMappedRange());
        const times = new Float64Array(slots.length * 2);
        where.forEach((at, i) => {
          times[2 * i] = Number(values[at / 8]);
          times[2 * i + 1] = Number(values[at / 8 + 1]);
        });
        staging.unmap();
        return times;
      } finally {
        resolve.destroy();
        staging.destroy();
      }
    })();
  }

  /** Destroys the query sets. */
  destroy(): void {
    for (const set of this.#sets) set.destroy();
    this.#sets.length = 0;
    this.#free.length = 0;
    this.#next = 0;
  }
}
