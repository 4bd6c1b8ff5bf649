/**
 * Turns a kernel launch into a dispatch task, checking the launch once (the server's `execute` is
 * the public boundary; the scheduler and the encoder trust what the launcher hands them).
 *
 * Binding rules (from the reflected WGSL, any number of `@group`s, in (group, binding) order):
 *
 * - **Named params** (no scalars or metadata): `buffers` fill the `var<storage>` and texture
 *   bindings in (group, binding) order, or by WGSL name (`bufferNames`, resolved through the
 *   reflection's name map: nothing parsed per launch); `params` fill the `var<uniform>` ones
 *   (`_params.ts`), each uniform a range of the launcher's parameter chunks (`_param_chunks.ts`:
 *   one upload per submission); `samplers` fill the `sampler` ones (`_bind_textures.ts`).
 * - **CubeCL info buffer** (scalars or metadata): the last binding in (group, binding) order
 *   (generated kernels use group 0 only) takes `packInfo`; `buffers` fill those before it.
 *
 * Each buffer must be at least the minimum size of its WGSL type and hold its element type;
 * every violation is a `KernelArgumentError` naming the buffer or parameter.
 *
 * The launcher owns the parameter chunks and the task pool (the encoder receives both); it locates
 * buffers in the server's memory. A launch allocates nothing of its own.
 *
 * @module
 */

import { HandleRef } from "../../../core/handles/handle_ref.ts";
import { KernelArgumentError, UnsupportedError } from "../../../core/errors.ts";
import { KernelArguments } from "../../../core/kernel_arguments.ts";
import { assertU32, describe, isU32 } from "../../../core/_argument_checks.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { KernelLaunch } from "../../server.ts";
import { bufferFits, checkBuffer, checkInfo } from "./_check_launch.ts";
import { notACount, plural, resolveNames } from "./_check_launch.ts";
import type { GraphParams } from "./_graph_params.ts";
import { writeInfo } from "./_info_layout.ts";
import { type BindGroupCache, groupsOf } from "./_bind_group_cache.ts";
import type { InfoBufferPool } from "./_scratch_buffers.ts";
import type { MutableRange, WebGpuMemory } from "../memory/memory.ts";
import type { WebGpuTextures } from "../memory/textures.ts";
import { BoundTextures, bufferArgument, type ObjectEntry, textureOf } from "./_bind_textures.ts";
import { BindEntries, type BufferEntry } from "./_bind_entries.ts";
import { ReadOnlyCopies } from "./_read_only_copies.ts";
import { ParamChunks } from "./_param_chunks.ts";
import { checkParams, uniformSize, writeUniform } from "./_params.ts";
import type { PipelineCache } from "../compile/pipeline_cache.ts";
import type { KernelReflection, ReflectedBinding } from "../compile/_reflect.ts";
import { type DispatchTask, type IndirectCount, TaskPool } from "../queue/_tasks.ts";
import { cubesForThreads, fitCubes, locateCount } from "./_workgroup_counts.ts";
import type { WgslKernel } from "../kernel.ts";
import { clearArray } from "../../../core/_clear_array.ts";

/** What the launcher works with, made before it by their owners. */
export interface LauncherParts {
  readonly device: GPUDevice;
  readonly pipelines: PipelineCache;
  readonly bindGroups: BindGroupCache;
  /** Buffers for indirect counts and for uniforms too large for the chunks. */
  readonly infoBuffers: InfoBufferPool;
  /** The server's memory, where every bound buffer is located. */
  readonly memory: WebGpuMemory;
  readonly textures: WebGpuTextures;
}

const MODES: readonly unknown[] = ["checked", "unchecked", undefined];

