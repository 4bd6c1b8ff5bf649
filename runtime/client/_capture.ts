/**
 * Launch capture (`ComputeClient.capture`): while a capture runs, the client records the launches
 * made on its stream instead of running them, holding a clone of every handle they use, and
 * refuses what a graph cannot hold (allocation, host reads and writes, syncs, waits on signals,
 * marks, launches on another stream, nested captures) with `CAPTURE_UNSUPPORTED` at the call.
 * At the end the server prepares the launches once (`captureGraph`); a {@linkcode LaunchGraph}
 * replays them (the server's graph's own `replay`, called directly), or launch by launch on a server
 * without graphs.
 *
 * @module
 */

import { DestroyedError, UnsupportedError } from "../core/errors.ts";
import { rewriteParams } from "./_graph_params.ts";
import { Handle } from "../core/handles/handle.ts";
import type { KernelMetadata, KernelParams } from "../core/kernel.ts";
import { resolveStreamId, type StreamId, withStream } from "../core/stream_id.ts";
import { describe } from "../core/_argument_checks.ts";
import { checkOptions } from "./_checks.ts";
import type { ComputeServer } from "../server/server.ts";
import type { HeldStreams, Keepable } from "./timeline/_held_streams.ts";
import type { LostMemory } from "./timeline/_lost_memory.ts";
import { Closing } from "./timeline/_closing.ts";
import { LaunchRecord, snapshotParams } from "./_launch_record.ts";
import { OwnParams } from "./_helper_params.ts";
import type { ExecuteOptions } from "./options.ts";

/**
 * Options of `ComputeClient.capture`.
 *
 * @example
 * ```ts
 * import type { CaptureOptions } from "@gpucompute/runtime";
 * const options: CaptureOptions = { stream: 1, label: "step" };
 * ```
 */
export interface CaptureOptions {
  /**
   * The stream whose launches are recorded (`fn` runs with it as the current stream, as in
   * `profile`), and that replays run on.
   * @default {the current stream}
   */
  readonly stream?: StreamId;
  /**
   * The graph's name in errors, traces and profiles (a replay's kernels show as `label/kernel`).
   * @default {"graph <n>"}
   */
  readonly label?: string;
}

/**
 * Options of {@linkcode LaunchGraph.replay}.
 *
 * @example
 * ```ts
 * import type { ReplayOptions } from "@gpucompute/runtime";
 * const options: ReplayOptions = { params: { dt: 0.005 } };
 * ```
 */
export interface ReplayOptions {
  /**
   * New values of named params, by name, for every recorded launch that has that param; they
   * stay for later replays. A name no launch has, or a value of another layout, is a
   * `KernelArgumentError` (nothing changes, nothing runs).
   * @default {the values of the last replay (at first, those given at capture)}
   */
  readonly params?: KernelParams;
}

