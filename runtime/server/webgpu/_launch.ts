/**
 * Turns a kernel launch into a dispatch task, checking everything before anything is enqueued.
 *
 * Binding rules (from the reflected WGSL, all in `@group(0)`):
 *
 * - **Named params** (no scalars or metadata): `buffers` fill the `var<storage>` bindings in
 *   binding order, `params` fill the `var<uniform>` ones (`_params.ts`), each uniform a range of
 *   the shared info chunks (`_info_arena.ts`: one upload per submission, not per dispatch).
 * - **CubeCL info buffer** (the launch has scalars or metadata): the module's last binding takes
 *   the info buffer (`packInfo`) and `buffers` fill every binding before it.
 *
 * Each buffer must be at least the minimum size of its WGSL type (one element of a runtime-sized
 * array). Every violation is a `KernelArgumentError` naming the buffer or parameter.
 *
 * Hot path: a launch allocates nothing of its own. Entries, the located buffer ranges, workgroup
 * counts and parameter packing use state kept by the {@linkcode Launcher}, and its task is an
 * encoded task given back by the stream backend (`recycle`) unless none is free.
 *
 * @module
 */

import type { HandleRef } from "../../core/handle.ts";
import { KernelArgumentError, UnsupportedError } from "../../core/errors.ts";
import type { KernelLaunch, ResourceRange } from "../server.ts";
import type { DispatchTask, EncoderStream, IndirectCount } from "./_stream.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { checkInfo, checkLaunch, plural } from "./_check_launch.ts";
import type { BindGroupCache } from "./_bind_group_cache.ts";
import type { InfoBufferPool } from "./_info_buffers.ts";
import { InfoArena } from "./_info_arena.ts";
import type { WgslKernel } from "./kernel.ts";
import type { PipelineCache } from "./_pipeline_cache.ts";
import type { ReflectedBinding } from "./_reflect.ts";
import { type UniformSink, writeParams } from "./_params.ts";
import { cubesForThreads, fitCubes } from "./_threads.ts";
import { empty } from "../../core/_empty.ts";

/** What a launch needs from the server. */
export interface LaunchContext {
  readonly device: GPUDevice;
  readonly pipelines: PipelineCache;
  /** Buffers for indirect counts and for uniforms too large for the arena. */
  readonly infoBuffers: InfoBufferPool;
  readonly arena: InfoArena;
  readonly bindGroups: BindGroupCache;
  /** The buffer and range of a live binding of this server (`INVALID_HANDLE` otherwise). */
  resolve(binding: HandleRef): ResourceRange<GPUBuffer>;
  /** Like `resolve`, written into `into` (the launch hot path allocates nothing). */
  locate(binding: HandleRef, into: MutableResource): MutableResource;
  /** The backend stream of a stream id (where the launch's deferred error goes). */
  origin(stream: StreamId): EncoderStream;
}

/** Most encoded tasks kept for reuse. */
const MAX_FREE_TASKS = 1024;

/** A dispatch task as the launcher fills it (reused once encoded, see `Launcher.recycle`). */
type PooledTask = { -readonly [P in keyof DispatchTask]: DispatchTask[P] } & { pooled: boolean };

function newTask(): PooledTask {
  return {
    kind: "dispatch",
    kernel: undefined!,
    bindGroup: undefined!,
    x: 1,
    y: 1,
    z: 1,
    indirect: undefined,
    origin: undefined!,
    stream: 0,
    done: undefined,
    pooled: false,
  };
}

/**
 * Refuses a typed handle whose elements are not what the WGSL declares (an `Int32Array` read as
 * `array<f32>` gives 1.4e-45...), or that holds a partial element of a runtime-sized array (a
 * tightly packed `vec3f` array, whose stride is 16). Untyped handles are not checked.
 */
function checkElements(
  name: string,
  index: number,
  binding: HandleRef,
  size: number,
  slot: ReflectedBinding,
): void {
  const dtype = binding.dtype;
  if (slot.scalar !== undefined && dtype !== slot.scalar) {
    throw new KernelArgumentError(
      name,
      `buffers[${index}]`,
      `holds ${dtype} elements, but ${slot.name}: ${slot.type.name} holds ${slot.scalar}: ` +
        `upload ${slot.scalar} data (or convert it), or reinterpret the bytes on purpose with ` +
        `handle.as("${slot.scalar}")`,
    );
  }
  if (slot.stride > 0 && size % slot.stride !== 0) {
    throw new KernelArgumentError(
      name,
      `buffers[${index}]`,
      `has ${size} bytes, not a whole number of ${slot.name}'s ${slot.stride}-byte elements ` +
        `(${slot.type.name}; a vec3 element is padded to 16 bytes)`,
    );
  }
}

/** A {@linkcode ResourceRange} filled in place. */
export interface MutableResource {
  resource: GPUBuffer;
  offset: number;
  size: number;
}

interface Entry {
  binding: number;
  resource: { buffer: GPUBuffer; offset: number; size: number };
}

