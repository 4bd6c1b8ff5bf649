/**
 * Bind groups of kernels that run their declared (unwidened) module (`compile/_settle.ts`).
 *
 * Such a kernel's read-only storage is laid out `read-only-storage`, and WebGPU forbids one
 * `GPUBuffer` being bound read-only and writable in one dispatch; pool slices of one page share a
 * buffer. So a read-only binding whose buffer is also bound writable by the same dispatch is
 * copied into a scratch buffer (an info buffer, `_scratch_buffers.ts`) just before the dispatch,
 * in stream order (`DispatchTask.copies`, encoded by `queue/encoder.ts`), and the copy is bound
 * instead; the scratch buffer goes back to the pool once the dispatch was submitted. Bindings
 * without a conflict are bound directly. A launch prepared while its kernel is still pending keeps
 * its entries (`DispatchTask.replan`), so that its bind groups can be made again if the kernel
 * settles on its declared module. Kernels that run the widened module never come here.
 *
 * @module
 */

import type { ReadOnlyFallback } from "../compile/_settle.ts";
import { bindingKey } from "../compile/_settle.ts";
import type { BufferCopy, PooledTask } from "../queue/_tasks.ts";
import { type BindGroupCache, groupsOf } from "./_bind_group_cache.ts";
import type { InfoBufferPool } from "./_scratch_buffers.ts";
import { BufferUsage } from "../memory/_buffer_usage.ts";

/**
 * Copies larger than this get a buffer of their exact size, destroyed once submitted: the pool
 * rounds sizes up to a power of two (past `maxBufferSize` near the limit) and keeps them.
 */
const POOLED_BYTES = 16 * 1024 * 1024;

/** A bind-group entry as the launcher places it (a buffer range, a texture view or a sampler). */
interface Entry {
  readonly binding: number;
  readonly group: number;
  readonly resource: GPUBufferBinding | GPUTextureView | GPUSampler;
}

/** The copies and bind groups of launches of kernels that run their declared module. */
export class ReadOnlyCopies {
  readonly #device: GPUDevice;
  readonly #groups: BindGroupCache;
  readonly #scratch: InfoBufferPool;
  readonly #byGroup: { readonly group: number }[][] = [];

  /** Binds through `groups`, copying into buffers of `scratch` (large ones: of `device`). */
  constructor(device: GPUDevice, groups: BindGroupCache, scratch: InfoBufferPool) {
    this.#device = device;
    this.#groups = groups;
    this.#scratch = scratch;
  }

  /**
   * Prepares `task` (its kernel set, pending or running its declared module) over the launch's
   * `entries`, before its bind groups are made: keeps the entries of a pending kernel with
   * read-only storage; points the conflicting read-only entries of a declared-module kernel at
   * scratch copies. Returns the task's `done`, which then also gives back the scratch buffers.
   */
  plan(
    task: PooledTask,
    entries: readonly Entry[],
    done: (() => void) | undefined,
  ): (() => void) | undefined {
    const kernel = task.kernel;
    task.replan = kernel.state === "pending" && kernel.reflection.hasReadOnlyStorage
      ? entries.map(copyEntry) as GPUBindGroupEntry[]
      : undefined;
    if (kernel.fallback === undefined) return done;
    const release = this.#copy(task, kernel.fallback, entries);
    return release === undefined ? done : () => {
      done?.();
      release();
    };
  }

  /**
   * Makes the bind groups of a task prepared while its kernel was pending again, once the kernel
   * settled on its declared module (nothing to do otherwise). Returns what gives back its scratch
   * buffers once it was submitted, if any.
   */
  replan(task: PooledTask): (() => void) | undefined {
    const entries = task.replan as Entry[] | undefined;
    task.replan = undefined;
    const kernel = task.kernel;
    if (entries === undefined || kernel.fallback === undefined) return undefined;
    const release = this.#copy(task, kernel.fallback, entries);
    const list = entries as unknown as GPUBindGroupEntry[];
    if (kernel.layouts.length === 1) {
      task.bindGroup = this.#groups.get(kernel.layout, list);
      task.groups = undefined;
    } else groupsOf(this.#groups, task, kernel.layouts, entries, this.#byGroup);
    return release;
  }

  /** Sets `task.copies`, pointing `entries` at the copies; what gives the scratch buffers back. */
  #copy(
    task: PooledTask,
    fallback: ReadOnlyFallback,
    entries: readonly Entry[],
  ): (() => void) | undefined {
    let copies: BufferCopy[] | undefined;
    for (const entry of entries) {
      const read = entry.resource as GPUBufferBinding;
      if (!fallback.readOnly.has(bindingKey(entry.group, entry.binding))) continue;
      const conflict = entries.some((other) =>
        (other.resource as GPUBufferBinding).buffer === read.buffer &&
        fallback.writable.has(bindingKey(other.group, other.binding))
      );
      if (!conflict) continue;
      const size = read.size!;
      const scratch = size <= POOLED_BYTES
        ? this.#scratch.acquireEmpty(size)
        : this.#device.createBuffer({ size, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      (copies ??= []).push({
        source: read.buffer,
        sourceOffset: read.offset ?? 0,
        destination: scratch,
        destinationOffset: 0,
        size,
      });
      read.buffer = scratch; // the launcher's entry objects are reset at every launch
      read.offset = 0;
    }
    task.copies = copies;
    if (copies === undefined) return undefined;
    return () => {
      for (const { destination } of copies) {
        if (destination.size > POOLED_BYTES) destination.destroy(); // after its submission
        else this.#scratch.release(destination);
      }
    };
  }
}

/** A copy of an entry that the launcher's reused objects do not change. */
function copyEntry(entry: Entry): Entry {
  const { binding, group, resource } = entry;
  const range = resource as GPUBufferBinding;
  return range.buffer === undefined ? { binding, group, resource } : {
    binding,
    group,
    resource: { buffer: range.buffer, offset: range.offset, size: range.size },
  };
}
