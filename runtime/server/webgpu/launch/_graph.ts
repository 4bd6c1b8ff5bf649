/**
 * Captured launch graphs of the WebGPU server: every launch is checked and prepared once at
 * capture (pipeline, bind group, workgroup counts, parameter bytes in a buffer the graph owns),
 * validated once (encoded and finished inside a validation scope, never submitted); a replay
 * registers one task that the encoder encodes as the recorded dispatches in the open pass.
 *
 * A replay's params (`replay({ params })`) rewrite the graph's own ranges in place: the bytes go
 * to the queue once the earlier replays were submitted (the queue orders them after those).
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { KernelParams } from "../../../core/kernel.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import { DestroyedError, KernelArgumentError, NotReadyError } from "../../../core/errors.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { KernelLaunch } from "../../server.ts";
import type { ReflectedBinding } from "../compile/_reflect.ts";
import type { DispatchTask, GraphTask, PooledTask } from "../queue/_tasks.ts";
import { launchError } from "../queue/_device_validation.ts";
import { graphRuns } from "../queue/_graph_runs.ts";
import { encodeDispatch } from "../queue/_encode_again.ts";
import type { WgslKernel } from "../kernel.ts";
import type { WebGpuParts } from "../_parts.ts";
import { GraphParams, GraphParamsFull } from "./_graph_params.ts";
import { checkParams, writeUniform } from "./_params.ts";

/** A launch of the graph with named params: where its uniforms live in the graph's buffer. */
interface Named {
  readonly kernel: string;
  readonly uniforms: readonly ReflectedBinding[];
  params: KernelParams;
  readonly offsets: readonly number[];
}

/** A graph captured by a WebGPU server. */
export class WebGpuGraph implements Disposable {
  readonly label: string;
  readonly #parts: WebGpuParts;
  readonly #dispatches: readonly DispatchTask[];
  readonly #params: GraphParams;
  readonly #named: ReadonlyMap<string, readonly Named[]>;
  readonly #release: readonly (() => void)[];
  readonly refs: readonly HandleRef[];
  readonly reads: readonly HandleRef[] | undefined;
  readonly task: GraphTask;
  /** Replays registered and not yet submitted. */
  #pending = 0;
  #released = false;

  constructor(
    parts: WebGpuParts,
    label: string,
    tasks: readonly DispatchTask[],
    params: GraphParams,
    named: Map<string, Named[]>,
    stream: StreamId,
  ) {
    this.#parts = parts;
    this.label = label;
    this.#dispatches = tasks;
    this.#params = params;
    this.#named = named;
    this.#release = tasks.flatMap((task) => task.done === undefined ? [] : [task.done]);
    // One ref per memory: every launch holds clones of its handles (distinct refs of one
    // record), and the scheduler's registration is quadratic in the refs of a task.
    const refs = new Map<unknown, HandleRef>();
    const written = new Set<unknown>();
    for (const task of tasks) {
      for (const ref of task.refs) {
        const record = ref.slice.record;
        if (!refs.has(record)) refs.set(record, ref);
        if (task.reads === undefined || !task.reads.includes(ref)) written.add(record);
      }
    }
    this.refs = [...refs.values()];
    const reads = this.refs.filter((ref) => !written.has(ref.slice.record));
    this.reads = reads.length === 0 ? undefined : reads; // undefined: writes all, no per-ref test
    this.task = {
      kind: "graph",
      dispatches: tasks,
      runs: graphRuns(tasks),
      stream,
      done: () => this.#pending--,
    };
  }

  /** Launches in the graph. */
  get launches(): number {
    return this.#dispatches.length;
  }

  /**
   * Registers a replay on `stream` (see the module doc): the client calls it directly, so it
   * checks what the server's methods check (`DESTROYED` once the server is destroyed or its
   * device lost).
   */
  replay(stream: StreamId, params?: KernelParams): void {
    const parts = this.#parts;
    if (this.#released) throw new DestroyedError(`Launch graph '${this.label}' was released`);
    const closed = parts.closedError();
    if (closed !== undefined) throw closed;
    if (params !== undefined) this.#update(params);
    if (parts.encoder.timing !== null) return this.#replayTracked(stream);
    this.#pending++;
    parts.scheduler.registerChecked(stream, this.task, this.refs, this.reads);
  }

  /** A replay while profiling: each dispatch a task of its own, named under the graph's label. */
  #replayTracked(stream: StreamId): void {
    const parts = this.#parts;
    for (const dispatch of this.#dispatches) {
      const task: PooledTask = { ...(dispatch as PooledTask), done: undefined };
      Object.assign(task, { pooled: false, readStore: [] });
      const workgroups = task.indirect === undefined
        ? [task.x, task.y, task.z] as const
        : undefined;
      const name = `${this.label}/${task.kernel.reflection.name}`;
      parts.profiler.track(task, { kind: "kernel", stream, name, workgroups, bytes: 0 });
      parts.scheduler.registerChecked(stream, task, dispatch.refs, dispatch.reads);
    }
  }