/** Turns launches into dispatch tasks for one server. */
export class Launcher implements UniformSink {
  readonly #context: LaunchContext;
  readonly #alignment: number;
  readonly #maxCount: number;
  /** Bind-group entries of the launch being prepared (`#used` of `#pool`). */
  readonly #entries: Entry[] = [];
  /** Entry objects reused by every launch (WebGPU copies what it keeps). */
  readonly #pool: Entry[] = [];
  #used = 0;
  /** Uniforms too large for the arena, packed by the launch being prepared. */
  #large: { entry: Entry; bytes: Uint8Array }[] = [];
  /** The entry of the last arena reservation, until its bytes are written and shared. */
  #written: Entry | undefined;
  /**
   * The bindings of the last prepared launch that the scheduler must order and pin (valid until
   * the next `prepare`).
   */
  bindings: readonly HandleRef[] = [];
  /** Those of `bindings` it only reads (declared `read`, an indirect count); empty if none. */
  readonly reads: HandleRef[] = [];
  /**
   * Whether tasks prepared now may be recycled once encoded (the server turns it off while a
   * profiling window or trace may keep tasks).
   */
  pooling = true;
  /** Encoded tasks given back by {@linkcode recycle}, reused by later launches. */
  readonly #free: PooledTask[] = [];
  /** Where the buffer being bound lives (reused by every launch). */
  readonly #at: MutableResource = { resource: undefined!, offset: 0, size: 0 };
  /** Workgroups of the launch being prepared (copied into its task). */
  readonly #cubes: [number, number, number] = [1, 1, 1];
  /** The view the last `reserve` points into (see {@linkcode UniformSink}). */
  view: DataView = new DataView(new ArrayBuffer(0));

  constructor(context: LaunchContext) {
    this.#context = context;
    const limits = context.device.limits;
    this.#alignment = limits.minStorageBufferOffsetAlignment;
    this.#maxCount = limits.maxComputeWorkgroupsPerDimension;
  }

  /**
   * Checks a launch on `stream` and builds its dispatch task (see {@linkcode bindings} and
   * {@linkcode reads}). The task's `done` gives back what it holds: call it if the task is never
   * registered.
   */
  prepare(launch: KernelLaunch<WgslKernel>, stream: StreamId): DispatchTask {
    this.#used = 0;
    empty(this.reads);
    try {
      return this.#prepare(launch, stream);
    } catch (error) {
      this.#written = undefined;
      this.#context.arena.abort();
      this.#large = [];
      throw error;
    }
  }

  /** Part of {@linkcode UniformSink}: a zeroed range for the uniform at `binding`. */
  reserve(binding: number, size: number): number {
    this.#share();
    const entry = this.#entry(binding);
    if (size > InfoArena.maxSize) {
      const bytes = new Uint8Array(size);
      this.#large.push({ entry, bytes });
      this.view = new DataView(bytes.buffer);
      entry.resource.size = size;
      return 0;
    }
    const arena = this.#context.arena;
    const offset = arena.reserve(size);
    this.view = arena.view;
    entry.resource.buffer = arena.buffer!;
    entry.resource.offset = offset;
    entry.resource.size = size;
    this.#written = entry;
    return offset;
  }

