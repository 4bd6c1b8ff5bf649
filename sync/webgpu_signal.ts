/**
 * {@linkcode WebGpuTimelineSignal}: a {@linkcode CpuTimelineSignal} whose values are reached when
 * WebGPU queue work completes. `signal(v)` after a submission marks `v`; every mark made in one
 * synchronous run of JS shares one `onSubmittedWorkDone` (Deno answers each only at its next device
 * poll, ~10 ms, so a poll per value would cost 10 ms per value). Marks complete in queue order and
 * `set` is a monotonic max, so waiters resolve in target order.
 *
 * The value lives in shared memory like any CPU signal: post {@linkcode buffer} to a Worker and
 * wait there with `new CpuTimelineSignal(buffer)`, while this thread polls the device. That copy
 * learns of no failure (a lost device, a failed queue): give its waits a `timeoutMs`.
 *
 * @module
 */

import { DestroyedError, DeviceLostError, UnsupportedError } from "../runtime/core/errors.ts";
import { CpuTimelineSignal } from "./cpu_signal.ts";
import type { TimelineSignal, TimelineWaitOptions } from "./timeline_signal.ts";
import { checkWaitOptions, toTimelineValue } from "./_checks.ts";
import { queueCompletions } from "./_queue_completions.ts";

/**
 * A timeline signal reached by the completion of work submitted to a WebGPU queue.
 *
 * @example Mark two points of the queue and wait for the second
 * ```ts
 * import { WebGpuTimelineSignal } from "@gpucompute/runtime/sync";
 * const adapter = await navigator.gpu.requestAdapter();
 * const device = await adapter!.requestDevice();
 * const timeline = new WebGpuTimelineSignal(device);
 * device.queue.submit([device.createCommandEncoder().finish()]);
 * timeline.signal(1);
 * device.queue.submit([device.createCommandEncoder().finish()]);
 * timeline.signal(2);
 * await timeline.wait(2); // both submissions have completed
 * device.destroy();
 * ```
 */
export class WebGpuTimelineSignal extends CpuTimelineSignal {
  readonly #queue: GPUQueue;
  readonly #failed = new AbortController();
  /** The highest value passed to `signal`. */
  #marked = 0n;

  /**
   * A signal on `device`'s queue starting at `initial`, or sharing the value of the CPU signal
   * whose `buffer` is given.
   */
  constructor(device: GPUDevice, initial: bigint | number | SharedArrayBuffer = 0n) {
    super(initial);
    if (typeof device?.queue?.onSubmittedWorkDone !== "function") {
      throw new TypeError("device must be a GPUDevice");
    }
    this.#queue = device.queue;
    // A lost (or destroyed) device never runs the work of the values not reached yet, but its
    // queue still reports completion: fail them (only the controller is held, not the signal).
    // Quirk: Deno may leave `lost` undefined.
    const failed = this.#failed;
    (device as { lost?: Promise<GPUDeviceLostInfo> }).lost?.then((info) => {
      const what = `timeline values not reached by then never will be (${info.reason})`;
      failed.abort(
        info.reason === "destroyed"
          ? new DestroyedError(`The WebGPU device was destroyed: ${what}`)
          : new DeviceLostError(`The WebGPU device was lost (${info.message}): ${what}`),
      );
    });
  }

  /**
   * Marks `value` as reached once the work submitted to the queue so far has completed.
   * Call it after the `submit` (or the server flush) of the work it stands for.
   */
  signal(value: bigint | number): void {
    const mark = toTimelineValue(value, "value");
    if (this.#failed.signal.aborted) throw this.#failed.signal.reason;
    if (mark > this.#marked) this.#marked = mark;
    const failed = this.#failed.signal;
    signalOnQueue(this.#queue, {
      timeline: { set: (value) => failed.aborted || this.set(value) },
      value: mark,
      onError: (error) => this.#failed.abort(error),
    });
  }

  /**
   * As {@linkcode CpuTimelineSignal.wait}; also rejects, for a value not reached by then, if the
   * queue fails its completions or the device is lost (`DEVICE_LOST`) or destroyed (`DESTROYED`).
   */
  override wait(target: bigint | number, options: TimelineWaitOptions = {}): Promise<void> {
    checkWaitOptions(options, "wait"); // before the spread below, which drops a number's keys
    // Values reached before a failure stay reached.
    if (this.#failed.signal.aborted) {
      return this.isReached(target)
        ? super.wait(target, options)
        : Promise.reject(this.#failed.signal.reason);
    }
    const signal = options.signal === undefined
      ? this.#failed.signal
      : AbortSignal.any([options.signal, this.#failed.signal]);
    return super.wait(target, { ...options, signal });
  }

  /**
   * As {@linkcode CpuTimelineSignal.waitSync}, but refuses to block for a value this thread
   * marked and the queue has not reached: completions arrive in this thread's event loop, which a
   * blocking wait stops. Use `wait`, or block in another Worker.
   */
  override waitSync(
    target: bigint | number,
    options: Omit<TimelineWaitOptions, "signal"> = {},
  ): void {
    const goal = toTimelineValue(target, "target");
    if (!this.isReached(goal) && this.#failed.signal.aborted) throw this.#failed.signal.reason;
    if (!this.isReached(goal) && goal <= this.#marked) {
      throw new UnsupportedError(
        `Cannot block for timeline value ${goal} on the thread that polls its GPU queue ` +
          `(the signal is at ${this.value}); await wait(${goal}) instead`,
      );
    }
    super.waitSync(goal, options);
  }
}

/** A mark of {@linkcode signalOnQueue}. */
export interface QueueMark {
  /** The signal to set (only its `set` is used). */
  readonly timeline: Pick<TimelineSignal, "set">;
  /** The value it reaches when the queue's work submitted so far completes. */
  readonly value: bigint | number;
  /**
   * Called instead if the queue fails to report completion.
   * @default {() => {}}
   */
  readonly onError?: (error: unknown) => void;
}

/**
 * Sets `mark.timeline` to `mark.value` once the work submitted to `queue` so far has completed.
 * Calls made in one synchronous run of JS share one `onSubmittedWorkDone`. The WebGPU server
 * marks any {@linkcode TimelineSignal} with it.
 *
 * @example
 * ```ts
 * import { CpuTimelineSignal } from "./cpu_signal.ts";
 * import { signalOnQueue } from "./webgpu_signal.ts"; // inside the runtime
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * const timeline = new CpuTimelineSignal();
 * device.queue.submit([]); // the work to wait for
 * signalOnQueue(device.queue, { timeline, value: 1n });
 * await timeline.wait(1); // the work submitted so far has completed
 * console.log(timeline.value); // 1n
 * device.destroy();
 * ```
 */
export function signalOnQueue(queue: GPUQueue, mark: QueueMark): void {
  const value = toTimelineValue(mark.value, "value");
  const { timeline, onError = () => {} } = mark;
  queueCompletions(queue).after(() => timeline.set(value), onError);
}
