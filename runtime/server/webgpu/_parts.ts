/**
 * {@linkcode WebGpuParts}: what a WebGPU server owns, made in dependency order (each part
 * receives the parts made before it; none calls back into the server): the memory, the caches,
 * the launcher (which owns the parameter chunks and the task pool), the encoder (which receives
 * them), the task scheduler over the encoder, the profiler, the reads. Plus what the server's
 * calls share: how device waits end, the profiling hooks, memory samples for traces.
 *
 * @module
 */

import { resolveConfig } from "../../core/config.ts";
import {
  type ComputeError,
  DestroyedError,
  DeviceLostError,
  DriverError,
} from "../../core/errors.ts";
import { failMark } from "../shared/_fail_mark.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { signalOnQueue } from "../../../sync/webgpu_signal.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { Handle } from "../../core/handles/handle.ts";
import type { HandleKind } from "../../core/handles/handle_kind.ts";
import { SchedulerMultiStream } from "../../stream/scheduler.ts";
import type { HandleAllocator } from "../shared/allocate.ts";
import type { ServerState } from "../shared/server_state.ts";
import { BindGroupCache } from "./launch/_bind_group_cache.ts";
import { awaitDevice } from "./queue/_device_wait.ts";
import { type EncoderStream, EncoderStreams } from "./queue/encoder.ts";
import { InfoBufferPool } from "./launch/_scratch_buffers.ts";
import { Launcher } from "./launch/launcher.ts";
import { WebGpuMemory } from "./memory/memory.ts";
import { WebGpuTextures } from "./memory/textures.ts";
import { PipelineCache } from "./compile/pipeline_cache.ts";
import { ProfilerCore } from "./profile/_profile_windows.ts";
import { WebGpuReads } from "./memory/_read.ts";
import type { DispatchTask, GpuTask } from "./queue/_tasks.ts";
import type { WebGpuDevice } from "./device.ts";
import type { WebGpuServerOptions, WebGpuServerStats } from "./options.ts";

/** The parts of one WebGPU server. */
export class WebGpuParts implements HandleAllocator {
  readonly gpu: WebGpuDevice;
  readonly memory: WebGpuMemory;
  readonly textures: WebGpuTextures;
  readonly pipelines: PipelineCache;
  readonly bindGroups: BindGroupCache;
  readonly infoBuffers: InfoBufferPool;
  readonly launcher: Launcher;
  readonly encoder: EncoderStreams;
  readonly scheduler: SchedulerMultiStream<GpuTask, EncoderStream>;
  readonly profiler: ProfilerCore;
  readonly reads: WebGpuReads;
  readonly #state: ServerState;

  /** Makes the parts of a server on `gpu`, whose usable state is `state`. */
  constructor(gpu: WebGpuDevice, options: WebGpuServerOptions, state: ServerState) {
    const config = resolveConfig(options);
    const device = gpu.device;
    this.gpu = gpu;
    this.#state = state;
    this.memory = new WebGpuMemory(device, options.memory);
    this.textures = new WebGpuTextures(device);
    this.pipelines = new PipelineCache(device, gpu);
    this.bindGroups = new BindGroupCache(device);
    this.infoBuffers = new InfoBufferPool(device);
    this.launcher = new Launcher({
      device,
      pipelines: this.pipelines,
      bindGroups: this.bindGroups,
      infoBuffers: this.infoBuffers,
      memory: this.memory,
      textures: this.textures,
    });
    this.encoder = new EncoderStreams(device, {
      chunks: this.launcher.chunks,
      tasks: this.launcher.tasks,
      bindGroups: this.bindGroups,
      maxStreams: config.maxStreams,
      replan: (task) => this.launcher.readOnly.replan(task),
    });
    this.scheduler = new SchedulerMultiStream(this.encoder, {
      maxStreams: config.maxStreams,
      maxTasks: config.maxTasks,
      strategy: config.strategy,
    });
    this.profiler = new ProfilerCore(device, { timestamps: gpu.timestamps });
    this.reads = new WebGpuReads(device);
  }

  /** A snapshot of the counters. */
  stats(): WebGpuServerStats {
    const encoder = this.encoder.stats;
    return {
      mapAsync: this.reads.maps,
      submits: encoder.submits,
      passes: encoder.passes,
      pipelineHits: this.pipelines.hits,
      pipelineMisses: this.pipelines.misses,
      bindGroupHits: this.bindGroups.hits,
      profileMaps: this.profiler.maps,
      isolatedSubmits: encoder.isolated,
      parkedSubmits: encoder.parked,
      querySets: this.profiler.querySets,
    };
  }

  /**
   * Awaits a device promise (`what`: its name in an error); `DESTROYED` or `DEVICE_LOST` if the
   * server closed meanwhile.
   */
  awaitDevice<T>(promise: Promise<T>, what?: string): Promise<T> {
    return awaitDevice(promise, (cause) => this.closedError(cause), what);
  }

