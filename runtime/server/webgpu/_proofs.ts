/**
 * What the WebGPU backend knows about launches it cannot check itself: which bind-group shapes
 * (layout and entry sizes) the device accepted or rejected at submit, and how deferred errors
 * reach the stream that launched the work. See `_stream.ts` for how submissions use it.
 *
 * @module
 */

import { CompilationError, type ComputeError, DriverError } from "../../core/errors.ts";
import type { StreamId } from "../../core/stream_id.ts";

/** Shapes remembered as proven or rejected; past this the record starts over (re-proving). */
const MAX_SHAPES = 4096;

/** Proven and rejected bind-group shapes. */
export class LaunchProofs {
  readonly #shape: (group: GPUBindGroup) => string;
  /** Bind groups of proven shapes: the hot path's check, with no string built. */
  readonly #provenGroups = new WeakSet<GPUBindGroup>();
  readonly #proven = new Set<string>();
  readonly #rejected = new Map<string, string>();

  /** `shape` gives a bind group's shape (see `BindGroupCache.shape`). */
  constructor(shape: (group: GPUBindGroup) => string) {
    this.#shape = shape;
  }

  /** The shape of a bind group. */
  shape(group: GPUBindGroup): string {
    return this.#shape(group);
  }

  /** True once a submission with a group of this group's shape was accepted. */
  isProven(group: GPUBindGroup): boolean {
    if (this.#provenGroups.has(group)) return true;
    if (!this.#proven.has(this.#shape(group))) return false;
    this.#provenGroups.add(group);
    return true;
  }

  /** WebGPU's message when this group's shape was rejected, else `undefined`. */
  rejection(group: GPUBindGroup): string | undefined {
    if (this.#rejected.size === 0 || this.#provenGroups.has(group)) return undefined;
    return this.#rejected.get(this.#shape(group));
  }

  /** Records an accepted submission of `group` (of `shape`). */
  prove(shape: string, group: GPUBindGroup): void {
    if (this.#proven.size >= MAX_SHAPES) this.#proven.clear();
    this.#proven.add(shape);
    this.#provenGroups.add(group);
  }

  /** Records a rejected shape with WebGPU's message. */
  reject(shape: string, message: string): void {
    if (this.#rejected.size >= MAX_SHAPES) this.#rejected.clear();
    this.#rejected.set(shape, message);
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

/** Queues a deferred error on a stream's list, once. */
export function report(errors: ComputeError[], error: ComputeError): void {
  if (!errors.includes(error)) errors.push(error);
}

/**
 * Queues a failed pipeline's error on the launch's stream, naming the stream; once per stream
 * (every launch of a failed pipeline fails the same way).
 */
export function reportCompilation(
  errors: ComputeError[],
  launch: { readonly error: CompilationError; readonly stream: StreamId },
): void {
  const { error, stream } = launch;
  if (errors.some((e) => e === error || e.cause === error)) return;
  const own = new CompilationError(error.kernel, error.compilerMessage, error.line, {
    cause: error,
  });
  own.message += ` (launched on stream ${stream})`;
  errors.push(own);
}
