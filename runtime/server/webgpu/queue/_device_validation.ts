/**
 * What the WebGPU backend learns from the device about launches it cannot check itself: which
 * bind-group shapes (layout and entry sizes, see `_bind_group_cache.ts`) the device accepted or
 * rejected at submit, the errors of rejected launches (recorded on the streams that launched
 * them), and, per stream, the validation results still to come. The encoder (`queue/encoder.ts`)
 * submits; this records what the device says about it.
 *
 * @module
 */

import { CompilationError, DriverError } from "../../../core/errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import { StreamErrors } from "../../../stream/stream_errors.ts";
import type { BindGroupCache } from "../launch/_bind_group_cache.ts";
import type { DispatchTask, EncodedDispatch } from "./_tasks.ts";

/** Shapes remembered as validated or rejected; past this the record starts over. */
const MAX_SHAPES = 4096;

/** What a launch binds: group 0 and, for a kernel with several groups, the others. */
export type Bound = Pick<DispatchTask, "bindGroup" | "groups">;

/** Bind-group shapes the device accepted (validated) or rejected. */
export class ValidatedShapes {
  readonly #groups: BindGroupCache;
  /** Bind groups of validated shapes: the hot path's check, with no string built. */
  readonly #validGroups = new WeakSet<GPUBindGroup>();
  readonly #valid = new Set<string>();
  readonly #rejected = new Map<string, string>();
  /** The last group found valid: consecutive dispatches of one group skip the set lookup. */
  #lastValid: GPUBindGroup | undefined;

  /** Shapes of the groups that `groups` creates. */
  constructor(groups: BindGroupCache) {
    this.#groups = groups;
  }

  /**
   * The shape of a launch's bind groups: group 0's, then every other group's. Every group
   * counts: a shape accepted for group 0 says nothing about what another group binds (a
   * too-small range, a texture's usage), and one rejected launch in a shared submission would
   * drop every valid launch with it.
   */
  shape(task: Bound): string {
    const groups = task.groups;
    let shape = this.#groups.shape(task.bindGroup);
    if (groups === undefined) return shape;
    for (let g = 0; g < groups.length; g++) shape += `/${this.#groups.shape(groups[g])}`;
    return shape;
  }

