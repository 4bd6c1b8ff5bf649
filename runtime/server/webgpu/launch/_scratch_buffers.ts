/**
 * A pool of info buffers, by power-of-two size class: indirect-count scratch buffers, the copies of
 * read-only bindings (`_read_only_copies.ts`), and the uniforms too large for the shared chunks of
 * `_param_chunks.ts`.
 *
 * Invariant: a buffer returns to the pool only after the command buffer that uses it was
 * submitted. Its next contents are written with `queue.writeBuffer`, which the queue orders after
 * that earlier submission, so a dispatch always sees the bytes written for it.
 *
 * @module
 */

import { BufferUsage } from "../memory/_buffer_usage.ts";

const INFO_USAGE = BufferUsage.STORAGE | BufferUsage.UNIFORM | BufferUsage.COPY_DST |
  BufferUsage.INDIRECT;

/** Reusable info buffers of one device. */
export class InfoBufferPool {
  readonly #device: GPUDevice;
  readonly #free = new Map<number, GPUBuffer[]>();
  readonly #all = new Set<GPUBuffer>();

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** Buffers created so far (for tests: reuse keeps this small). */
  get created(): number {
    return this.#all.size;
  }

  /** A buffer holding `bytes` (at least that large); give it back with {@linkcode release}. */
  acquire(bytes: Uint8Array): GPUBuffer {
    const buffer = this.acquireEmpty(bytes.byteLength);
    this.#device.queue.writeBuffer(buffer, 0, bytes as Uint8Array<ArrayBuffer>);
    return buffer;
  }

  /** A buffer of at least `byteLength` bytes with unspecified contents (e.g. an indirect count). */
  acquireEmpty(byteLength: number): GPUBuffer {
    const size = Math.max(256, 2 ** Math.ceil(Math.log2(byteLength)));
    let buffer = this.#free.get(size)?.pop();
    if (buffer === undefined) {
      buffer = this.#device.createBuffer({ size, usage: INFO_USAGE, label: "info" });
      this.#all.add(buffer);
    }
    return buffer;
  }

  /** Returns a buffer once the work that uses it is submitted. */
  release(buffer: GPUBuffer): void {
    if (!this.#all.has(buffer)) return;
    let list = this.#free.get(buffer.size);
    if (list === undefined) this.#free.set(buffer.size, list = []);
    list.push(buffer);
  }

  /** Destroys every buffer. */
  destroy(): void {
    for (const buffer of this.#all) buffer.destroy();
    this.#all.clear();
    this.#free.clear();
  }
}
