/**
 * Work a client enqueued on its device behind another client's device work that the host has not
 * seen complete yet: a `waitFor` made on the device (`cuStreamWaitEvent` on a CUDA mark) and a
 * `copyTo` enqueued on the devices. The device runs that work whatever becomes of the other
 * client's (a kernel that faulted there, a mark never reached), so the host holds back what it
 * tells the caller until the other side's verdict is known:
 *
 * - **Reads and syncs** of a stream, or reads of memory, that depend on a pending verdict settle
 *   after it; a failed verdict rejects every such read (each caller gets it) and is thrown once
 *   by the stream's next `sync` or `read` unless a read got it (the failed-wait rule of
 *   `_held_streams.ts`).
 * - **Marks** (`signal`) made on such a stream are gated: the value is not reached before the
 *   verdict, and fails with it (`ClientTimeline.gate`), so a third client's wait never passes on
 *   work that ran too early.
 * - **Memory**: a call that uses memory or runs on a stream with a pending verdict passes the
 *   dependency on to the memory it writes: every buffer of a kernel, but those the server says
 *   it only reads (`ComputeServer.writtenBuffers`: CUDA's `const T*` parameters), none of a
 *   read; a host write of all of a buffer defines it anew (`define`). When a copy's
 *   verdict fails, its new handle holds no defined bytes, nor does memory a call made from it:
 *   all of it is lost (`_lost_memory.ts`), every later use fails with the copy's error. A failed
 *   device wait loses nothing: the calls behind it ran on defined memory, only too early.
 * - **A destroyed producer** is no failure here: its enqueued work drains with its context
 *   (docs/devices.md), so what ran behind it keeps its result; a copy's verdict then says how
 *   the drain ended (CUDA: `CudaParts.ended`, a fault while it drained fails the copy).
 *
 * Verdicts are short-lived (the other side's work is usually done by the time this client reads):
 * a dependency is dropped once settled, and `any` is the one check on the calls' fast paths.
 *
 * @module
 */

import { DestroyedError } from "../../core/errors.ts";
import { errorList, joinErrors } from "../../core/_join_errors.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { StreamErrors } from "../../stream/stream_errors.ts";
import type { LostMemory } from "./_lost_memory.ts";
import type { KernelMetadata } from "../../core/kernel.ts";
import type { ComputeServer, KernelLaunch } from "../../server/server.ts";

/** One pending verdict and what depends on it. */
export interface DeviceDep {
  /** Resolves or rejects with the verdict; never rejects unhandled. */
  readonly settled: Promise<void>;
  /** The failure, once the verdict failed. */
  failure: { readonly error: unknown } | undefined;
  /** A stream's read or sync, or the stream's recorded error, reported it. */
  reported: boolean;
}

interface Entry extends DeviceDep {
  /** The stream the failure is recorded on (the wait's, the copy's destination's). */
  readonly origin: StreamId;
  /** A copy: the memory that depends on it is lost when it fails. */
  readonly data: boolean;
  readonly streams: Set<StreamId>;
  readonly keys: Set<object>;
}

/** Pending verdicts of a client's device work, by stream and by memory; see the module doc. */
export class DeviceDeps {
  readonly #errors: StreamErrors;
  readonly #lost: LostMemory;
  readonly #streams = new Map<StreamId, Set<Entry>>();
  readonly #memory = new Map<object, Set<Entry>>();
  #pending = 0;
  #closed = false;
  /** Whether some verdict is pending: the one check on the calls' fast paths. */
  any = false;

  constructor(errors: StreamErrors, lost: LostMemory) {
    this.#errors = errors;
    this.#lost = lost;
  }

  /** `stream`'s later work waits on the device for `verdict`'s work (a device `waitFor`). */
  waitOn(stream: StreamId, verdict: Promise<unknown>): void {
    this.#add(stream, [], verdict, false);
  }

  /** `keys`, written on `stream`, hold the bytes of `verdict`'s work (a copy from elsewhere). */
  copyInto(stream: StreamId, keys: readonly object[], verdict: Promise<unknown>): void {
    this.#add(stream, keys, verdict, true);
  }

  /**
   * A call on `stream` that uses `keys` was enqueued: it depends on the stream's and the memory's
   * pending verdicts, and so do the stream and the memory it wrote, `written` (by default all of
   * `keys`: a kernel whose server does not tell, a host write; none for a read). Call only when
   * {@linkcode any}.
   */
  use(stream: StreamId, keys: readonly object[], written: readonly object[] = keys): void {
    const deps = this.#collect(stream, keys);
    if (deps === undefined) return;
    for (const dep of deps) {
      this.#at(this.#streams, stream, dep);
      dep.streams.add(stream);
      for (const key of written) {
        this.#at(this.#memory, key, dep);
        dep.keys.add(key);
      }
    }
  }

  /** {@linkcode use} for `launch`, just executed on `stream`: what it wrote as `server` tells. */
  useLaunch<K extends KernelMetadata>(
    server: ComputeServer<K>,
    launch: KernelLaunch<K>,
    stream: StreamId,
  ): void {
    const written = server.writtenBuffers?.(launch).map((ref) => ref.slice.record);
    this.use(stream, launch.args.buffers.map((ref) => ref.slice.record), written);
  }

  /**
   * `keys` were just written in full from the host (enqueued after every call before): they no
   * longer hold bytes of any pending verdict's work, so its failure does not lose them.
   */
  define(keys: readonly object[]): void {
    for (const key of keys) {
      const on = this.#memory.get(key);
      if (on === undefined) continue;
      for (const entry of on) entry.keys.delete(key);
      this.#memory.delete(key);
    }
  }

