/**
 * The bind-group entries of the launch being prepared: buffer entries reused from earlier
 * launches (WebGPU copies what it keeps, so one set of objects serves every launch) and the
 * texture and sampler entries `BoundTextures` places. A launch allocates no entry of its own.
 *
 * @module
 */

import type { ObjectEntry } from "./_bind_textures.ts";

/** A buffer entry of a bind group, reused by every launch. */
export interface BufferEntry {
  binding: number;
  group: number;
  resource: { buffer: GPUBuffer; offset: number; size: number };
}

/** The entries of one launch, in the order they were placed. */
export class BindEntries {
  /** The entries placed since the last {@linkcode reset} (`length` set by {@linkcode list}). */
  readonly #entries: (BufferEntry | ObjectEntry)[] = [];
  /** Buffer entry objects, reused by every launch. */
  readonly #pool: BufferEntry[] = [];
  #used = 0;
  #count = 0;
  /** Places a texture or sampler entry (what `BoundTextures` places through). */
  readonly placer: { place(entry: ObjectEntry): void } = {
    place: (entry) => void (this.#entries[this.#count++] = entry),
  };

  /** Starts a new launch. */
  reset(): void {
    this.#used = this.#count = 0;
  }

  /** The next buffer entry, at `group` and `binding`. */
  buffer(group: number, binding: number): BufferEntry {
    let entry = this.#pool[this.#used];
    if (entry === undefined) {
      entry = { binding, group, resource: { buffer: undefined!, offset: 0, size: 0 } };
      this.#pool.push(entry);
    }
    entry.binding = binding;
    entry.group = group;
    this.#entries[this.#count++] = entry;
    this.#used++;
    return entry;
  }

  /** The entries placed for this launch (a reused array: valid until the next launch). */
  list(): (BufferEntry | ObjectEntry)[] {
    this.#entries.length = this.#count;
    return this.#entries;
  }
}
