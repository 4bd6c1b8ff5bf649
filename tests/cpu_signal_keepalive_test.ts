import assert from "node:assert/strict";
import { CpuTimelineSignal } from "../sync/cpu_signal.ts";

// Regression: the first wait in an isolate used to trigger Deno's lazy load of the timer
// globals, which drains the microtask queue mid-update; a set queued as a microtask then
// resolved the waiter before its keep-alive timer existed, and the timer leaked (the ops
// sanitizer fails this test if it does). Keep this the first test of its file.
Deno.test("a set queued as a microtask before the first wait leaks no keep-alive timer", async () => {
  const signal = new CpuTimelineSignal();
  Promise.resolve().then(() => signal.set(1)).then(() => signal.set(2));
  await signal.wait(2);
  assert.equal(signal.pendingWaits, 0);
});
