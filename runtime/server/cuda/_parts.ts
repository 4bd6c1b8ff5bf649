/**
 * {@linkcode CudaParts}: what a CUDA server owns, made in dependency order (each part receives
 * the parts made before it, none calls back into the server), and released in the reverse order
 * on destroy, best effort.
 *
 * @module
 */

import { resolveConfig } from "../../core/config.ts";
import { MultiStream } from "../../stream/event.ts";
import type { ServerState } from "../shared/server_state.ts";
import { CudaLauncher } from "./launch/launcher.ts";
import { StreamMemory } from "./memory/memory.ts";
import { PinnedPool } from "./memory/_staging.ts";
import {
  type CudaEvent,
  type CudaStream,
  CudaStreamBackend,
  EventPool,
  type HostWaitOptions,
  pollEvent,
  type WaitOwner,
} from "./queue/streams.ts";
import type { CopyContext } from "./memory/_write.ts";
import type { CudaDevice } from "./device.ts";
import { ModuleCache } from "./compile/module_cache.ts";
import type { CudaServerOptions, CudaServerStats } from "./options.ts";
import { CudaProfiler } from "./profile/profiler.ts";
import { signalEvents } from "./queue/_signal_events.ts";
import { CudaTimelineSignal } from "../../../sync/cuda_signal.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { Trace } from "../../core/trace.ts";
import { ServerMarks } from "./queue/_marks.ts";
import { PeerAccess } from "./memory/_peer.ts";

/** The parts of one CUDA server. */
export class CudaParts implements WaitOwner {
  readonly device: CudaDevice;
  readonly timeoutMs: number;
  readonly events: EventPool;
  readonly backend: CudaStreamBackend;
  readonly streams: MultiStream<CudaStream, CudaEvent>;
  readonly memory: StreamMemory;
  readonly pinned: PinnedPool;
  readonly modules: ModuleCache;
  readonly profiler: CudaProfiler;
  /** The events behind the server's timeline marks, for other CUDA servers' device waits. */
  readonly marks: ServerMarks;
  /** Which other devices' memory this context reaches directly (copies between servers). */
  readonly peers: PeerAccess = new PeerAccess();
  /** What copies work with. */
  readonly copy: CopyContext;
  /** What launches work with. */
  readonly launcher: CudaLauncher;
  readonly #state: ServerState;
  /** Timeline signals made by the server, destroyed with it at the latest. */
  readonly #signals = new Set<CudaTimelineSignal<Deno.PointerValue>>();

  /** Makes the parts of a server on `device`, whose usable state is `state`. */
  constructor(device: CudaDevice, options: CudaServerOptions, state: ServerState) {
    const config = resolveConfig(options);
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    const driver = device.driver;
    this.device = device;
    this.timeoutMs = timeoutMs;
    this.#state = state;
    const wait = { timeoutMs, owner: this };
    this.events = new EventPool(driver);
    this.backend = new CudaStreamBackend(driver, this.events, wait);
    this.streams = new MultiStream(this.backend, {
      maxStreams: config.maxStreams,
      maxPendingGc: options.maxPendingGc ?? 64,
    });
    this.memory = new StreamMemory({
      driver,
      streams: this.streams,
      events: this.events,
      asyncAlloc: (options.memoryPools ?? true) && device.attributes.memoryPools,
      memory: { maxAllocationSize: Math.min(2 ** 31, device.totalMemory), ...options.memory },
      freeBytes: () => device.memoryInfo().free,
    });
    this.pinned = new PinnedPool(driver, this.events);
    this.modules = new ModuleCache(driver, {
      nvrtcLibrary: options.nvrtcLibrary,
      computeCapability: device.attributes.computeCapability,
      maxSharedMemoryPerBlockOptin: device.attributes.maxSharedMemoryPerBlockOptin,
      driverVersion: device.driverVersion,
    });
    this.profiler = new CudaProfiler(driver, wait);
    this.marks = new ServerMarks({ driver, backend: this.backend, events: this.events, ...wait });
    this.copy = { driver, pinned: this.pinned, events: this.events, bind: this.bind };
    this.launcher = new CudaLauncher({
      ...this.copy,
      modules: this.modules,
      attributes: device.attributes,
      timeoutMs,
      memory: this.memory,
      streams: this.streams,
      profiler: this.profiler,
    });
  }

