/**
 * The parameter bytes of a captured graph: one buffer the graph owns (never the launcher's shared
 * chunks, whose ranges are rewritten per submission), with its host mirror. While the launcher
 * prepares a graph's launches, every uniform and info range is reserved here; a replay with new
 * params rewrites the ranges of those params in place.
 *
 * @module
 */

import { BufferUsage } from "../memory/_buffer_usage.ts";

const USAGE = BufferUsage.STORAGE | BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/** Thrown by {@linkcode GraphParams.reserve} past the capacity: capture starts over, larger. */
export class GraphParamsFull extends Error {}

/** A graph's parameter buffer and mirror, filled by bump allocation. */
export class GraphParams {
  readonly buffer: GPUBuffer;
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly view: DataView;
  readonly #align: number;
  /** Offset of every reservation, in order. */
  readonly offsets: number[] = [];
  #top = 0;

  constructor(device: GPUDevice, capacity: number, align: number, label: string) {
    this.buffer = device.createBuffer({ size: capacity, usage: USAGE, label });
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
    this.#align = align;
  }

  /** Reserves `size` zeroed bytes; returns their offset. */
  reserve(size: number): number {
    const at = Math.ceil(this.#top / this.#align) * this.#align;
    if (at + size > this.bytes.byteLength) throw new GraphParamsFull();
    this.#top = at + size;
    this.offsets.push(at);
    return at;
  }

  /** Bytes in use. */
  get size(): number {
    return this.#top;
  }
}
