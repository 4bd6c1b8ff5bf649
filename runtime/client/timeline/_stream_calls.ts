/**
 * The client's calls that go through its held streams and its timeline (`waitFor`, `signal`,
 * `profile`, reads): {@linkcode StreamCalls} owns the held streams, the timeline and the order of
 * its marks; the client passes the server and the checked stream.
 *
 * @module
 */

import { contiguousStrides, copyDescriptor } from "../../core/allocation.ts";
import { arrayTypeOf, type TypedArray, type TypedArrayConstructor } from "../../core/dtype.ts";
import { Handle } from "../../core/handles/handle.ts";
import type { KernelMetadata } from "../../core/kernel.ts";
import { resolveStreamId, type StreamId, withStream } from "../../core/stream_id.ts";
import {
  assertNonNegativeInteger,
  describe,
  optionalBoolean,
} from "../../core/_argument_checks.ts";
import type { ComputeServer, ProfilingToken } from "../../server/server.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import { toTimelineValue } from "../../../sync/_checks.ts";
import { ClientTimeline } from "./_client_timeline.ts";
import { UnsupportedError } from "../../core/errors.ts";
import { heldError, HeldStreams, type Keepable, keepRef } from "./_held_streams.ts";
import { Texture } from "../textures/texture.ts";
import { TextureView } from "../textures/texture_view.ts";
import { MarkOrder } from "./_mark_order.ts";
import { Closing } from "./_closing.ts";
import { fromBytes } from "../_host_data.ts";
import { checkOptions } from "../_checks.ts";
import type { CopyEnd } from "../_copy_to.ts";
import { LaunchRecord, snapshotParams } from "../_launch_record.ts";
import type { ExecuteOptions, Profiled, WaitForOptions } from "../options.ts";
import type { ProfileOptions } from "../../core/trace.ts";

/** Clients named so far. */
let clients = 0;

/** Held streams, the timeline and the calls that use them. */
export class StreamCalls {
  /** Streams held by `waitFor`, and the errors of held calls. */
  readonly held: HeldStreams = new HeldStreams();
  #timeline: ClientTimeline | undefined;
  /** Names the client in the timeline's errors (`client 2 (cuda, "sim device 1")`). */
  #producer = "a compute client";
  /** Why the timeline is closed (the client's `DESTROYED`), once it is. */
  #closed: unknown = undefined;
  /** Marks reach the server in value order (see `_mark_order.ts`). */
  readonly #marks = new MarkOrder();
  /** The last value `signal` returned. */
  #marked = 0n;
  /** Per stream, the highest value of the own timeline a `waitFor` holds it for, until reached. */
  readonly #ownWaits = new Map<StreamId, bigint>();
  /** Settles the profiles whose `fn` is still running when the client is destroyed. */
  readonly #closing = new Closing();

  /** Numbers the client of `server` for the timeline's errors. */
  name(server: ComputeServer): void {
    const { backend, deviceName } = server.properties;
    this.#producer = `client ${++clients} (${backend}, "${deviceName}")`;
  }

  /** The timeline `signal` marks (made on first use). */
  get timeline(): ClientTimeline {
    if (this.#timeline === undefined) {
      this.#timeline = new ClientTimeline(this.#producer);
      if (this.#closed !== undefined) this.#timeline.close(this.#closed);
    }
    return this.#timeline;
  }

  /**
   * Settles every held call with `error` and rejects the waits for timeline values not reached
   * (they never will be). Idempotent.
   */
  close(error: unknown): void {
    this.#closed ??= error;
    this.held.close(error);
    this.#timeline?.close(error);
    this.#closing.close(error);
  }

  /** See `ComputeClient.signal`. */
  signal(server: ComputeServer, stream: StreamId): bigint {
    const timeline = this.timeline;
    const current = timeline.value;
    const value = (this.#marked > current ? this.#marked : current) + 1n;
    const waited = this.#ownWaits.get(stream);
    if (waited !== undefined && waited >= value) {
      // Only this mark or a later one reaches `waited`, and every later mark is issued after this
      // one (`_mark_order.ts`), which the stream holds behind that wait: it would never settle.
      throw new UnsupportedError(
        `Cannot mark stream ${stream}: it waits (waitFor) for value ${waited} of this client's ` +
          `own timeline, which only this mark (${value}) or a later one can reach, and they would ` +
          `wait behind it for good; mark on another stream first`,
      );
    }
    this.#marked = value;
    timeline.marked(value);
    // A mark that is never issued, or whose work fails, fails the timeline from its value on:
    // waits for it reject instead of hanging (a server with native marks calls `fail` itself).
    const fail = (error: unknown) => timeline.fail(value, error);
    // Not reached before the device work of other clients that the stream runs behind.
    const deps = this.held.deps.pending(stream);
    if (deps !== undefined) timeline.gate(value, Promise.all(deps.map((dep) => dep.settled)));
    try {
      this.#marks.issue(this.held, stream, fail, () => {
        if (server.signal !== undefined) return server.signal(timeline, value, stream);
        // Without a native mark, `sync` covers every stream's submitted work.
        server.sync(stream).then(
          () => timeline.set(value),
          (error) => {
            this.held.errors.record(stream, error);
            fail(error);
          },
        );
      });
    } catch (error) {
      fail(error);
      throw error;
    }
    return value;
  }

