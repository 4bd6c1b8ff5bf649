/**
 * A lazily filled pool of streams: `index = id % maxStreams`, plus special streams stored after
 * the regular ones (special 0 is the GC stream of the event backend).
 *
 * @module
 */

import { assertNonNegativeInteger, assertPositiveInteger } from "../core/_argument_checks.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";

/**
 * Streams created on first use and looked up by id, index or special slot.
 *
 * @example
 * ```ts
 * import { StreamPool } from "@gpucompute/runtime/backend";
 * let created = 0;
 * const pool = new StreamPool(() => ({ n: created++ }), { maxStreams: 4, numSpecial: 1 });
 * console.log(pool.get(5) === pool.get(1)); // true: 5 % 4 === 1
 * console.log(created); // 1
 * ```
 */
export class StreamPool<S> {
  readonly #streams: (S | undefined)[];
  readonly #create: () => S;
  /** Number of regular streams. */
  readonly maxStreams: number;
  /** Number of special streams after the regular ones. */
  readonly numSpecial: number;

  /** Creates an empty pool; `create` makes a stream on first use. */
  constructor(create: () => S, options: StreamPoolOptions) {
    assertPositiveInteger(options.maxStreams, "maxStreams");
    assertNonNegativeInteger(options.numSpecial ?? 0, "numSpecial");
    this.maxStreams = options.maxStreams;
    this.numSpecial = options.numSpecial ?? 0;
    this.#create = create;
    this.#streams = new Array(this.maxStreams + this.numSpecial).fill(undefined);
  }

  /** The pool index of a stream id. */
  streamIndex(id: StreamId): number {
    assertStreamId(id);
    return id % this.maxStreams;
  }

  /** The stream for `id`, created if needed. */
  get(id: StreamId): S {
    return this.getIndex(this.streamIndex(id));
  }

  /** The stream at a pool index (regular or special), created if needed. */
  getIndex(index: number): S {
    const stream = this.#streams[index];
    if (stream !== undefined && Number.isInteger(index) && index >= 0) return stream;
    return this.#createAt(index);
  }

  /** Checks a pool index and creates its stream if needed (out of line: `getIndex` stays small). */
  #createAt(index: number): S {
    if (!Number.isInteger(index) || index < 0 || index >= this.#streams.length) {
      throw new RangeError(`Stream index must be in [0, ${this.#streams.length}), got ${index}`);
    }
    let stream = this.#streams[index];
    if (stream === undefined) {
      stream = this.#create();
      this.#streams[index] = stream;
    }
    return stream;
  }

  /** Special stream `n` (0 is the first after the regular streams), created if needed. */
  getSpecial(n: number): S {
    if (!Number.isInteger(n) || n < 0 || n >= this.numSpecial) {
      throw new RangeError(`Special stream must be in [0, ${this.numSpecial}), got ${n}`);
    }
    return this.getIndex(this.maxStreams + n);
  }

  /** Number of pool slots (regular and special streams). */
  get size(): number {
    return this.#streams.length;
  }

  /**
   * Every pool slot, `undefined` where no stream was created yet: the array itself, for a loop
   * over the slots without a call per slot (do not change it).
   */
  get slots(): readonly (S | undefined)[] {
    return this.#streams;
  }

  /** The stream at a pool index if it was created, else `undefined` (allocates nothing). */
  peek(index: number): S | undefined {
    return this.#streams[index];
  }

  /** The streams created so far with their indices. */
  *entries(): IterableIterator<[number, S]> {
    for (let i = 0; i < this.#streams.length; i++) {
      const stream = this.#streams[i];
      if (stream !== undefined) yield [i, stream];
    }
  }
}

/**
 * Options of {@linkcode StreamPool}.
 *
 * @example
 * ```ts
 * import { StreamPool, type StreamPoolOptions } from "@gpucompute/runtime/backend";
 * const options: StreamPoolOptions = { maxStreams: 4, numSpecial: 1 }; // and one GC stream
 * const pool = new StreamPool(() => ({}), options);
 * console.log(pool.get(5) === pool.get(1)); // true: 5 % 4 === 1
 * ```
 */
export interface StreamPoolOptions {
  /** Number of regular streams; ids wrap around modulo this. */
  maxStreams: number;
  /**
   * Special streams stored after the regular ones.
   * @default {0}
   */
  numSpecial?: number;
}
