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
  hostWaiter,
  type HostWaitOptions,
  markComplete,
  waitForEvent,
  type WaitOwner,
} from "./queue/streams.ts";
import type { CudaDriver } from "./_ffi.ts";
import { drainInBackground, parkedReturned } from "./_drain.ts";
import { blockUntilComplete, releaseWake, type WakeOwner } from "./queue/_wake.ts";
import { LaunchesInFlight } from "./queue/_in_flight.ts";
import { faultWitnesses } from "./_fault.ts";
import type { CopyContext } from "./memory/_write.ts";
import type { CudaDevice } from "./device.ts";
import { ModuleCache } from "./compile/module_cache.ts";
import {
  type CudaServerOptions,
  type CudaServerStats,
  hostWaitSpinUs,
  hostWaitTimeout,
} from "./options.ts";
import { CudaProfiler } from "./profile/profiler.ts";
import { signalEvents } from "./queue/_signal_events.ts";
import { CudaTimelineSignal } from "../../../sync/cuda_signal.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { Trace } from "../../core/trace.ts";
import { ServerMarks } from "./queue/_marks.ts";
import { PeerAccess } from "./memory/_peer.ts";
import { orderOn } from "./memory/_copy.ts";
import { failMark } from "../shared/_fail_mark.ts";
import { DestroyedError, TimeoutError } from "../../core/errors.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";

/**
 * How long `destroy` may wait on the JavaScript thread for work in flight (a blocking wait the
 * device wakes, `queue/_wake.ts`) before it leaves the drain to the background. Short work (most
 * destroys, and every test's) is done by then, so the context is released before `destroy`
 * returns and nothing runs on after it; a long kernel (a second) drains in the background
 * instead of blocking the thread.
 */
const DESTROY_GRACE_MS = 250;

/** Whether any of `events` is still not ready after up to `graceMs`; a failed one goes to `faults`. */
function busy(
  driver: CudaDriver,
  owner: WakeOwner,
  events: Deno.PointerValue[],
  graceMs: number,
  faults: unknown[],
): boolean {
  const deadline = performance.now() + graceMs;
  for (const event of events) {
    try {
      const left = Math.max(0, deadline - performance.now());
      if (!blockUntilComplete(driver, owner, event, left)) return true;
    } catch (error) {
      faults.push(error);
    }
  }
  return false;
}

/** The parts of one CUDA server. */
export class CudaParts implements WaitOwner {
  readonly device: CudaDevice;
  readonly timeoutMs: number;
  /** Microseconds a host wait queries its event before it parks (`waitSpinUs`). */
  readonly waitSpinUs: number;
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
  readonly #inFlight: { readonly witness: LaunchesInFlight; release(): void };
  /** Timeline signals made by the server, destroyed with it at the latest. */
  readonly #signals = new Set<CudaTimelineSignal<Deno.PointerValue>>();
  readonly #ended = Promise.withResolvers<void>();
  /**
   * How the work enqueued before `destroy` ended: resolves once it drained, rejects with the
   * fault that ended it (a sticky error) or `TIMEOUT` (it never drained). A copy's source side
   * whose GC task was cut short by `destroy` takes this verdict (`memory/_peer.ts`).
   */
  readonly ended: Promise<void> = this.#ended.promise;

