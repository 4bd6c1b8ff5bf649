/**
 * A cache of bind groups by layout and exact buffer ranges (a texture view or sampler entry is
 * keyed by its object).
 *
 * Creating a bind group costs ~20 µs on Deno's WebGPU, more than the rest of a dispatch, and
 * repeated launches usually bind the same ranges. A bind group only references buffers, not their
 * contents, so reusing one is valid as long as its buffers live: pooled info buffers keep their
 * identity while their bytes change per dispatch. Pages destroyed by memory cleanup are replaced
 * by new `GPUBuffer` objects with new ids, so a key never matches a destroyed buffer again; the
 * cache is cleared when it grows past its bound, which also drops entries of destroyed pages.
 *
 * Each group also gets a *shape*: its layout and the size of every entry, without buffers or
 * offsets. What WebGPU checks at dispatch beyond what the server checks before (minimum binding
 * sizes the WGSL needs) depends only on the shape, so the stream backend proves and rejects
 * launches by shape (see `queue/encoder.ts`). Computed on a cache miss only.
 *
 * @module
 */

const MAX_ENTRIES = 4096;

/** A cached group and the key it was created for: layout id, then id, offset, size per entry. */
interface Cached {
  readonly key: Float64Array;
  readonly group: GPUBindGroup;
}

/** Bind groups by layout and `(buffer, offset, size)` of every entry. */
export class BindGroupCache {
  readonly #device: GPUDevice;
  readonly #ids = new WeakMap<object, number>();
  /** Groups by a hash of their key (collisions share a bucket); no string built per lookup. */
  #groups = new Map<number, Cached[]>();
  #size = 0;
  /** The key of the lookup in progress, grown as needed. */
  #key = new Float64Array(16);
  readonly #shapes = new WeakMap<GPUBindGroup, string>();
  #nextId = 0;
  /**
   * The last two groups handed out with their layouts and entries: repeated launches (and
   * ping-pong launches alternating two groups) skip the hash.
   */
  readonly #recent: Recent[] = [newRecent(), newRecent()];
  /** Lookups served from the cache. */
  hits = 0;

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** The bind group of `layout` over `entries` (buffer resources only), cached. */
  get(layout: GPUBindGroupLayout, entries: readonly GPUBindGroupEntry[]): GPUBindGroup {
    const [first, second] = this.#recent;
    if (first.layout === layout && sameEntries(first, entries)) {
      this.hits++;
      return first.group!;
    }
    if (second.layout === layout && sameEntries(second, entries)) {
      this.hits++;
      this.#recent[0] = second; // most recent first
      this.#recent[1] = first;
      return second.group!;
    }
    const group = this.#lookup(layout, entries);
    remember(second, layout, entries, group); // replaces the older one
    this.#recent[0] = second;
    this.#recent[1] = first;
    return group;
  }

