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

Deno.test("a pending wait keeps the main thread alive where Atomics.waitAsync alone does not", async () => {
  // The fixture's only setter is a V8 task (an Atomics.waitAsync timeout) that does not hold
  // the event loop: without the keep-alive Deno ends it with "Top-level await promise never
  // resolved" and exit code 1.
  const fixture = new URL("./fixtures/signal_keep_alive.ts", import.meta.url).pathname;
  const output = await new Deno.Command("deno", {
    args: ["run", "--allow-read=tests/fixtures,sync,runtime/core", fixture],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, text);
  assert.match(text, /reached 1n/);
});