/** Turns launches into dispatch tasks for one server. */
export class Launcher {
  readonly #parts: LauncherParts;
  readonly #alignment: number;
  readonly #maxCount: number;
  /** The parameter chunks every launch's uniforms and info bytes go into. */
  readonly chunks: ParamChunks;
  /** Dispatch tasks, given back by the encoder once encoded. */
  readonly tasks: TaskPool = new TaskPool();
  /** Bind groups of kernels that run their declared (unwidened) module. */
  readonly readOnly: ReadOnlyCopies;
  /** Bind-group entries of the launch being prepared. */
  readonly #entries = new BindEntries();
  /** Texture and sampler entries, their checks and the samplers made. */
  readonly #textures: BoundTextures;
  /** The names of the buffers of the launch being prepared, when named. */
  #names: readonly string[] | undefined;
  /** Slots of a launch with named buffers (reused). */
  readonly #named: ReflectedBinding[] = [];
  /** Entries per group, for kernels with several groups (reused). */
  readonly #byGroup: (BufferEntry | ObjectEntry)[][] = [];
  /** Uniforms too large for the chunks, packed by the launch being prepared. */
  #large: { entry: BufferEntry; bytes: Uint8Array }[] = [];
  /** The last chunk range's entry, until its bytes are written and shared. */
  #written: BufferEntry | undefined;
  /** The view the last {@linkcode #reserve} points into. */
  #view: DataView = new DataView(new ArrayBuffer(0));
  /** Where a dynamic count, and each buffer (located once; `undefined`: a texture) live. */
  readonly #at: MutableRange = { resource: undefined!, offset: 0, size: 0 };
  readonly #ranges: (MutableRange | undefined)[] = [];
  readonly #pool: MutableRange[] = [];
  /** Workgroups of the launch being prepared (copied into its task). */
  readonly #cubes: [number, number, number] = [1, 1, 1];
  /** Refs the launch being prepared only reads (copied into its task). */
  readonly #reads: HandleRef[] = [];
  /** While a graph is captured: where its ranges go instead of the shared chunks. */
  #graph: GraphParams | undefined;