  #lookup(layout: GPUBindGroupLayout, entries: readonly GPUBindGroupEntry[]): GPUBindGroup {
    const length = 1 + 3 * entries.length;
    if (this.#key.length < length) this.#key = new Float64Array(length * 2);
    const key = this.#key;
    key[0] = this.#id(layout);
    let hash = key[0] | 0;
    for (let i = 0; i < entries.length; i++) {
      const resource = entries[i].resource as GPUBufferBinding;
      const id = this.#id(resource.buffer ?? resource); // a texture view or sampler: itself
      const offset = resource.offset ?? 0;
      const size = resource.size ?? -1;
      key[1 + 3 * i] = id;
      key[2 + 3 * i] = offset;
      key[3 + 3 * i] = size;
      hash = Math.imul(hash ^ id, 0x9e3779b1);
      hash = Math.imul(hash ^ (offset | 0) ^ (offset / 4294967296), 0x85ebca6b);
      hash = Math.imul(hash ^ (size | 0), 0xc2b2ae35);
    }
    const bucket = this.#groups.get(hash);
    if (bucket !== undefined) {
      for (let b = 0; b < bucket.length; b++) {
        if (same(bucket[b].key, key, length)) {
          this.hits++;
          return bucket[b].group;
        }
      }
    }
    if (this.#size >= MAX_ENTRIES) this.clear();
    const group = this.#device.createBindGroup({ layout, entries: entries as GPUBindGroupEntry[] });
    const cached = { key: key.slice(0, length), group };
    const list = this.#groups.get(hash);
    if (list === undefined) this.#groups.set(hash, [cached]);
    else list.push(cached);
    this.#size++;
    let shape = String(key[0]);
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
    this.#groups = new Map();
    this.#size = 0;
    for (const recent of this.#recent) recent.layout = recent.group = undefined;
  }

  #id(object: object): number {
    let id = this.#ids.get(object);
    if (id === undefined) this.#ids.set(object, id = this.#nextId++);
    return id;
  }
}

/** A recently handed-out group and what it binds (arrays reused: nothing allocated per launch). */
interface Recent {
  layout: GPUBindGroupLayout | undefined;
  group: GPUBindGroup | undefined;
  readonly buffers: object[];
  /** Offset and size of each entry. */
  readonly ranges: number[];
}

function newRecent(): Recent {
  return { layout: undefined, group: undefined, buffers: [], ranges: [] };
}

/** Whether `entries` bind exactly what `recent` binds (same buffers, offsets and sizes). */
function sameEntries(recent: Recent, entries: readonly GPUBindGroupEntry[]): boolean {
  const { buffers, ranges } = recent;
  if (buffers.length !== entries.length) return false;
  for (let i = 0; i < entries.length; i++) {
    const resource = entries[i].resource as GPUBufferBinding;
    if ((resource.buffer ?? resource) !== buffers[i]) return false;
    if ((resource.offset ?? 0) !== ranges[2 * i] || (resource.size ?? -1) !== ranges[2 * i + 1]) {
      return false;
    }
  }
  return true;
}

function remember(
  recent: Recent,
  layout: GPUBindGroupLayout,
  entries: readonly GPUBindGroupEntry[],
  group: GPUBindGroup,
): void {
  recent.layout = layout;
  recent.group = group;
  const { buffers, ranges } = recent;
  if (buffers.length !== entries.length) {
    buffers.length = entries.length;
    ranges.length = 2 * entries.length;
  }
  for (let i = 0; i < entries.length; i++) {
    const resource = entries[i].resource as GPUBufferBinding;
    buffers[i] = resource.buffer ?? resource;
    ranges[2 * i] = resource.offset ?? 0;
    ranges[2 * i + 1] = resource.size ?? -1;
  }
}

function same(a: Float64Array, b: Float64Array, length: number): boolean {
  if (a.length !== length) return false;
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The bind groups of a kernel with several groups: group 0's in `task.bindGroup`, the others in
 * `task.groups`. `byGroup` is reused storage.
 */
export function groupsOf(
  cache: BindGroupCache,
  task: { bindGroup: GPUBindGroup; groups: readonly GPUBindGroup[] | undefined },
  layouts: readonly GPUBindGroupLayout[],
  entries: readonly { readonly group: number }[],
  byGroup: { readonly group: number }[][],
): void {
  for (let g = 0; g < layouts.length; g++) {
    if (byGroup[g] === undefined) byGroup[g] = [];
    else byGroup[g].length = 0;
  }
  for (let i = 0; i < entries.length; i++) byGroup[entries[i].group].push(entries[i]);
  const groups: GPUBindGroup[] = [];
  for (let g = 1; g < layouts.length; g++) {
    groups.push(cache.get(layouts[g], byGroup[g] as unknown as GPUBindGroupEntry[]));
  }
  task.bindGroup = cache.get(layouts[0], byGroup[0] as unknown as GPUBindGroupEntry[]);
  task.groups = groups;
}