  /** The largest reservation, in bytes ({@linkcode HandleAllocator}). */
  get maxAllocationSize(): number {
    return this.memory.maxAllocationSize;
  }

  /**
   * Reserves `size` bytes as a new handle of `stream`, made at the stream's cursor now
   * ({@linkcode HandleAllocator}: what the shared layer's allocation reserves with).
   */
  allocate(size: number, stream: StreamId, kind?: HandleKind): Handle {
    const slice = this.memory.reserve(size);
    const cursor = this.scheduler.stream(stream).cursor;
    return Handle.fresh(slice, stream, cursor, size, kind);
  }

  /** The error of a server that was destroyed or lost its device, else `undefined`. */
  closedError(cause?: unknown): ComputeError | undefined {
    if (this.#state.destroyed) return this.#state.destroyedError({ cause });
    const lost = this.gpu.lost;
    if (lost === undefined) return undefined;
    return new DeviceLostError(`The WebGPU device was lost (${lost})`, { cause });
  }

  /** What work on the queue waits for while submissions are parked, else `undefined`. */
  parkedWork(): Promise<void> | undefined {
    return this.encoder.parking ? this.encoder.released() : undefined;
  }

  /** What a trace waits for before it is assembled: parked work and every validation result. */
  tracedWork(): Promise<void> {
    return this.encoder.validated().then(() => {});
  }

  /** Tracks a launch for the open windows and trace (only while profiling). */
  trackLaunch(task: DispatchTask, stream: StreamId): void {
    this.launcher.tasks.keep(task); // the profiler keeps it in its maps: never recycled
    const workgroups = task.indirect === undefined ? [task.x, task.y, task.z] as const : undefined;
    const name = task.kernel.reflection.name;
    this.profiler.track(task, { kind: "kernel", stream, name, workgroups, bytes: 0 });
  }

  /** Tracks a copy for the open windows and trace (only while profiling). */
  trackCopy(task: GpuTask, stream: StreamId, kind: "write" | "read", bytes: number): void {
    this.profiler.track(task, { kind, stream, name: kind, workgroups: undefined, bytes });
  }

  /** Turns the encoder's profiling hook and the scheduler's wait log on or off. */
  updateTiming(): void {
    this.encoder.timing = this.profiler.active ? this.profiler : null;
    this.scheduler.waits = this.profiler.trace;
  }

  /** Samples memory into the running trace, if any. */
  sampleMemory(): void {
    if (this.profiler.trace === undefined) return;
    const usage = this.memory.usage();
    this.profiler.memory(usage.bytesInUse, usage.bytesReserved);
  }

  /** Releases every part (an adopted device lives on). */
  destroy(): void {
    this.reads.destroy(); // settles the pending maps
    this.encoder.destroy();
    this.pipelines.clear();
    this.profiler.destroy();
    this.infoBuffers.destroy();
    this.launcher.destroy();
    this.memory.destroy();
    this.textures.destroy();
    this.gpu.destroy();
  }

  /** The last mark's outcome: marks reach their timelines in the order they were made. */
  #lastMark: Promise<void> = Promise.resolve();

  /**
   * Sets `timeline` to `value` once the queue completed the work submitted so far, and once
   * WebGPU validated `stream`'s launches before it: a mark whose stream's work failed
   * (a launch refused, a kernel that did not compile, an error not reported yet) is failed with
   * that error instead, so a consumer waiting for it never runs on data that was not written.
   * The producer's own next `sync` or `read` still throws the error.
   */
  mark(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    // A mark never reached is told to the timeline (`failMark`): waits for it reject.
    if (this.#state.destroyed) {
      failMark(timeline, value, new DestroyedError("The WebGPU server was destroyed"));
      return;
    }
    const errors = this.encoder.errors;
    // Taken now: the errors recorded so far, and the checks of the launches made so far.
    const unreported = errors.peek(stream);
    const validated = this.encoder.validated(stream);
    let reachedAt: ((reached: bigint | Error) => void) | undefined;
    const reached = new Promise<bigint | Error>((resolve) => reachedAt = resolve);
    signalOnQueue(this.gpu.device.queue, {
      timeline: {
        set: (value) => reachedAt!(BigInt(value)),
      },
      value,
      onError: (cause) => {
        const message = `The queue failed to report completion of timeline value ${value}`;
        const error = new DriverError(message, { cause });
        errors.record(stream, error);
        reachedAt!(error);
      },
    });
    const checked = validated.catch((error: unknown) => error ?? new Error("validation failed"));
    this.#lastMark = Promise.all([reached, checked, this.#lastMark]).then(([at, refused]) => {
      if (at instanceof Error) return failMark(timeline, value, at);
      const closed = this.closedError();
      if (closed !== undefined) {
        errors.record(stream, closed);
        return failMark(timeline, value, closed);
      }
      const failure = unreported ?? refused;
      if (failure !== undefined) return failMark(timeline, value, failure);
      timeline.set(at);
    }).catch((error: unknown) => failMark(timeline, value, error)); // never settles otherwise
  }
}