  constructor(parts: LauncherParts) {
    this.#parts = parts;
    const limits = parts.device.limits;
    this.#alignment = limits.minStorageBufferOffsetAlignment;
    this.#maxCount = limits.maxComputeWorkgroupsPerDimension;
    const align = Math.max(limits.minUniformBufferOffsetAlignment, this.#alignment);
    this.chunks = new ParamChunks(parts.device, align);
    this.#textures = new BoundTextures(parts.device, parts.textures);
    this.readOnly = new ReadOnlyCopies(parts.device, parts.bindGroups, parts.infoBuffers);
  }

  /**
   * Checks a launch on `stream` and builds its dispatch task, with the refs the scheduler orders
   * and pins for it. The task's `done` gives back what it holds: call it if the task is never
   * registered.
   */
  prepare(launch: KernelLaunch<WgslKernel>, stream: StreamId): DispatchTask {
    this.#entries.reset();
    clearArray(this.#reads);
    this.#textures.reset();
    this.#names = launch?.bufferNames;
    try {
      return this.#prepare(launch, stream);
    } catch (error) {
      this.#written = undefined;
      this.chunks.abort();
      this.#large = [];
      throw error;
    }
  }

  /** {@linkcode prepare} for a captured graph: its uniform and info ranges go into `params`. */
  prepareFor(
    params: GraphParams,
    launch: KernelLaunch<WgslKernel>,
    stream: StreamId,
  ): DispatchTask {
    this.#graph = params;
    try {
      return this.prepare(launch, stream);
    } finally {
      this.#graph = undefined;
    }
  }

  #prepare(launch: KernelLaunch<WgslKernel>, stream: StreamId): DispatchTask {
    if (typeof launch !== "object" || launch === null) {
      throw new TypeError(`launch must be a KernelLaunch, got ${describe(launch)}`);
    }
    const { kernel, count, args } = launch;
    if (!(args instanceof KernelArguments)) {
      throw new TypeError(`launch.args must be a KernelArguments, got ${describe(args)}`);
    }
    if (!MODES.includes(launch.mode)) {
      throw new RangeError(`mode must be "checked" or "unchecked", got ${describe(launch.mode)}`);
    }
    let compiled = this.#parts.pipelines.get(kernel, launch.overrides);
    const { reflection } = compiled;
    const name = reflection.name;
    if (args.tensorMaps.length > 0) {
      throw new UnsupportedError(`Kernel '${name}': WebGPU has no tensor maps (TMA)`);
    }
    const buffers = args.buffers;
    // Handles first, as on CUDA: another client's memory is INVALID_HANDLE whatever else is wrong
    for (let i = 0; i < buffers.length; i++) {
      const ref = buffers[i];
      this.#ranges[i] = ref instanceof HandleRef && textureOf(ref) === undefined
        ? this.#parts.memory.locate(
          ref,
          this.#pool[i] ??= { resource: undefined!, offset: 0, size: 0 },
        )
        : undefined;
    }
    const slots = args.metadata.data.length > 0 || args.hasScalars
      ? this.#info(name, reflection.bindings, launch)
      : this.#params(name, reflection, launch);
    for (let i = 0; i < buffers.length; i++) this.#bind(name, i, buffers[i], slots[i]);
    if (reflection.samplers.length > 0 || launch.samplers !== undefined) {
      this.#textures.samplers(name, reflection, launch, this.#entries.placer);
    }
    let refs: readonly HandleRef[] = buffers;
    let indirect: IndirectCount | undefined;
    let scratch: GPUBuffer | undefined;
    const cubes = this.#cubes;
    if (typeof count !== "object" || count === null) notACount(count);
    if (count.kind === "dynamic") {
      const ref = count.ref;
      const at = locateCount(this.#parts.memory, ref, this.#at);
      refs = [...buffers, ref];
      this.#reads.push(ref);
      scratch = this.#parts.infoBuffers.acquireEmpty(12);
      indirect = { buffer: at.resource, offset: at.offset, scratch };
    } else {
      if (count.kind !== "static" && count.kind !== "threads") notACount(count);
      if (!isU32(count.x) || !isU32(count.y) || !isU32(count.z)) { // names: for an error only
        const what = count.kind === "threads" ? "threads" : "count";
        assertU32(count.x, `${what} x`);
        assertU32(count.y, `${what} y`);
        assertU32(count.z, `${what} z`);
      }
      if (count.kind === "threads") cubesForThreads(count, reflection.workgroupSize, cubes);
      else {
        cubes[0] = count.x;
        cubes[1] = count.y;
        cubes[2] = count.z;
      }
      const max = this.#maxCount;
      const groups = cubes[0] > max || cubes[1] > max || cubes[2] > max
        ? fitCubes(name, count.kind === "threads" ? "threads" : "count", cubes, max)
        : 0;
      if (groups > 0) {
        // Dispatched as a folded grid: the variant sees the launch it stands for.
        compiled = this.#parts.pipelines.folded(compiled);
        // A buffer bound writable (the info binding, widened) cannot also be a uniform in one
        // dispatch: with an info binding, the fold's uniform gets a buffer of its own.
        const offset = this.#reserve(0, compiled.foldBinding, 16, slots === reflection.bindings);
        this.#view.setUint32(offset, groups, true);
        this.#share();
      }
    }
    let done = this.#commit(scratch);
    const entries = this.#entries.list();
    const task = this.tasks.take();
    task.kernel = compiled;
    if (compiled.state !== "ready" || compiled.fallback !== undefined) {
      done = this.readOnly.plan(task, entries, done); // `_read_only_copies.ts`
    }
    if (compiled.layouts.length === 1) {
      task.bindGroup = this.#parts.bindGroups.get(compiled.layout, entries);
      task.groups = undefined;
    } else groupsOf(this.#parts.bindGroups, task, compiled.layouts, entries, this.#byGroup);
    task.x = cubes[0];
    task.y = cubes[1];
    task.z = cubes[2];
    task.indirect = indirect;
    task.stream = stream;
    task.done = done;
    task.refs = refs;
    for (const ref of this.#reads) task.readStore.push(ref);
    task.reads = this.#reads.length === 0 ? undefined : task.readStore;
    return task;
  }

  /** A launch with an info buffer: packs it into the last binding; every binding is a slot. */
  #info(
    name: string,
    declared: readonly ReflectedBinding[],
    launch: KernelLaunch<WgslKernel>,
  ): readonly ReflectedBinding[] {
    if (launch.bufferNames !== undefined || launch.samplers !== undefined) {
      throw new KernelArgumentError(
        name,
        launch.bufferNames !== undefined ? "buffers" : "samplers",
        "cannot be combined with scalars or metadata: pass the buffers by position",
      );
    }
    const size = checkInfo(name, declared, launch);
    const last = declared[declared.length - 1];
    const offset = this.#reserve(last.group, last.binding, size);
    const view = this.#view;
    writeInfo(launch.args, new Uint8Array(view.buffer, view.byteOffset, view.byteLength), offset);
    this.#share();
    return declared; // the first buffers.length of them
  }

  /** Named params: writes each uniform; returns the storage and texture slots (order or name). */
  #params(name: string, reflection: KernelReflection, launch: KernelLaunch<WgslKernel>) {
    const { uniforms } = reflection;
    const storage = this.#names === undefined
      ? reflection.resources
      : resolveNames(name, reflection, this.#names, this.#named);
    const buffers = launch.args.buffers;
    if (storage.length !== buffers.length) {
      throw new KernelArgumentError(
        name,
        "buffers",
        `has ${plural(buffers.length, "handle")}, but the WGSL declares ` +
          `${
            plural(
              storage.length,
              storage.some((b) => b.space === "texture")
                ? "storage or texture binding"
                : "storage binding",
            )
          } ` +
          `(${storage.map((b) => b.name).join(", ") || "none"})`,
      );
    }
    if (uniforms.length === 0 && launch.params === undefined) return storage;
    const params = checkParams(name, uniforms, launch.params);
    for (let u = 0; u < uniforms.length; u++) {
      const offset = this.#reserve(
        uniforms[u].group,
        uniforms[u].binding,
        uniformSize(uniforms[u]),
      );
      writeUniform(name, uniforms, u, params, this.#view, offset);
      this.#share();
    }
    return storage;
  }

  /** Checks buffer `i` against its slot and fills its bind-group entry. */
  #bind(name: string, i: number, ref: HandleRef, slot: ReflectedBinding): void {
    if (!(ref instanceof HandleRef)) {
      throw new TypeError(`${this.#what(i)} must be a HandleRef, got ${describe(ref)}`);
    }
    if (slot.space === "uniform") {
      throw new KernelArgumentError(name, this.#what(i), `is bound to var<uniform> ${slot.name}`);
    }
    // Located by `#prepare` (`undefined`: a texture); disposed since, while params were read?
    if (ref.slice.record.disposed) throw ref.notFound();
    const at = this.#ranges[i];
    if (slot.space === "texture" || at === undefined) {
      this.#textures.bind(name, i, this.#names, ref, slot, this.#entries.placer);
      if (slot.access === "read") this.#reads.push(ref);
      return;
    }
    if (!bufferFits(ref.dtype, at, slot, this.#alignment)) {
      checkBuffer(name, this.#what(i), i, ref.dtype, at, slot, this.#alignment);
    }
    // Storage bindings are 4-byte multiples; the rounded range stays inside the page.
    let size = at.size < 4 ? 4 : at.size;
    if (size % 4 !== 0) size = Math.min(size + 4 - size % 4, at.resource.size - at.offset);
    const entry = this.#entries.buffer(slot.group, slot.binding).resource;
    entry.buffer = at.resource;
    entry.offset = at.offset;
    entry.size = size;
    if (slot.access === "read") this.#reads.push(ref);
  }

  /** A zeroed range of `size` bytes for a uniform; its offset. `own`: not in the shared chunk. */
  #reserve(group: number, binding: number, size: number, own = false): number {
    this.#share();
    const entry = this.#entries.buffer(group, binding);
    const graph = this.#graph;
    if (graph !== undefined && !own) {
      const at = graph.reserve(size); // never shared: a replay may rewrite it alone
      this.#view = graph.view;
      entry.resource.buffer = graph.buffer;
      entry.resource.offset = at;
      entry.resource.size = size;
      return at;
    }
    if (own || size > ParamChunks.maxSize) {
      const bytes = new Uint8Array(size);
      this.#large.push({ entry, bytes });
      this.#view = new DataView(bytes.buffer);
      entry.resource.size = size;
      return 0;
    }
    const chunks = this.chunks;
    const offset = chunks.reserve(size);
    this.#view = chunks.view;
    entry.resource.buffer = chunks.buffer!;
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
    resource.offset = this.chunks.share(resource.offset, resource.size);
  }

  /** How buffer `i` is named in errors (built for an error only). */
  #what(i: number): string {
    return bufferArgument(i, this.#names);
  }

  /** Ends a successful launch: what gives back its chunk ranges and buffers once submitted. */
  #commit(scratch: GPUBuffer | undefined): (() => void) | undefined {
    const infoBuffers = this.#parts.infoBuffers;
    const chunks = this.chunks.commit();
    if (scratch === undefined && this.#large.length === 0) return chunks;
    const owned = this.#large.map(({ entry, bytes }) => {
      const buffer = infoBuffers.acquire(bytes);
      entry.resource.buffer = buffer;
      entry.resource.offset = 0;
      return buffer;
    });
    this.#large = [];
    if (scratch !== undefined) owned.push(scratch);
    return () => {
      chunks?.();
      for (const buffer of owned) infoBuffers.release(buffer);
    };
  }

  /** Destroys the parameter chunks. */
  destroy(): void {
    this.chunks.destroy();
  }
}