  /** Rewrites the named params in place; nothing changes when any is refused. */
  #update(params: KernelParams): void {
    if (typeof params !== "object" || params === null) {
      throw new KernelArgumentError(
        this.label,
        "params",
        `must be an object, got ${describe(params)}`,
      );
    }
    const bytes = this.#params.bytes;
    const next = new Uint8Array(bytes);
    const view = new DataView(next.buffer);
    const changed = new Map<Named, KernelParams>();
    for (const name of Object.keys(params)) {
      const launches = this.#named.get(name);
      if (launches === undefined) {
        const known = [...this.#named.keys()].join(", ") || "none";
        throw new KernelArgumentError(
          this.label,
          `params.${name}`,
          `is not a param of any launch in the graph (its params: ${known})`,
        );
      }
      for (const launch of launches) {
        const merged = { ...(changed.get(launch) ?? launch.params), [name]: params[name] };
        changed.set(launch, merged);
      }
    }
    for (const [launch, merged] of changed) {
      checkParams(launch.kernel, launch.uniforms, merged);
      for (let u = 0; u < launch.uniforms.length; u++) {
        writeUniform(launch.kernel, launch.uniforms, u, merged, view, launch.offsets[u]);
      }
    }
    let low = 0;
    while (low < next.length && next[low] === bytes[low]) low++;
    for (const [launch, merged] of changed) launch.params = merged;
    if (low === next.length) return;
    let high = next.length;
    while (next[high - 1] === bytes[high - 1]) high--;
    if (this.#pending > 0) this.#parts.scheduler.executeAll(); // earlier replays go out first
    if (this.#pending > 0) {
      throw new NotReadyError(
        `Launch graph '${this.label}': earlier replays wait for a kernel's validation; await ` +
          "sync before replaying with new params",
      );
    }
    low -= low % 4;
    high = Math.min(next.length, high + 3 - (high + 3) % 4);
    bytes.set(next.subarray(low, high), low);
    this.#parts.gpu.device.queue.writeBuffer(this.#params.buffer, low, bytes, low, high - low);
  }

  /** Gives back what the graph holds (idempotent); the server may still be submitting replays. */
  [Symbol.dispose](): void {
    this.release();
  }

  /** Same as dispose. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const done = () => {
      for (const callback of this.#release) callback();
      this.#params.buffer.destroy();
    };
    // WebGPU keeps a destroyed buffer for the submitted work that uses it: only replays not
    // yet submitted keep the graph's buffers alive.
    if (this.#pending > 0) {
      try {
        this.#parts.scheduler.executeAll();
      } catch { /* recorded on the streams that failed */ }
    }
    if (this.#pending === 0) return done();
    this.#parts.encoder.released().then(done, done);
  }
}

/** Captures `launches` on `stream` (see the module doc). */
export async function captureGraph(
  parts: WebGpuParts,
  launches: readonly KernelLaunch<WgslKernel>[],
  stream: StreamId,
  label: string,
): Promise<WebGpuGraph> {
  for (const kernel of new Set(launches.map((launch) => launch.kernel))) {
    await parts.pipelines.compile(kernel); // CompilationError here, not at a replay
  }
  const limits = parts.gpu.device.limits;
  const align = Math.max(
    limits.minUniformBufferOffsetAlignment,
    limits.minStorageBufferOffsetAlignment,
  );
  let capacity = Math.max(256, launches.length * align);
  for (;;) {
    try {
      const graph = build(
        parts,
        launches,
        stream,
        label,
        new GraphParams(
          parts.gpu.device,
          capacity,
          align,
          `graph ${label}`,
        ),
      );
      await validate(parts, graph, stream);
      return graph;
    } catch (error) {
      if (error instanceof GraphStale) continue;
      if (!(error instanceof GraphParamsFull)) throw error;
      capacity *= 2;
    }
  }
}

function build(
  parts: WebGpuParts,
  launches: readonly KernelLaunch<WgslKernel>[],
  stream: StreamId,
  label: string,
  params: GraphParams,
): WebGpuGraph {
  const tasks: DispatchTask[] = [];
  const named = new Map<string, Named[]>();
  try {
    for (const launch of launches) {
      const start = params.offsets.length;
      const task = parts.launcher.prepareFor(params, launch, stream) as PooledTask;
      parts.launcher.tasks.keep(task); // the graph's for good
      task.refs = [...task.refs]; // the launch's arrays are the caller's
      tasks.push(task);
      const args = launch.args;
      if (launch.params === undefined || args.metadata.data.length > 0 || args.hasScalars) continue;
      const uniforms = task.kernel.reflection.uniforms;
      const offsets = params.offsets.slice(start, start + uniforms.length);
      const entry: Named = {
        kernel: task.kernel.reflection.name,
        uniforms,
        params: launch.params,
        offsets,
      };
      for (const name of Object.keys(launch.params)) {
        const list = named.get(name) ?? [];
        list.push(entry);
        named.set(name, list);
      }
    }
  } catch (error) {
    for (const task of tasks) task.done?.();
    params.buffer.destroy();
    throw error;
  }
  const queue = parts.gpu.device.queue;
  if (params.size > 0) queue.writeBuffer(params.buffer, 0, params.bytes, 0, params.size);
  return new WebGpuGraph(parts, label, tasks, params, named, stream);
}

/** Encodes the graph once inside a validation scope, without submitting it. */
async function validate(parts: WebGpuParts, graph: WebGpuGraph, stream: StreamId): Promise<void> {
  for (const dispatch of graph.task.dispatches) {
    await dispatch.kernel.settled; // a folded variant compiles at its first use
    if (dispatch.kernel.error !== undefined) {
      graph.release();
      throw dispatch.kernel.error;
    }
  }
  // A variant that settled on its declared module after it was prepared: prepared again.
  if (graph.task.dispatches.some((d) => d.replan !== undefined && d.kernel.fallback)) {
    graph.release();
    throw new GraphStale();
  }
  const device = parts.gpu.device;
  device.pushErrorScope("validation");
  const encoder = device.createCommandEncoder();
  for (const dispatch of graph.task.dispatches) encodeDispatch(encoder, dispatch).end();
  encoder.finish();
  const error = await device.popErrorScope();
  if (error !== null) {
    graph.release();
    const names = graph.task.dispatches.map((d) => d.kernel.reflection.name);
    throw launchError([...new Set(names)].join(", "), stream, error.message);
  }
}

/** A graph prepared before one of its kernels settled on its declared module (`validate`). */
class GraphStale extends Error {}
