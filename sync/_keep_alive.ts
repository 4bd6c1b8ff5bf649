/**
 * Keeps the main thread alive while timeline signals have waiters. Quirk: a pending
 * `Atomics.waitAsync` does not hold Deno's event loop, so a top-level `await signal.wait(n)`
 * would end the program ("Top-level await promise never resolved") while a Worker is about to
 * set it. A Worker needs nothing: it stays alive until its parent ends it.
 *
 * One ref'd interval is held while any signal of the thread has waiters. Creating a timer costs
 * about as much as a cross-Worker wake-up, so the interval outlives an idle spell by a few
 * microtask hops: back-to-back waits (await one, then wait again) reuse it. It is always gone
 * before the event loop next looks at timers, so it never holds an idle program, and the ops
 * sanitizer of a user's `deno test` never finds it.
 *
 * @module
 */

import { onMainThread } from "./_checks.ts";

const KEEP_ALIVE_MS = 2 ** 31 - 1;
const IDLE_HOPS = 16;
// Quirk: Deno may load the timer globals lazily on first access, and the loading drains the
// microtask queue, which would re-enter a signal mid-update. Take them once, at load.
const { setInterval, clearInterval } = globalThis;

const state = {
  needed: onMainThread(),
  holders: 0,
  timer: undefined as ReturnType<typeof setInterval> | undefined,
  releasing: false,
};

/** A signal of this thread has its first waiter. */
export function holdThread(): void {
  if (state.holders++ === 0 && state.needed) {
    state.timer ??= setInterval(() => {}, KEEP_ALIVE_MS);
  }
}

/** A signal of this thread has no waiter left. */
export function releaseThread(): void {
  if (--state.holders > 0 || state.timer === undefined || state.releasing) return;
  state.releasing = true;
  releaseAfter(IDLE_HOPS);
}

function releaseAfter(hops: number): void {
  queueMicrotask(() => {
    if (state.holders > 0) {
      state.releasing = false; // held again: the next release starts over
    } else if (hops > 0) {
      releaseAfter(hops - 1);
    } else {
      state.releasing = false;
      clearInterval(state.timer);
      state.timer = undefined;
    }
  });
}