/** The client's side of the graphs: its capture in progress and its live graphs. */
export class CaptureGate {
  #recording: {
    stream: StreamId;
    launches: LaunchRecord<KernelMetadata>[];
    held: Handle[];
    own: OwnParams;
    lost: LostMemory;
  } | undefined;
  readonly #graphs = new Set<LaunchGraph>();
  #closed: unknown;
  /** Settles a capture whose `fn` is still running when the client is destroyed. */
  readonly #closing = new Closing();
  #count = 0;
  /** Whether a capture is recording, as a field (read without a call on every replay). */
  recording = false;

  /** Whether a capture is recording. */
  get active(): boolean {
    return this.#recording !== undefined;
  }

  /** Throws `CAPTURE_UNSUPPORTED` for `call` while a capture records. */
  refuse(call: string): void {
    if (this.#recording === undefined) return;
    throw new UnsupportedError(
      `client.${call}() cannot run inside a capture (stream ${this.#recording.stream}): a ` +
        "graph records launches only (no allocation, host reads or writes, sync, signal waits)",
      "CAPTURE_UNSUPPORTED",
    );
  }

  /** Records a launch (see `ComputeClient.execute`): checked now, its handles held. */
  record<K extends KernelMetadata>(
    server: ComputeServer<K>,
    kernel: K,
    options: ExecuteOptions,
  ): void {
    const recording = this.#recording!;
    const stream = resolveStreamId(options.stream);
    if (stream !== recording.stream) {
      throw new UnsupportedError(
        `execute on stream ${stream} during a capture of stream ${recording.stream}`,
        "CAPTURE_UNSUPPORTED",
      );
    }
    const buffers = options.buffers;
    const held = Array.isArray(buffers) ? buffers.filter((b) => b instanceof Handle) : [];
    for (const handle of held) recording.lost.check(handle.slice.record); // never defined
    const clones = held.map((handle) => handle.clone()); // INVALID_HANDLE once disposed
    try {
      const launch = new LaunchRecord<K>();
      const cloned = Array.isArray(buffers)
        ? buffers.map((b) => b instanceof Handle ? clones[held.indexOf(b)] : b)
        : buffers;
      launch.fill(kernel, { ...options, buffers: cloned });
      launch.params = snapshotParams(launch.params); // replayed later: the values of this call
      for (const ref of launch.args.buffers) server.checkRef?.(ref); // another client's handle
      server.checkLaunch?.(launch, stream);
      recording.launches.push(launch as LaunchRecord<KernelMetadata>);
      recording.own.add(launch, options);
      recording.held.push(...clones);
    } catch (error) {
      for (const clone of clones) clone.dispose();
      throw error;
    }
  }

  /** See `ComputeClient.capture`. */
  async capture<K extends KernelMetadata>(
    serverOf: () => ComputeServer<K>,
    held: HeldStreams,
    fn: () => void | Promise<void>,
    options: CaptureOptions,
  ): Promise<LaunchGraph> {
    const server = serverOf(); // DESTROYED on a destroyed client
    if (typeof fn !== "function") throw new TypeError(`fn must be a function, got ${describe(fn)}`);
    checkOptions(options, ["stream", "label"], "capture");
    if (options.label !== undefined && typeof options.label !== "string") {
      throw new TypeError(`label must be a string, got ${describe(options.label)}`);
    }
    const stream = resolveStreamId(options.stream);
    this.refuse("capture"); // nested
    const label = options.label ?? `graph ${++this.#count}`;
    const recording = {
      stream,
      launches: [] as LaunchRecord<KernelMetadata>[],
      held: [] as Handle[],
      own: new OwnParams(),
      lost: held.lost,
    };
    this.#recording = recording;
    this.recording = true;
    const dropAll = () => recording.held.forEach((handle) => handle.dispose());
    try {
      // fn's calls run on the capture's stream, as in `profile`; `destroy()` ends it at once.
      await this.#closing.race(withStream(stream, fn));
    } catch (error) {
      dropAll();
      throw error;
    } finally {
      this.#recording = undefined;
      this.recording = false;
    }
    const launches = recording.launches as LaunchRecord<K>[];
    let native: NativeGraph | undefined;
    try {
      if (server.captureGraph !== undefined) {
        native = await server.captureGraph(launches, stream, label);
      }
      if (this.#closed !== undefined) throw this.#closed;
    } catch (error) {
      native?.[Symbol.dispose]();
      dropAll();
      throw error;
    }
    const graph = new LaunchGraph({
      gate: this,
      server,
      held,
      stream,
      label,
      native,
      launches,
      handles: recording.held,
      own: recording.own,
    });
    this.#graphs.add(graph);
    return graph;
  }

  /** Forgets a disposed graph. */
  forget(graph: LaunchGraph): void {
    this.#graphs.delete(graph);
  }

  /** Why graphs may not replay (the client's `DESTROYED`), once the client is destroyed. */
  get closed(): unknown {
    return this.#closed;
  }

  /** The client is destroyed: every graph gives back what it holds. */
  close(error: unknown): void {
    this.#closed ??= error;
    this.#closing.close(error);
    this.#recording = undefined;
    this.recording = false;
    for (const graph of [...this.#graphs]) graph.dispose();
  }
}

/** The records of the memory `parts`' launches may write: all of it where the server cannot tell. */
function writtenBy({ server, launches }: GraphParts): readonly object[] {
  const written = (launch: LaunchRecord<KernelMetadata>) =>
    server.writtenBuffers?.(launch) ?? launch.args.buffers;
  return [...new Set(launches.flatMap((l) => written(l).map((ref) => ref.slice.record)))];
}

/** What a server's `captureGraph` makes: replayed by calling it, no server method between. */
type NativeGraph = Disposable & { replay(stream: StreamId, params?: KernelParams): void };

interface GraphParts {
  readonly gate: CaptureGate;
  readonly server: ComputeServer;
  readonly held: HeldStreams;
  readonly stream: StreamId;
  readonly label: string;
  readonly native: NativeGraph | undefined;
  readonly launches: readonly LaunchRecord<KernelMetadata>[];
  readonly handles: readonly Handle[];
  /** The params a helper set itself: a replay may not change them. */
  readonly own: OwnParams;
}

/**
 * Launches captured once by `ComputeClient.capture`, replayed many times with almost no host
 * cost: the whole sequence runs on the capture's stream, ordered against other streams like the
 * same launches would be. It holds the handles its launches use until it is disposed.
 *
 * @example Replay a step 1,000 times
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * const step = {
 *   source: `struct P { dt: f32 }
 * @group(0) @binding(0) var<storage, read_write> x: array<f32>;
 * @group(0) @binding(1) var<uniform> p: P;
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) {
 *   if (i.x < arrayLength(&x)) { x[i.x] += p.dt; } }`,
 * };
 * using x = client.zeros(1024);
 * using graph = await client.capture(() => {
 *   client.execute(step, { threads: 1024, buffers: [x], params: { dt: 0.01 } });
 * });
 * for (let i = 0; i < 1000; i++) graph.replay();
 * graph.replay({ params: { dt: 0.005 } }); // new params, no new capture
 * console.log((await client.read(x))[0]); // about 10.005: 1,000 steps of 0.01, one of 0.005
 * ```
 */
export class LaunchGraph implements Disposable {
  readonly #parts: GraphParts;
  readonly #records: object[];
  /** What a held replay keeps until it ran: the graph's handles, and the graph itself. */
  readonly #kept: Keepable[];
  #disposed = false;
  #released = false;
  /** The memory the launches may write (`ComputeServer.writtenBuffers`), once asked. */
  #written: readonly object[] | undefined;
  /** Held replays not run (or failed) yet: `dispose` releases the graph after the last. */
  #leases = 0;

  /** Made by `ComputeClient.capture` only. */
  constructor(parts: GraphParts) {
    this.#parts = parts;
    this.#records = [
      ...new Set(parts.launches.flatMap((l) => l.args.buffers.map((ref) => ref.slice.record))),
    ];
    const lease = () => {
      this.#leases++;
      return { dispose: () => --this.#leases === 0 && this.#disposed && this.#release() };
    };
    this.#kept = [...parts.handles, { clone: lease }];
  }

  /** The graph's name (`CaptureOptions.label`). */
  get label(): string {
    return this.#parts.label;
  }

  /** The stream the graph was captured on and replays on. */
  get stream(): StreamId {
    return this.#parts.stream;
  }

  /** The number of launches recorded. */
  get launches(): number {
    return this.#parts.launches.length;
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Runs the recorded launches, in order, on the graph's stream; `params` first rewrite named
   * params in place. `DESTROYED` after dispose or after the client was destroyed.
   */
  replay(options?: ReplayOptions): void {
    const parts = this.#parts, gate = parts.gate, native = parts.native;
    // The client's destroy disposes every graph first: one check covers both.
    if (this.#disposed) {
      throw gate.closed ?? new DestroyedError(`Launch graph '${parts.label}' was disposed`);
    }
    if (gate.recording) gate.refuse("replay"); // inside a capture
    const lost = parts.held.lost; // memory a failed call left undefined after the capture
    if (lost.any) { for (const record of this.#records) lost.check(record); }
    const deps = parts.held.deps; // device work of other clients the graph's memory runs behind
    if (deps.any) deps.use(parts.stream, this.#records, this.#written ??= writtenBy(parts));
    if (options === undefined && native !== undefined && parts.held.quiet(parts.stream)) {
      return native.replay(parts.stream); // the short path: one registration, nothing held
    }
    this.#replayHeld(options);
  }

  /**
   * A replay with options, or while the client holds a stream. Out of `replay`: its closure
   * would make V8 allocate a context on every replay.
   */
  #replayHeld(options: ReplayOptions | undefined): void {
    const parts = this.#parts, native = parts.native;
    let params: KernelParams | undefined;
    if (options !== undefined) {
      checkOptions(options, ["params"], "replay"); // a misspelt `params` would replay the old
      params = snapshotParams(options.params); // kept for later replays, or run later (held)
      parts.own.check(parts.label, params);
    }
    const { held, stream } = parts;
    if (native !== undefined && params !== undefined && held.busy) {
      // Checked now: the held replay would find a bad param only when it runs (at a later read)
      rewriteParams(parts.launches, parts.label, params, parts.server, stream, false);
    }
    const run = native === undefined ? this.#launchByLaunch(params) : undefined;
    if (!held.busy) {
      held.errors.throwFor(stream);
      return run === undefined ? native!.replay(stream, params) : run();
    }
    // `#kept`: a dispose right after the call waits for this replay.
    held.runVoid(stream, this.#records, this.#kept, run ?? (() => native!.replay(stream, params)));
  }

  /** A replay on a server without graphs: params checked now, then each launch executed. */
  #launchByLaunch(params: KernelParams | undefined): () => void {
    const { server, stream, label } = this.#parts;
    const launches = this.#parts.launches;
    if (params !== undefined) rewriteParams(launches, label, params, server, stream);
    return () => {
      for (const launch of launches) server.execute(launch, stream);
    };
  }

  /**
   * Gives back the held handles and what the server prepared (once the replays held behind a
   * `waitFor` ran, as a handle disposed after a call). Idempotent.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#parts.gate.forget(this);
    // A destroyed client's held replays never run: released now, before its server goes.
    if (this.#leases === 0 || this.#parts.gate.closed !== undefined) this.#release();
  }

  #release(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      this.#parts.native?.[Symbol.dispose]();
    } finally {
      for (const handle of this.#parts.handles) handle.dispose();
    }
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