  /** The pending verdicts a read or sync of `stream` (and of `keys`) waits for; none: undefined. */
  pending(stream: StreamId, keys: readonly object[] = []): readonly DeviceDep[] | undefined {
    if (!this.any) return undefined;
    const deps = this.#collect(stream, keys);
    return deps === undefined ? undefined : [...deps];
  }

  /**
   * `result` (a read's) once `deps` settled; rejects with the first failure among them (at once,
   * without waiting for `result`: the device may never finish work behind a faulted producer),
   * which the read then has: every read gets it.
   */
  async settle<T>(result: Promise<T>, deps: readonly DeviceDep[]): Promise<T> {
    result.catch(() => {}); // when a failed verdict wins, the result's own failure is dropped
    try {
      const [value] = await Promise.all([result, Promise.all(deps.map((dep) => dep.settled))]);
      return value;
    } catch (error) {
      const dep = deps.find((d) => d.failure !== undefined) as Entry | undefined;
      if (dep === undefined) throw error; // the read's own failure
      dep.reported = true;
      this.#errors.discard(dep.origin, dep);
      throw dep.failure!.error;
    }
  }

  /**
   * `stream`'s sync after its held calls: once the verdicts the stream depends on settled (not
   * the device's work: it may never finish behind a faulted producer), throws the stream's
   * recorded errors and every failure of those verdicts no call reported, joined in one error,
   * once; else `synced()`. So one sync reports them all, whatever order they fail in.
   */
  async sync(stream: StreamId, synced: () => Promise<void>): Promise<void> {
    const deps = this.pending(stream) as readonly Entry[] | undefined;
    if (deps !== undefined) await Promise.allSettled(deps.map((dep) => dep.settled));
    // Reads waiting on a failed verdict report it first (their callbacks are microtasks).
    if (deps?.some((dep) => dep.failure !== undefined)) await new Promise((r) => setTimeout(r, 0));
    const failed = deps?.filter((dep) => dep.failure !== undefined && !dep.reported) ?? [];
    for (const dep of failed) {
      dep.reported = true;
      this.#errors.discard(dep.origin, dep);
    }
    const recorded = this.#errors.take(stream);
    if (failed.length === 0 && recorded !== undefined) throw recorded; // as the stream's next call
    const errors = [
      ...(recorded === undefined ? [] : [recorded]),
      ...failed.map((d) => d.failure!.error),
    ];
    if (errors.length > 0) {
      throw joinErrors(errors, `${errors.flatMap(errorList).length} errors on stream ${stream}`);
    }
    await synced();
  }

  /**
   * Ends every dependency with no effect here (the client is destroyed); a failed verdict still
   * fails the copies to other clients made behind it.
   */
  close(): void {
    this.#closed = true;
    this.#streams.clear();
    this.#memory.clear();
    this.#pending = 0;
    this.any = false;
  }

  #add(stream: StreamId, keys: readonly object[], verdict: Promise<unknown>, data: boolean): void {
    if (this.#closed) return void verdict.catch(() => {});
    // Earlier verdicts the work depends on (the stream's, the memory's) still count on their own.
    // The callbacks run after `entry` is made (a promise settles its callbacks asynchronously).
    const settled: Promise<void> = verdict.then(
      () => this.#drop(entry),
      (error: unknown) => {
        // A destroyed producer's enqueued work drains with its context (docs/devices.md): what
        // ran behind it on the device keeps its result.
        if (error instanceof DestroyedError) return this.#drop(entry);
        entry.failure = { error };
        this.#drop(entry);
        if (!this.#closed) {
          if (entry.data) this.#lost.lose([...entry.keys], error);
          if (!entry.reported) this.#errors.record(entry.origin, error, entry);
        }
        // Even once this client is destroyed: a copy to another client made from the memory
        // (`_copy_to.ts`) has this verdict in its own, and its bytes are not defined either.
        throw error;
      },
    );
    settled.catch(() => {}); // reported through the reads, syncs and the stream's errors
    const entry: Entry = {
      settled,
      failure: undefined,
      reported: false,
      origin: stream,
      data,
      streams: new Set([stream]),
      keys: new Set(keys),
    };
    this.#pending++;
    this.any = true;
    this.#at(this.#streams, stream, entry);
    for (const key of keys) this.#at(this.#memory, key, entry);
  }

  #drop(entry: Entry): void {
    if (this.#closed) return;
    for (const stream of entry.streams) this.#remove(this.#streams, stream, entry);
    for (const key of entry.keys) this.#remove(this.#memory, key, entry);
    this.any = --this.#pending > 0;
  }

  #collect(stream: StreamId, keys: readonly object[]): Set<Entry> | undefined {
    let deps: Set<Entry> | undefined;
    const own = this.#streams.get(stream);
    if (own !== undefined) deps = new Set(own);
    for (const key of keys) {
      const on = this.#memory.get(key);
      if (on === undefined) continue;
      deps ??= new Set();
      for (const dep of on) deps.add(dep);
    }
    return deps;
  }

  #at<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry): void {
    const set = map.get(key);
    if (set === undefined) map.set(key, new Set([entry]));
    else set.add(entry);
  }

  #remove<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry): void {
    const set = map.get(key);
    if (set === undefined) return;
    set.delete(entry);
    if (set.size === 0) map.delete(key);
  }
}