  /** Makes the parts of a server on `device`, whose usable state is `state`. */
  constructor(device: CudaDevice, options: CudaServerOptions, state: ServerState) {
    const config = resolveConfig(options);
    const timeoutMs = hostWaitTimeout(options);
    const driver = device.driver;
    this.device = device;
    this.timeoutMs = timeoutMs;
    this.waitSpinUs = hostWaitSpinUs(options);
    this.#state = state;
    this.ended.catch(() => {}); // told to the copies that asked
    const wait = { timeoutMs, owner: this };
    this.events = new EventPool(driver);
    this.backend = new CudaStreamBackend(driver, this.events, wait);
    this.streams = new MultiStream(this.backend, {
      maxStreams: config.maxStreams,
      maxPendingGc: options.maxPendingGc ?? 64,
      batchGc: true, // one GC task per batch of cross-stream launches, not one per launch
      bind: () => this.bind(),
    });
    this.memory = new StreamMemory({
      driver,
      streams: this.streams,
      events: this.events,
      asyncAlloc: (options.memoryPools ?? true) && device.attributes.memoryPools,
      memory: { maxAllocationSize: Math.min(2 ** 31, device.totalMemory), ...options.memory },
      freeBytes: () => device.memoryInfo().free,
      owner: this,
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
    // One launch log per context (servers of a device share it), for the errors of its faults.
    this.#inFlight = faultWitnesses(driver).register(device.context, () => new LaunchesInFlight());
    this.launcher = new CudaLauncher({
      ...this.copy,
      modules: this.modules,
      attributes: device.attributes,
      timeoutMs,
      memory: this.memory,
      streams: this.streams,
      profiler: this.profiler,
      owner: this,
      inFlight: this.#inFlight.witness,
    });
  }

  /** The waits of `destroy`, which go on once the server is marked destroyed. */
  readonly #drainOwner: WakeOwner = { destroyed: false, bind: () => this.device.makeCurrent() };

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
    const events = signalEvents(
      this.device.driver,
      this.streams.stream(stream),
      this,
      this.timeoutMs,
    );
    const signal = new CudaTimelineSignal(events);
    this.#signals.add(signal);
    this.marks.adopt(signal); // other CUDA servers' streams may wait on its events
    return signal;
  }

  /** `CudaServer.signal`: the mark rides on the GC task of the GC stream's wait on `stream`. */
  signal(timeline: TimelineSignal, value: bigint, stream: StreamId): void {
    using ordered = orderOn(this, stream, []);
    this.marks.record(timeline, value, ordered.stream);
    ordered.gc({
      [Symbol.dispose]: () => {
        if (!this.#state.destroyed) timeline.set(value);
        else failMark(timeline, value, new DestroyedError("The CUDA server was destroyed"));
      },
      fail: (error: unknown) => failMark(timeline, value, error), // the GC wait failed
    });
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
      await Promise.all(events.map((event) => waitForEvent(this.device.driver, event, wait)));
      for (const event of events) markComplete(event); // their launches are no longer in flight
    } finally {
      for (const event of events) this.events.release(event);
    }
    // Every GC event was recorded before these completed ones: settle the tasks now rather
    // than when the GC's parked waits resume.
    this.streams.pollGc();
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
   * under the device. Pending host waits reject with `DESTROYED` at once. Nothing here waits on
   * the device: the returned promise is the drain, in the background, that ends with the
   * context's release (see {@linkcode CudaParts.#drain}).
   */
  destroy(): Promise<void> {
    hostWaiter(this.device.driver, this).destroy();
    const drain: Deno.PointerValue[] = [];
    const faults: unknown[] = []; // how the work in flight ended (`ended`)
    // After the join every stream waits for all the others: one event each covers them all.
    const record = () => drain.push(...this.backend.streams.map((s) => this.#drainEvent(s)));
    const steps = [
      // The open batches of cross-stream pins become GC tasks while the streams are alive.
      () => this.streams.closeBatches(),
      // Pending GC tasks fail with DESTROYED now (their payloads stay held): no poll outlives us.
      () => this.streams.pollGc(),
      ...[...this.#signals].map((signal) => () => signal.destroy()),
      () => this.marks.destroy(),
      () => this.profiler.destroy(),
      () => this.backend.join(),
      () => this.memory.destroy(),
      record,
      () => this.backend.destroy(),
      () => this.pinned.destroy(),
      () => this.modules.clear(),
      () => this.#inFlight.release(), // a context retained again starts a fresh log
    ];
    for (const step of steps) {
      try {
        step();
      } catch (error) { // the context is going away; its memory with it
        if (step === record) faults.push(error); // a sticky error: the work ended with it
      }
    }
    // Idle (or faulted: a sticky error ends the context's work) within a short grace: release
    // now, as the caller may create a context on the device next and a test's sanitizer looks
    // for calls left running; only longer work drains in the background, and so do host waits
    // parked on the pool's threads, whose events stay until they returned (`_drain.ts`).
    const idle = !busy(this.device.driver, this.#drainOwner, drain, DESTROY_GRACE_MS, faults);
    const waiter = hostWaiter(this.device.driver, this);
    if (idle && waiter.promptCalls().length === 0) {
      this.#release(drain);
      this.#end(faults, true);
      return parkedReturned({ waiter, timeoutMs: this.timeoutMs }).then(() => {});
    }
    this.device.leaveCurrent(); // released later: no call of this thread may act in it meanwhile
    return this.#drain(drain, faults, idle);
  }

  /** Settles {@linkcode ended}: with the first fault, else `TIMEOUT` unless `drained`. */
  #end(faults: readonly unknown[], drained: boolean): void {
    if (faults.length > 0 || !drained) {
      const what = "the work of a destroyed CUDA server";
      this.#ended.reject(faults[0] ?? new TimeoutError(what, this.timeoutMs, "not drained"));
    } else this.#ended.resolve();
  }

  /** Destroys the events and releases the context, leaving another current context current. */
  #release(events: Deno.PointerValue[], background = false): void {
    const { symbols, out64 } = this.device.driver;
    const other = symbols.cuCtxGetCurrent(out64) === 0 ? out64[0] : 0n;
    try {
      this.device.makeCurrent(); // the event destroys act in this context
      releaseWake(this);
      releaseWake(this.#drainOwner);
      for (const event of events) symbols.cuEventDestroy_v2(event);
      this.events.destroy();
    } catch { /* released with the context */ }
    this.device.leaveCurrent();
    if (other !== 0n) symbols.cuCtxSetCurrent(Deno.UnsafePointer.create(other));
    // Not awaited: on a device that never completes, the release may never return.
    if (background) void this.device.releaseInBackground();
    else this.device.destroy();
  }

  #drainEvent(stream: CudaStream): Deno.PointerValue {
    const { driver } = this.device;
    driver.check(driver.symbols.cuEventCreate(driver.out64, 3), "cuEventCreate(drain)");
    const event = driver.pointerAt();
    driver.check(driver.symbols.cuEventRecord(event, stream.handle), "cuEventRecord(drain)");
    return event;
  }

  /** The background drain after destroy (`_drain.ts`, where its invariant is). */
  #drain(events: Deno.PointerValue[], faults: unknown[], idle: boolean): Promise<void> {
    const { driver } = this.device;
    return drainInBackground({
      idle,
      device: this.device,
      timeoutMs: this.timeoutMs,
      events,
      faults,
      waiter: hostWaiter(driver, this),
      busy: (ms) => busy(driver, this.#drainOwner, events, ms, faults),
      release: (background) => this.#release(events, background),
      end: (drained) => this.#end(faults, drained),
    });
  }
}