  /** Binds an equal earlier range instead of the one just written, if there is one. */
  #share(): void {
    const entry = this.#written;
    if (entry === undefined) return;
    this.#written = undefined;
    const resource = entry.resource;
    resource.offset = this.#context.arena.share(resource.offset, resource.size);
  }

  #prepare(launch: KernelLaunch<WgslKernel>, stream: StreamId): DispatchTask {
    checkLaunch(launch);
    const context = this.#context;
    const { kernel, count, args: bindings } = launch;
    let compiled = context.pipelines.get(kernel);
    const { reflection } = compiled;
    const name = reflection.name;
    if (bindings.tensorMaps.length > 0) {
      throw new UnsupportedError(`Kernel '${name}': WebGPU has no tensor maps (TMA)`);
    }
    const declared = reflection.bindings;
    const buffers = bindings.buffers;
    const hasInfo = bindings.metadata.data.length > 0 || bindings.hasScalars;
    let bufferSlots: readonly ReflectedBinding[];
    if (hasInfo) {
      const info = checkInfo(name, declared, launch);
      const last = declared[declared.length - 1];
      bufferSlots = declared; // the first buffers.length of them
      const offset = this.reserve(last.binding, info.bytes.byteLength);
      new Uint8Array(this.view.buffer, offset, info.bytes.byteLength).set(info.bytes);
      this.#share();
    } else {
      bufferSlots = reflection.storage;
      if (bufferSlots.length !== buffers.length) {
        throw new KernelArgumentError(
          name,
          "buffers",
          `has ${plural(buffers.length, "handle")}, but the WGSL declares ` +
            `${plural(bufferSlots.length, "storage binding")} ` +
            `(${bufferSlots.map((b) => b.name).join(", ") || "none"})`,
        );
      }
      if (reflection.uniforms.length > 0 || launch.params !== undefined) {
        writeParams(name, reflection.uniforms, launch.params, this);
        this.#share();
      }
    }
    const reads = this.reads;
    for (let i = 0; i < buffers.length; i++) {
      const binding = buffers[i];
      const slot = bufferSlots[i];
      if (slot.space === "uniform") {
        throw new KernelArgumentError(
          name,
          `buffers[${i}]`,
          `is bound to var<uniform> ${slot.name}`,
        );
      }
      const at = context.locate(binding, this.#at);
      if (binding.dtype !== "bytes") checkElements(name, i, binding, at.size, slot);
      if (at.size < slot.minSize) {
        throw new KernelArgumentError(
          name,
          `buffers[${i}]`,
          `has ${at.size} bytes, but ${slot.name}: ${slot.type.name} needs at least ${slot.minSize}`,
        );
      }
      if (at.offset % this.#alignment !== 0) {
        throw new RangeError(
          `Buffer ${i} of kernel '${name}' starts at byte ${at.offset}, not a multiple of ` +
            `minStorageBufferOffsetAlignment (${this.#alignment})`,
        );
      }
      // Storage bindings are 4-byte multiples; the rounded range stays inside the page.
      let size = at.size < 4 ? 4 : at.size;
      if (size % 4 !== 0) size = Math.min(size + 4 - size % 4, at.resource.size - at.offset);
      const entry = this.#entry(slot.binding).resource;
      entry.buffer = at.resource;
      entry.offset = at.offset;
      entry.size = size;
      if (slot.access === "read") reads.push(binding);
    }
    let ordered: readonly HandleRef[] = buffers;
    let indirect: IndirectCount | undefined;
    let scratch: GPUBuffer | undefined;
    const cubes = this.#cubes;
    if (count.kind === "dynamic") {
      const at = context.resolve(count.ref);
      if (at.offset % 4 !== 0) {
        throw new RangeError(
          `An indirect cube count must start at a multiple of 4, got ${at.offset}`,
        );
      }
      ordered = [...buffers, count.ref];
      reads.push(count.ref);
      scratch = context.infoBuffers.acquireEmpty(12);
      indirect = { buffer: at.resource, offset: at.offset, scratch };
    } else {
      if (count.kind === "threads") cubesForThreads(count, reflection.workgroupSize, cubes);
      else {
        cubes[0] = count.x;
        cubes[1] = count.y;
        cubes[2] = count.z;
      }
      const what = count.kind === "threads" ? "threads" : "count";
      const groups = fitCubes(name, what, cubes, this.#maxCount);
      if (groups > 0) {
        // Dispatched as a folded grid: the variant sees the launch it stands for.
        compiled = context.pipelines.folded(compiled);
        const offset = this.reserve(compiled.foldBinding, 16);
        this.view.setUint32(offset, groups, true);
        this.#share();
      }
    }
    const done = this.#commit(scratch);
    const entries = this.#entries;
    entries.length = this.#used;
    const bindGroup = context.bindGroups.get(compiled.layout, entries);
    const task = this.#free.pop() ?? newTask();
    task.kernel = compiled;
    task.bindGroup = bindGroup;
    task.x = cubes[0];
    task.y = cubes[1];
    task.z = cubes[2];
    task.indirect = indirect;
    task.origin = context.origin(stream);
    task.stream = stream;
    task.done = done;
    task.pooled = this.pooling;
    this.bindings = ordered;
    return task;
  }

  /**
   * Takes back a task that was encoded and that nothing references any more. Only tasks prepared
   * while {@linkcode pooling} was on are kept (so a profiler's task is never reused).
   */
  recycle(task: DispatchTask): void {
    const pooled = task as PooledTask;
    if (!pooled.pooled || this.#free.length >= MAX_FREE_TASKS) return;
    pooled.pooled = false; // once: a task recycled twice would serve two launches
    pooled.done = undefined;
    pooled.indirect = undefined;
    this.#free.push(pooled);
  }

  /** The next bind-group entry, reused from earlier launches. */
  #entry(binding: number): Entry {
    let entry = this.#pool[this.#used];
    if (entry === undefined) {
      entry = { binding, resource: { buffer: undefined!, offset: 0, size: 0 } };
      this.#pool.push(entry);
    }
    entry.binding = binding;
    this.#entries[this.#used] = entry;
    this.#used++;
    return entry;
  }

  /** Ends a successful launch: what gives back its arena ranges and buffers once submitted. */
  #commit(scratch: GPUBuffer | undefined): (() => void) | undefined {
    const context = this.#context;
    const arena = context.arena.commit();
    if (scratch === undefined && this.#large.length === 0) return arena;
    const owned = this.#large.map(({ entry, bytes }) => {
      const buffer = context.infoBuffers.acquire(bytes);
      entry.resource.buffer = buffer;
      entry.resource.offset = 0;
      return buffer;
    });
    this.#large = [];
    if (scratch !== undefined) owned.push(scratch);
    return () => {
      arena?.();
      for (const buffer of owned) context.infoBuffers.release(buffer);
    };
  }
}