  /** See `ComputeClient.waitFor`; checks the arguments. */
  waitFor(
    server: ComputeServer,
    signal: TimelineSignal,
    value: bigint | number,
    options: WaitForOptions,
  ): void {
    checkOptions(options, ["stream", "timeoutMs"], "waitFor");
    const stream = resolveStreamId(options.stream);
    const timeoutMs = options.timeoutMs ?? 0;
    assertNonNegativeInteger(timeoutMs, "timeoutMs");
    if (typeof signal?.wait !== "function") {
      throw new TypeError(`signal must be a TimelineSignal, got ${describe(signal)}`);
    }
    toTimelineValue(value, "value"); // named as the caller knows it (the signal says "target")
    // On the device where the backend can (CUDA: a mark of a CUDA server is an event to wait on),
    // unless calls are held here already (the wait must come after them) or a timeout is asked.
    if (timeoutMs === 0 && !this.held.held(stream) && !signal.isReached(value)) {
      if (server.waitSignal?.(signal, BigInt(value), stream) === true) {
        // The device runs the stream's later work whatever becomes of the value: what the
        // host tells of that work waits for the value's own verdict (see `_device_deps.ts`).
        const verdict = signal.wait(value, { signal: this.held.abortSignal });
        this.held.deps.waitOn(
          stream,
          verdict.catch((cause) => {
            throw heldError(cause, stream, value);
          }),
        );
        return;
      }
    }
    const wait = signal.wait(value, { timeoutMs, signal: this.held.abortSignal });
    if (signal === this.#timeline) this.#ownWait(stream, BigInt(value), wait);
    this.held.hold(stream, wait.catch((cause) => Promise.reject(heldError(cause, stream, value))));
  }

  /** Notes that `stream` is held until this client's own timeline reaches `value`. */
  #ownWait(stream: StreamId, value: bigint, wait: Promise<void>): void {
    const known = this.#ownWaits.get(stream);
    if (known === undefined || known < value) this.#ownWaits.set(stream, value);
    const done = () => {
      if (this.#ownWaits.get(stream) === value) this.#ownWaits.delete(stream);
    };
    wait.then(done, done);
  }

  /**
   * A launch made while some stream is held (see `ComputeClient.execute`): its own launch record,
   * run in `options.stream`'s held order and after held calls on its buffers' memory.
   */
  executeHeld<K extends KernelMetadata>(
    server: ComputeServer<K>,
    kernel: K,
    options: ExecuteOptions,
  ): void {
    const launch = new LaunchRecord<K>();
    launch.fill(kernel, options);
    launch.params = snapshotParams(launch.params); // it runs later: the values of this call
    const stream = resolveStreamId(options.stream);
    // Every check of the launch's own arguments runs now, as on an idle stream; `execute`
    // runs them again when the held calls before it have run.
    try {
      server.checkLaunch?.(launch, stream);
    } catch (error) {
      throw launch.named(server, error);
    }
    const refs = launch.args.buffers;
    const given = options.buffers ?? [];
    const list = Array.isArray(given) ? given : Object.values(given);
    // Handles and textures are kept alive until the held launch ran.
    const handles = list.flatMap((item): Keepable[] =>
      item instanceof Handle
        ? [item]
        : item instanceof Texture || item instanceof TextureView
        ? [keepRef(item.ref())]
        : []
    );
    this.held.runVoid(stream, refs.map((ref) => ref.slice.record), handles, () => {
      server.execute(launch, stream);
    });
  }

  /** One end of a `copyTo`: `server` with these held streams, on `stream` (or the current). */
  end(server: ComputeServer, stream: StreamId | undefined): CopyEnd {
    return { server, held: this.held, stream: resolveStreamId(stream) };
  }

  /**
   * See `ComputeClient.profile`. The window opens and `fn` runs before this returns (no `await`
   * first), so the calls `fn` makes take effect in program order: a read made right after
   * `profile()` sees them, and their handles may be disposed at once.
   */
  profile<T>(
    server: ComputeServer,
    fn: () => T | Promise<T>,
    options: ProfileOptions,
  ): Promise<Profiled<T>> {
    let stream: StreamId, perKernel: boolean;
    try {
      if (typeof fn !== "function") {
        throw new TypeError(`fn must be a function, got ${describe(fn)}`);
      }
      checkOptions(options, ["stream", "perKernel"], "profile");
      stream = resolveStreamId(options.stream);
      perKernel = optionalBoolean(options.perKernel, "profile: options.perKernel");
    } catch (error) {
      return Promise.reject(error);
    }
    const held = this.held;
    const start = () => server.startProfile(stream, perKernel ? { perKernel } : undefined);
    let token: ProfilingToken | Promise<ProfilingToken>;
    try {
      token = held.run(stream, [], [], start); // at once, or in the stream's held order
    } catch (error) {
      return Promise.reject(error);
    }
    let result: T | Promise<T>;
    try {
      result = withStream(stream, fn);
    } catch (error) {
      result = Promise.reject(error);
    }
    return this.#endProfile(server, stream, token, result);
  }

  async #endProfile<T>(
    server: ComputeServer,
    stream: StreamId,
    started: ProfilingToken | Promise<ProfilingToken>,
    pending: T | Promise<T>,
  ): Promise<Profiled<T>> {
    const close = (token: ProfilingToken) =>
      this.held.run(stream, [], [], () => server.endProfile(stream, token));
    // Handled now: the stream's wait may fail while fn runs (reported below, after fn's result).
    if (started instanceof Promise) started.catch(() => {});
    // `destroy()` settles the profile at once, also while fn still waits on something of its own.
    const [result] = await Promise.allSettled([this.#closing.race(pending)]);
    if (result.status === "rejected") {
      // fn's own failure first, at once: a window held behind a stream's wait (one that may never
      // be released, fn having failed) still closes, in the stream's order, when it opens.
      if (started instanceof Promise) {
        started.then(async (t) => void await close(t)).catch(() => {});
      } else await Promise.resolve(close(started)).catch(() => {});
      throw result.reason;
    }
    // A window that never opened (its stream's wait failed) has nothing to close.
    const token = await started;
    return { result: result.value, duration: await close(token) };
  }

  /**
   * Reads checked handles in one round trip, each as `type` or its own type, after the calls
   * held on the stream or on their memory.
   */
  async read(
    server: ComputeServer,
    handles: readonly Handle[],
    type: TypedArrayConstructor<TypedArray> | undefined,
    stream: StreamId,
  ): Promise<TypedArray[]> {
    const descriptors = handles.map((handle) => {
      const size = handle.size();
      return copyDescriptor(handle.ref(), [size], contiguousStrides([size]), 1);
    });
    // Another client's handle is refused now, not once the held calls before the read ran.
    if (this.held.busy) { for (const d of descriptors) server.checkRef?.(d.ref); }
    const keys = descriptors.map((descriptor) => descriptor.ref.slice.record);
    const bytes = await this.held.run(stream, keys, handles, () => {
      // Device work of other clients the read's bytes run behind (see `_device_deps.ts`).
      const deps = this.held.deps.pending(stream, keys);
      const read = server.read(descriptors, stream);
      return deps === undefined ? read : this.held.deps.settle(read, deps);
    });
    return bytes.map((chunk, i) => fromBytes(chunk, type ?? arrayTypeOf(handles[i].dtype)));
  }
}
