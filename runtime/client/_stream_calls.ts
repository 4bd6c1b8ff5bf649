/**
 * The client's calls that go through its held streams and its timeline (`waitFor`, `signal`,
 * `profile`, reads): {@linkcode StreamCalls} owns the held streams and the timeline; the client
 * passes the server and the checked stream.
 *
 * @module
 */

import { contiguousStrides, copyDescriptor } from "../core/allocation.ts";
import { arrayTypeOf, type TypedArray, type TypedArrayConstructor } from "../core/dtype.ts";
import type { Handle } from "../core/handle.ts";
import { type StreamId, withStream } from "../core/stream_id.ts";
import type { ComputeServer } from "../server/server.ts";
import type { TimelineSignal } from "../../sync/timeline_signal.ts";
import { CpuTimelineSignal } from "../../sync/cpu_signal.ts";
import { heldError, HeldStreams } from "./_held_streams.ts";
import { fromBytes } from "./_host_data.ts";
import type { Profiled } from "./options.ts";

/** Held streams, the timeline and the calls that use them. */
export class StreamCalls {
  /** Streams held by `waitFor`, and the errors of held calls. */
  readonly held: HeldStreams = new HeldStreams();
  #timeline: CpuTimelineSignal | undefined;
  /** The last value `signal` returned. */
  #marked = 0n;

  /** The timeline `signal` marks (made on first use). */
  get timeline(): CpuTimelineSignal {
    return this.#timeline ??= new CpuTimelineSignal();
  }

  /** See `ComputeClient.signal`. */
  signal(server: ComputeServer, stream: StreamId): bigint {
    const timeline = this.timeline;
    const current = timeline.value;
    const value = (this.#marked > current ? this.#marked : current) + 1n;
    this.#marked = value;
    this.held.runVoid(stream, [], [], () => {
      if (server.signal !== undefined) return server.signal(timeline, value, stream);
      // Without a native mark, `sync` covers every stream's submitted work.
      server.sync(stream).then(
        () => timeline.set(value),
        (error) => this.held.errors.record(stream, error),
      );
    });
    return value;
  }

  /** See `ComputeClient.waitFor` (the arguments are checked). */
  waitFor(
    signal: TimelineSignal,
    value: bigint | number,
    stream: StreamId,
    timeoutMs: number,
  ): void {
    const wait = signal.wait(value, { timeoutMs, signal: this.held.abortSignal });
    this.held.hold(stream, wait.catch((cause) => Promise.reject(heldError(cause, stream, value))));
  }

  /** See `ComputeClient.profile`. */
  async profile<T>(
    server: ComputeServer,
    fn: () => T | Promise<T>,
    stream: StreamId,
    perKernel: boolean,
  ): Promise<Profiled<T>> {
    const held = this.held;
    const start = () => server.startProfile(stream, perKernel ? { perKernel } : undefined);
    const token = await held.run(stream, [], [], start);
    const end = () => server.endProfile(stream, token);
    let result: T;
    try {
      result = await withStream(stream, fn);
    } catch (error) {
      // Close the window so the token does not leak, then report the original failure.
      await Promise.resolve(held.run(stream, [], [], end)).catch(() => {});
      throw error;
    }
    return { result, duration: await held.run(stream, [], [], end) };
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
    const keys = descriptors.map((descriptor) => descriptor.ref.slice.record);
    const bytes = await this.held.run(stream, keys, handles, () => {
      return server.read(descriptors, stream);
    });
    return bytes.map((chunk, i) => fromBytes(chunk, type ?? arrayTypeOf(handles[i].dtype)));
  }
}
