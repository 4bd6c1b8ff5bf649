/**
 * A cache of bind groups by layout and exact buffer ranges.
 *
 * Creating a bind group costs ~20 µs on Deno's WebGPU, more than the rest of a dispatch, and
 * repeated launches usually bind the same ranges. A bind group only references buffers, not their
 * contents, so reusing one is valid as long as its buffers live: pooled info buffers keep their
 * identity while their bytes change per dispatch. Pages destroyed by memory cleanup are replaced
 * by new `GPUBuffer` objects, so a lookup never matches a destroyed buffer again; the
 * cache is cleared when it grows past its bound, which also drops entries of destroyed pages.
 *
 * Each group also gets a *shape*: its layout and the size of every entry, without buffers or
 * offsets. What WebGPU checks at dispatch beyond what the server checks before (minimum binding
 * sizes the WGSL needs) depends only on the shape, so the stream backend proves and rejects
 * launches by shape (see `_stream.ts`). Computed on a cache miss only.
 *
 * @module
 */

const MAX_ENTRIES = 4096;

/**
 * A node of the lookup trie: one level per buffer, offset and size of each entry in turn, so a
 * lookup builds no key (a string key per dispatch cost more than the rest of the lookup).
 */
interface Node {
  readonly next: Map<unknown, Node>;
  group: GPUBindGroup | undefined;
}

const node = (): Node => ({ next: new Map(), group: undefined });

/** Bind groups by layout and `(buffer, offset, size)` of every entry. */
export class BindGroupCache {
  readonly #device: GPUDevice;
  readonly #ids = new WeakMap<object, number>();
  #root = node();
  #size = 0;
  readonly #shapes = new WeakMap<GPUBindGroup, string>();
  #nextId = 0;
  /** Lookups served from the cache. */
  hits = 0;

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** The bind group of `layout` over `entries` (buffer resources only), cached. */
  get(layout: GPUBindGroupLayout, entries: readonly GPUBindGroupEntry[]): GPUBindGroup {
    let at = step(this.#root, layout);
    for (let i = 0; i < entries.length; i++) {
      const resource = entries[i].resource as GPUBufferBinding;
      at = step(step(step(at, resource.buffer), resource.offset ?? 0), resource.size ?? -1);
    }
    let group = at.group;
    if (group !== undefined) {
      this.hits++;
      return group;
    }
    if (this.#size >= MAX_ENTRIES) this.clear();
    group = this.#device.createBindGroup({ layout, entries: entries as GPUBindGroupEntry[] });
    if (this.#size === 0) at = this.#path(layout, entries); // `clear` dropped the path
    at.group = group;
    this.#size++;
    let shape = String(this.#id(layout));
    for (const entry of entries) shape += `|${(entry.resource as GPUBufferBinding).size ?? -1}`;
    this.#shapes.set(group, shape);
    return group;
  }

  /** The shape of a group this cache created: its layout and entry sizes. */
  shape(group: GPUBindGroup): string {
    return this.#shapes.get(group) ?? "";
  }

  /** Forgets every bind group (e.g. when pages are destroyed). */
  clear(): void {
    this.#root = node();
    this.#size = 0;
  }

  #path(layout: GPUBindGroupLayout, entries: readonly GPUBindGroupEntry[]): Node {
    let at = step(this.#root, layout);
    for (const entry of entries) {
      const resource = entry.resource as GPUBufferBinding;
      at = step(step(step(at, resource.buffer), resource.offset ?? 0), resource.size ?? -1);
    }
    return at;
  }

  #id(object: object): number {
    let id = this.#ids.get(object);
    if (id === undefined) this.#ids.set(object, id = this.#nextId++);
    return id;
  }
}

/** The child of `at` for `key`, created if needed. */
function step(at: Node, key: unknown): Node {
  let next = at.next.get(key);
  if (next === undefined) at.next.set(key, next = node());
  return next;
}