  /**
   * Makes the server's context current (see `CudaDevice.makeCurrent`): before every driver call
   * that runs after an `await` or from a timer, when another server may have made its own current.
   */
  readonly bind = (): void => {
    if (!this.#state.destroyed) this.device.makeCurrent();
  };

  /** True once the server was destroyed (waits and signals then refuse with `DESTROYED`). */
  get destroyed(): boolean {
    return this.#state.destroyed;
  }

  /** A timeline signal on `stream`'s CUDA stream, destroyed with the server at the latest. */
  timelineSignal(stream: StreamId): CudaTimelineSignal<Deno.PointerValue> {
    const events = signalEvents(this.device.driver, this.streams.stream(stream), this);
    const signal = new CudaTimelineSignal(events);
    this.#signals.add(signal);
    this.marks.adopt(signal); // other CUDA servers' streams may wait on its events
    return signal;
  }

  /** Samples the memory counter into the running trace, if any; returns `value`. */
  sampleMemory<T>(value: T): T {
    const usage = this.profiler.trace && this.memory.usage();
    if (usage) this.profiler.trace!.memory(usage.bytesInUse, usage.bytesReserved);
    return value;
  }

  /** Starts a trace: every launch timed, the waits the multi-stream decides recorded. */
  startTrace(): void {
    this.profiler.startTrace();
    this.streams.waits = this.profiler.trace;
    this.sampleMemory(undefined);
  }

  /** Stops the trace; resolves with it once its kernels completed. */
  stopTrace(info: Pick<Trace, "backend" | "device">): Promise<Trace> {
    this.sampleMemory(undefined);
    const stopped = this.profiler.stopTrace(info);
    this.streams.waits = undefined;
    return stopped;
  }

  /** A snapshot of the counters. */
  stats(): CudaServerStats {
    return {
      pinnedInFlight: this.pinned.inFlight,
      pinnedAllocations: this.pinned.allocations,
      moduleLoads: this.modules.loads,
      events: this.events.size,
      streams: this.backend.streams.length,
    };
  }

  /**
   * Resolves once the work enqueued so far on every stream completed and the GC settled every
   * task (rejects with a failed wait: a driver error, `TIMEOUT`, `DESTROYED`).
   */
  async completeAll(): Promise<void> {
    const events = this.backend.streams.map((stream) => this.backend.flush(stream));
    try {
      const wait = this.wait("the synchronization of a stream");
      for (const event of events) await pollEvent(this.device.driver, event.handle, wait);
    } finally {
      for (const event of events) this.events.release(event);
    }
    await this.streams.drain();
  }

  /** The options of a host wait for `what` ("a read"): the timeout, the server's state. */
  wait(what: string): HostWaitOptions {
    return { timeoutMs: this.timeoutMs, what, owner: this };
  }

  /**
   * Releases every part, best effort and in order: after a sticky error the driver refuses
   * frees, yet the context must still be released. Device pages are freed in their streams'
   * order; pinned buffers whose copies have not completed are left allocated rather than freed
   * under the device.
   */
  destroy(): void {
    const steps = [
      // Pending GC tasks fail with DESTROYED now (their payloads stay held): no poll outlives us.
      () => this.streams.pollGc(),
      ...[...this.#signals].map((signal) => () => signal.destroy()),
      () => this.marks.destroy(),
      () => this.profiler.destroy(),
      () => this.backend.join(),
      () => this.memory.destroy(),
      () => this.backend.destroy(),
      () => this.pinned.destroy(),
      () => this.modules.clear(),
      () => this.events.destroy(),
    ];
    for (const step of steps) {
      try {
        step();
      } catch { /* the context is going away; its memory with it */ }
    }
    this.device.destroy();
  }
}
