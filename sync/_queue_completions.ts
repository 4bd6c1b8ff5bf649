/**
 * Batched completion callbacks for a WebGPU queue. Quirk: Deno learns of finished GPU work only
 * by polling the device (about every 10 ms), so each `onSubmittedWorkDone` costs a poll however
 * little work it covers. Callbacks registered in one synchronous run of JS share ONE
 * `onSubmittedWorkDone`, issued at the end of that run (a microtask): it covers every submission
 * made before it, so it covers the work of every callback of the batch.
 *
 * @module
 */

interface Batch {
  readonly callbacks: (() => void)[];
  readonly failures: ((error: unknown) => void)[];
}

const byQueue = new WeakMap<GPUQueue, QueueCompletions>();

/** The completion batcher of `queue` (one per queue, shared by every signal on it). */
export function queueCompletions(queue: GPUQueue): QueueCompletions {
  let completions = byQueue.get(queue);
  if (completions === undefined) {
    completions = new QueueCompletions(queue);
    byQueue.set(queue, completions);
  }
  return completions;
}

/** Runs callbacks once the work submitted to a queue so far has completed. */
export class QueueCompletions {
  readonly #queue: GPUQueue;
  #open: Batch | undefined;
  /** `onSubmittedWorkDone` calls made (one per batch). */
  polls = 0;

  constructor(queue: GPUQueue) {
    this.#queue = queue;
  }

  /** Calls `done` once the work submitted so far completes, or `failed` if the queue fails. */
  after(done: () => void, failed: (error: unknown) => void): void {
    let batch = this.#open;
    if (batch === undefined) {
      batch = this.#open = { callbacks: [], failures: [] };
      queueMicrotask(() => this.#seal());
    }
    batch.callbacks.push(done);
    batch.failures.push(failed);
  }

  #seal(): void {
    const batch = this.#open!;
    this.#open = undefined;
    this.polls++;
    let done: Promise<unknown>;
    try {
      done = this.#queue.onSubmittedWorkDone();
    } catch (error) { // a throw here was uncaught, and the batch's marks never settled
      done = Promise.reject(error);
    }
    done.then(
      () => batch.callbacks.forEach((callback) => callback()),
      (error) => batch.failures.forEach((callback) => callback(error)),
    );
  }
}
