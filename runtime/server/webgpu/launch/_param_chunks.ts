/**
 * The bytes of every launch's uniforms (named `params`) and info buffer, packed into shared
 * chunks and uploaded once per submission, not once per dispatch.
 *
 * Each chunk is one `GPUBuffer` and a host mirror. A launch reserves aligned ranges in the open
 * chunk (bump allocation) and writes its bytes into the mirror; its bind group binds that range
 * of the chunk. Before every submission the stream backend calls {@linkcode ParamChunks.upload}:
 * one `queue.writeBuffer` per chunk written since the last upload.
 *
 * Invariants:
 *
 * - A range is written (in the mirror) only while no submitted command buffer can still read its
 *   old bytes: a chunk starts over at offset 0 only when every launch that reserved in it was
 *   submitted or dropped (its `release`). The queue orders the next upload after those
 *   submissions, and before the submission of the launches that use the new bytes.
 * - Launches reserve in the same order from the same offsets after every start-over, so repeated
 *   launches get the same ranges and their bind groups come from the cache.
 * - A range is never written again before its chunk starts over, so a launch whose bytes equal
 *   an earlier range of the same size in the chunk binds that range instead ({@linkcode share}):
 *   launches with the same params share one bind group, as a hand-written uniform would.
 *
 * Ranges larger than a quarter chunk do not come here (the caller uses a buffer of their own).
 *
 * @module
 */

import { BufferUsage } from "../memory/_buffer_usage.ts";
import { clearArray } from "../../../core/_clear_array.ts";

const CHUNK_SIZE = 64 * 1024;
const USAGE = BufferUsage.STORAGE | BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/** One buffer with its host mirror. */
interface Chunk {
  readonly buffer: GPUBuffer;
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly view: DataView;
  /** Next free byte. */
  top: number;
  /** Committed launches not yet released. */
  live: number;
  /** Launches of the current reservation (see `ParamChunks.commit`). */
  pending: number;
  /** The last settled range of each size since the chunk started over. */
  readonly bySize: Map<number, number>;
  /** The range written since the last upload. */
  low: number;
  high: number;
  /** Releases one committed launch (bound once: `done` of a task, no closure per launch). */
  readonly release: () => void;
}

/** Shared uniform/info chunks of one device. */
export class ParamChunks {
  /** Largest range served here. */
  static readonly maxSize: number = CHUNK_SIZE / 4;
  readonly #device: GPUDevice;
  readonly #align: number;
  readonly #chunks: Chunk[] = [];
  readonly #dirty: Chunk[] = [];
  /** Chunks reserved in by the launch being prepared. */
  readonly #reserving: Chunk[] = [];
  /** The chunk of the last reservation. */
  #last: Chunk | undefined;
  #open: Chunk | undefined;
  /** The view of the chunk of the last reservation. */
  view: DataView = new DataView(new ArrayBuffer(0));
  /** The buffer of the chunk of the last reservation. */
  buffer: GPUBuffer | undefined;

  /** `align`: the offset alignment every range needs (uniform and storage). */
  constructor(device: GPUDevice, align: number) {
    this.#device = device;
    this.#align = align;
  }

  /** Chunks created so far. */
  get chunks(): number {
    return this.#chunks.length;
  }

  /**
   * Reserves `size` zeroed bytes (`size <= maxSize`) for the launch being prepared and returns
   * their offset in {@linkcode view} / {@linkcode buffer}. End the launch with
   * {@linkcode commit} or {@linkcode abort}.
   */
  reserve(size: number): number {
    let chunk = this.#open;
    let at = chunk === undefined ? 0 : Math.ceil(chunk.top / this.#align) * this.#align;
    if (chunk === undefined || at + size > CHUNK_SIZE) {
      chunk = this.#free();
      at = 0;
    }
    chunk.top = at + size;
    chunk.bytes.fill(0, at, at + size);
    if (chunk.high === 0) this.#dirty.push(chunk);
    if (at < chunk.low) chunk.low = at;
    if (at + size > chunk.high) chunk.high = at + size;
    if (chunk.pending++ === 0) this.#reserving.push(chunk);
    this.#last = chunk;
    this.view = chunk.view;
    this.buffer = chunk.buffer;
    return at;
  }

  /**
   * Called once the bytes of the last reservation (at `at`, `size` bytes) are written: returns
   * the offset of an equal range of that size reserved earlier in the chunk (giving the new one
   * back when it is the chunk's last), else `at`.
   */
  share(at: number, size: number): number {
    const chunk = this.#last!;
    const earlier = chunk.bySize.get(size);
    if (earlier !== undefined && earlier !== at && equal(chunk.bytes, earlier, at, size)) {
      if (chunk.top === at + size) chunk.top = at;
      return earlier;
    }
    chunk.bySize.set(size, at);
    return at;
  }

  /**
   * Ends a successful launch: returns what releases its ranges once it is submitted or dropped
   * (`undefined` when it reserved nothing).
   */
  commit(): (() => void) | undefined {
    const reserving = this.#reserving;
    if (reserving.length === 0) return undefined;
    for (const chunk of reserving) {
      chunk.live++;
      chunk.pending = 0;
    }
    if (reserving.length === 1) {
      const chunk = reserving[0];
      clearArray(reserving);
      return chunk.release;
    }
    const chunks = reserving.splice(0);
    return () => {
      for (const chunk of chunks) chunk.release();
    };
  }

  /** Ends a failed launch: its reservations are simply never used. */
  abort(): void {
    for (const chunk of this.#reserving) {
      chunk.pending = 0;
      if (chunk.live === 0) startOver(chunk);
    }
    clearArray(this.#reserving);
  }

  /** Writes every range reserved since the last upload to its buffer (before a submission). */
  upload(): void {
    const dirty = this.#dirty;
    if (dirty.length === 0) return;
    const queue = this.#device.queue;
    for (const chunk of dirty) {
      queue.writeBuffer(chunk.buffer, chunk.low, chunk.bytes, chunk.low, chunk.high - chunk.low);
      chunk.low = CHUNK_SIZE;
      chunk.high = 0;
    }
    dirty.length = 0;
  }

  /** Destroys every chunk. */
  destroy(): void {
    for (const chunk of this.#chunks) chunk.buffer.destroy();
    this.#chunks.length = 0;
    this.#dirty.length = 0;
    this.#open = undefined;
  }

  /** The first chunk that has started over (no live launch), or a new one; it becomes open. */
  #free(): Chunk {
    let chunk = this.#chunks.find((c) => c.live === 0 && c.pending === 0 && c !== this.#open);
    if (chunk === undefined) {
      const buffer = this.#device.createBuffer({ size: CHUNK_SIZE, usage: USAGE, label: "info" });
      const bytes = new Uint8Array(CHUNK_SIZE);
      const created: Chunk = {
        buffer,
        bytes,
        view: new DataView(bytes.buffer),
        top: 0,
        live: 0,
        pending: 0,
        bySize: new Map(),
        low: CHUNK_SIZE,
        high: 0,
        release: () => {
          if (--created.live === 0 && created.pending === 0) startOver(created);
        },
      };
      this.#chunks.push(created);
      chunk = created;
    }
    startOver(chunk);
    this.#open = chunk;
    return chunk;
  }
}

/** Starts a chunk over from offset 0 (no launch uses its ranges any more). */
function startOver(chunk: Chunk): void {
  chunk.top = 0;
  chunk.bySize.clear();
}

function equal(bytes: Uint8Array, a: number, b: number, size: number): boolean {
  for (let i = 0; i < size; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}
