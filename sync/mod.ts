/**
 * Timeline signals: monotonic 64-bit counters that order work across Workers, the host and the
 * GPU. {@linkcode CpuTimelineSignal} lives in shared memory (post its `buffer` to a Worker and
 * rebuild it there); {@linkcode WebGpuTimelineSignal} is reached when WebGPU queue work
 * completes. A client marks points of its streams on `client.timeline` with `client.signal()`,
 * and holds a stream until a host producer is done with `client.waitFor(signal, value)`.
 *
 * @example A producer Worker and a consumer Worker around the main thread
 * ```ts ignore
 * import { CpuTimelineSignal } from "@gpucompute/runtime/sync";
 * const produced = new CpuTimelineSignal(); // raised by the producer, frame by frame
 * const consumed = new CpuTimelineSignal(); // raised by the consumer once a frame is used
 * const slot = new Float32Array(new SharedArrayBuffer(1024 * 4));
 * const spawn = (name: string) => new Worker(new URL(name, import.meta.url), { type: "module" });
 * const [producer, consumer] = [spawn("./producer.ts"), spawn("./consumer.ts")];
 * const shared = { slot: slot.buffer, produced: produced.buffer, consumed: consumed.buffer };
 * producer.postMessage(shared);
 * consumer.postMessage(shared);
 * // producer.ts, for k = 1..100:
 * //   await consumed.wait(k - 1); fill the slot; produced.set(k);
 * // consumer.ts, for k = 1..100:
 * //   await produced.wait(k); use the slot; consumed.set(k);
 * // (each side rebuilds the signals: new CpuTimelineSignal(event.data.produced), ...)
 * await consumed.wait(100, { timeoutMs: 60_000 });
 * producer.terminate();
 * consumer.terminate();
 * ```
 *
 * @example The GPU as the consumer
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { CpuTimelineSignal } from "@gpucompute/runtime/sync";
 * using client = await createClient();
 * const produced = new CpuTimelineSignal();
 * const slot = new Float32Array(new SharedArrayBuffer(4096 * 4));
 * // the producer Worker gets slot.buffer, produced.buffer and client.timeline.buffer, and for
 * // k = 1, 2...: await timeline.wait(k - 1); fills the slot; produced.set(k)
 * using input = client.empty(slot.length, "f32");
 * for (let k = 1; k <= 16; k++) {
 *   client.waitFor(produced, k); // what follows runs once frame k is in the slot
 *   client.write(input, slot); // takes the slot's bytes then
 *   // client.execute(kernel, { threads: 4096, buffers: [input, ...] });
 *   client.signal(); // the timeline reaches k once frame k's work completed: the slot is free
 * }
 * await client.timeline.wait(16);
 * ```
 *
 * @module
 */

export type { TimelineSignal, TimelineWaitOptions } from "./timeline_signal.ts";
export { CpuTimelineSignal } from "./cpu_signal.ts";
export { WebGpuTimelineSignal } from "./webgpu_signal.ts";
export { TimeoutError } from "../runtime/core/errors.ts";
