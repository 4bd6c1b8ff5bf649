/**
 * The generated kernels of the helpers and primitives, for debugging: {@linkcode recordKernels}
 * lists the kernels (id and WGSL) that the calls on a client launch while a recording is open.
 * Every helper and primitive launches through {@linkcode runKernel} here, so each reaches the
 * recordings.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { ExecuteOptions } from "../client/options.ts";
import type { KernelMetadata } from "../core/kernel.ts";

/** A kernel a recording saw: its id (the name in errors and traces) and its source text. */
type RecordedKernel = KernelRecording["kernels"][number];

/**
 * What {@linkcode recordKernels} returns: the kernels seen so far; dispose (or `stop`) to end.
 *
 * @example
 * ```ts
 * import { createClient, cumsum, type KernelRecording, recordKernels } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3]));
 * const recording: KernelRecording = recordKernels(client);
 * using sums = cumsum(client, x);
 * recording.stop();
 * console.log(recording.kernels[0].source.includes("@compute")); // true
 * ```
 */
export interface KernelRecording extends Disposable {
  /**
   * The kernels launched while recording, each once, in the order of their first launch: the
   * id (the name in errors, traces and pipeline labels) and the source (WGSL on WebGPU).
   */
  readonly kernels: readonly { readonly id: string; readonly source: string }[];
  /** Ends the recording (the kernels stay readable). Idempotent. */
  stop(): void;
}

/** Open recordings by client (a client nobody records costs one failed map lookup a launch). */
const recordings = new WeakMap<object, Set<(kernel: RecordedKernel) => void>>();

/**
 * Records the kernels that the helpers and primitives (`scan`, `sort`, `argmax`, `topk`,
 * `histogram`, `scatterAdd`, `random`, `matmul`, `reduce`, `elementwise`, ...) launch on `client`
 * until the recording is disposed: each kernel's id and generated source, for debugging (read the
 * WGSL a primitive ran, paste it into a bug report). Every such launch on the client counts,
 * whichever code makes it, including the candidates a tuner times. Kernels launched with
 * `client.execute` directly are not recorded: their source is already yours.
 *
 * @example The kernels of an argmax
 * ```ts
 * import { argmax, createClient, recordKernels } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([3, 9, 4]));
 * using recording = recordKernels(client);
 * using best = argmax(client, x);
 * recording.stop();
 * for (const { id, source } of recording.kernels) console.log(id, source.length);
 * ```
 */
export function recordKernels(client: ComputeClient<KernelMetadata>): KernelRecording {
  if (client === null || typeof client !== "object" || typeof client.execute !== "function") {
    throw new TypeError(`recordKernels: client must be a ComputeClient, got ${String(client)}`);
  }
  const kernels: RecordedKernel[] = [];
  const seen = new Set<string>();
  const listener = (kernel: RecordedKernel) => {
    const key = `${kernel.id}\u0000${kernel.source}`;
    if (seen.has(key)) return;
    seen.add(key);
    kernels.push({ id: kernel.id, source: kernel.source });
  };
  let listeners = recordings.get(client);
  if (listeners === undefined) recordings.set(client, listeners = new Set());
  listeners.add(listener);
  const stop = () => {
    listeners.delete(listener);
  };
  return { kernels, stop, [Symbol.dispose]: stop };
}

/**
 * `client.execute(kernel, options)`, reported first to the client's open recordings: how every
 * helper and primitive launches.
 */
export function runKernel<K extends KernelMetadata>(
  client: ComputeClient<K>,
  kernel: K,
  options: ExecuteOptions,
): void {
  const listeners = recordings.get(client);
  if (listeners !== undefined && listeners.size > 0) {
    const { id, source } = kernel as { id?: string; source?: unknown };
    if (typeof source === "string") {
      const recorded = { id: id ?? "main", source };
      for (const listener of listeners) listener(recorded);
    }
  }
  client.execute(kernel, options);
}