  /**
   * True once a submission with bind groups of this launch's shape was accepted. A launch with
   * one group (the usual case) is found by its group object, no string built.
   */
  isValid(task: Bound): boolean {
    const group = task.bindGroup;
    if (task.groups !== undefined) return this.#valid.has(this.shape(task));
    if (group === this.#lastValid) return true;
    if (!this.#validGroups.has(group)) {
      if (!this.#valid.has(this.#groups.shape(group))) return false;
      this.#validGroups.add(group);
    }
    this.#lastValid = group;
    return true;
  }

  /** WebGPU's message when this launch's shape was rejected, else `undefined`. */
  rejection(task: Bound): string | undefined {
    if (this.#rejected.size === 0) return undefined;
    if (task.groups === undefined && this.#validGroups.has(task.bindGroup)) return undefined;
    return this.#rejected.get(this.shape(task));
  }

  /** Records an accepted submission of `task` (of `shape`). */
  accept(shape: string, task: Bound): void {
    if (this.#valid.size >= MAX_SHAPES) {
      this.#valid.clear();
      this.#lastValid = undefined;
    }
    this.#valid.add(shape);
    // Group 0's object stands for the shape only where it is the launch's only group.
    if (task.groups === undefined) this.#validGroups.add(task.bindGroup);
  }

  /** Records a rejected shape with WebGPU's message. */
  reject(shape: string, message: string): void {
    this.#lastValid = undefined;
    if (this.#rejected.size >= MAX_SHAPES) this.#rejected.clear();
    this.#rejected.set(shape, message);
  }
}

/** Unvalidated dispatches of one shape from one stream, submitted together. */
export interface Isolated {
  readonly task: DispatchTask;
  readonly shape: string;
  launches: number;
  /**
   * The dispatches with their profiling pass groups, kept where they may be encoded again
   * (`task.replan` set: `_encode_again.ts`), else `undefined`.
   */
  readonly tasks: EncodedDispatch[] | undefined;
}

/**
 * The validation results of submissions: shapes accepted or rejected, errors recorded on the
 * launching streams, and the checks each stream still waits for.
 */
export class LaunchValidation {
  /** Accepted and rejected bind-group shapes. */
  readonly shapes: ValidatedShapes;
  /** Errors of launches WebGPU rejected, on the streams that launched them. */
  readonly errors: StreamErrors;
  readonly #maxStreams: number;
  /**
   * Validation checks not yet recorded, per stream index of the dispatches they hold; each
   * resolves with the error it recorded, if any.
   */
  readonly #checks = new Map<number, Set<Promise<unknown>>>();

  /** Validation of the launches of a server with `maxStreams` streams. */
  constructor(groups: BindGroupCache, maxStreams: number) {
    this.shapes = new ValidatedShapes(groups);
    this.errors = new StreamErrors({ maxStreams });
    this.#maxStreams = maxStreams;
  }

  /**
   * Settles once the validation results of `stream`'s submissions tracked so far (when called)
   * are recorded, with the first error they recorded, or `undefined` when WebGPU accepted them.
   */
  async validated(stream?: StreamId): Promise<unknown> {
    const checks = stream === undefined
      ? [...this.#checks.values()].flatMap((set) => [...set])
      : [...this.#checks.get(stream % this.#maxStreams) ?? []];
    if (checks.length === 0) return undefined;
    return (await Promise.all(checks)).find((error) => error !== undefined);
  }

  /** Records that `task`'s kernel failed to compile, on its stream (once per stream). */
  failedKernel(task: DispatchTask): CompilationError {
    // A launched kernel has a pipeline: its failure is the device's compilation error.
    const error = task.kernel.error as CompilationError;
    const own = compilationError(error, task.stream);
    this.errors.record(task.stream, own, error);
    return own;
  }

  /**
   * Records a submission's validation once its `message` (WebGPU's error, or `undefined`) is
   * known, as a check of the streams it holds: `isolated`'s stream, or the `streams` of the
   * dispatches of a shared submission. A rejected one never ran: `unrun` says so to a trace.
   */
  track(
    isolated: Isolated | undefined,
    streams: readonly StreamId[],
    message: Promise<string | undefined>,
    unrun?: () => void,
  ): void {
    const indices = isolated === undefined
      ? streams.map((s) => s % this.#maxStreams)
      : [isolated.task.stream % this.#maxStreams];
    const check: Promise<unknown> = message.then((m) => {
      if (m !== undefined) unrun?.();
      return this.#record(isolated, streams, m);
    })
      .finally(() => {
        for (const index of indices) this.#checks.get(index)?.delete(check);
      });
    for (const index of indices) {
      let set = this.#checks.get(index);
      if (set === undefined) this.#checks.set(index, set = new Set());
      set.add(check);
    }
  }

  /** Records a submission's validation; resolves with the error recorded, if any. */
  async #record(
    isolated: Isolated | undefined,
    streams: readonly StreamId[],
    message: string | undefined,
  ): Promise<unknown> {
    if (isolated === undefined) {
      // Safety net: shared submissions hold only validated dispatches and checked copies.
      if (message === undefined) return undefined;
      const error = new DriverError(`A WebGPU submission was rejected: ${message}`);
      for (const stream of streams) this.errors.record(stream, error);
      return error;
    }
    const { task, shape, launches } = isolated;
    if (message === undefined) {
      this.shapes.accept(shape, task);
      return undefined;
    }
    await task.kernel.settled;
    if (task.kernel.error !== undefined) return this.failedKernel(task);
    this.shapes.reject(shape, message.trim());
    const times = launches === 1 ? "" : ` (${launches} launches)`;
    const name = task.kernel.reflection.name;
    const error = launchError(name, task.stream, message.trim(), times);
    this.errors.record(task.stream, error);
    return error;
  }
}

/** The error of a launch that WebGPU rejected: names the kernel, the stream and the reason. */
export function launchError(
  kernel: string,
  stream: StreamId,
  message: string,
  times = "",
): DriverError {
  return new DriverError(
    `Kernel '${kernel}' launched on stream ${stream}${times} was rejected by WebGPU: ${message}`,
  );
}

/**
 * A failed pipeline's error as the stream that launched it reports it (naming the stream), with
 * the pipeline's error as `cause`: record it keyed by that cause, so that every launch of the
 * failed pipeline on one stream reports it once.
 */
export function compilationError(error: CompilationError, stream: StreamId): CompilationError {
  const own = new CompilationError(error.kernel, error.compilerMessage, error.line, {
    cause: error,
  });
  own.message += ` (launched on stream ${stream})`;
  return own;
}
