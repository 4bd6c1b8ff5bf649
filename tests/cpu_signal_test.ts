import assert from "node:assert/strict";
import fc from "fast-check";
import { CpuTimelineSignal, TimeoutError } from "../sync/mod.ts";

Deno.test("set is a monotonic max and isReached follows it", () => {
  const signal = new CpuTimelineSignal(5);
  assert.equal(signal.value, 5n);
  signal.set(3n);
  assert.equal(signal.value, 5n);
  signal.set(2 ** 53 - 1);
  assert.equal(signal.value, 2n ** 53n - 1n);
  signal.set(2n ** 63n - 1n);
  assert.equal(signal.isReached(2n ** 63n - 1n), true);
  assert.throws(() => signal.set(2n ** 63n), RangeError);
  assert.throws(() => signal.set(-1), RangeError);
  assert.throws(() => signal.set(1.5), RangeError);
  assert.throws(() => signal.set("1" as unknown as number), TypeError);
});

Deno.test("a signal rebuilt from its buffer is the same signal", async () => {
  const signal = new CpuTimelineSignal(1);
  const twin = new CpuTimelineSignal(signal.buffer);
  const waited = twin.wait(4);
  signal.set(4);
  await waited;
  assert.equal(twin.value, 4n);
  assert.throws(() => new CpuTimelineSignal(new SharedArrayBuffer(8)), RangeError);
});

Deno.test("many local waiters on different targets resolve in target order", async () => {
  const signal = new CpuTimelineSignal();
  const order: number[] = [];
  const targets = Array.from({ length: 500 }, (_, i) => (i * 7919) % 500 + 1);
  const waits = targets.map((t) => signal.wait(t).then(() => order.push(t)));
  assert.equal(signal.pendingWaits, 500);
  signal.set(250);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(order, Array.from({ length: 250 }, (_, i) => i + 1));
  signal.set(500);
  await Promise.all(waits);
  assert.deepEqual(order, Array.from({ length: 500 }, (_, i) => i + 1));
  assert.equal(signal.pendingWaits, 0);
});

Deno.test("a timed-out wait names the target, the timeout and the value reached", async () => {
  const signal = new CpuTimelineSignal(3);
  const error = await signal.wait(10, { timeoutMs: 20 }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof TimeoutError);
  assert.equal(error.code, "TIMEOUT");
  assert.equal(error.limitMs, 20);
  assert.equal(
    error.message,
    "Timed out after 20 ms waiting for timeline value 10: the signal is at 3",
  );
  assert.equal(signal.pendingWaits, 0);
  assert.throws(
    () => signal.waitSync(10, { timeoutMs: 5 }),
    { name: "TimeoutError", message: /timeline value 10: the signal is at 3/ },
  );
  assert.throws(() => signal.wait(1, { timeoutMs: -1 }), RangeError);
});

Deno.test("an aborted wait rejects with the reason and leaves no waiter behind", async () => {
  const signal = new CpuTimelineSignal();
  const controller = new AbortController();
  const reason = new Error("stop");
  const waited = signal.wait(1, { signal: controller.signal });
  const other = signal.wait(2, { timeoutMs: 60_000 });
  controller.abort(reason);
  await assert.rejects(waited, (e) => e === reason);
  assert.equal(signal.pendingWaits, 1);
  await assert.rejects(signal.wait(1, { signal: controller.signal }), (e) => e === reason);
  signal.set(2);
  await other; // its timer is cleared: the ops sanitizer would report it otherwise
});

Deno.test("waitSync on the main thread requires a timeout, and returns once reached", () => {
  const signal = new CpuTimelineSignal(2);
  signal.waitSync(2);
  assert.throws(() => signal.waitSync(3), /needs a timeoutMs > 0; the signal is at 2/);
});

Deno.test("property: after concurrent interleaved sets the value is the max ever set", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), { maxLength: 20 }), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.infiniteStream(fc.nat()),
      (scripts, picks) => {
        // Several "setters" on twins of one signal, interleaved in a random order.
        const signal = new CpuTimelineSignal();
        const twins = scripts.map(() => new CpuTimelineSignal(signal.buffer));
        const cursors = scripts.map(() => 0);
        const picker = picks[Symbol.iterator]();
        let seen = 0n;
        let max = 0n;
        for (;;) {
          const live = cursors.flatMap((c, i) => c < scripts[i].length ? [i] : []);
          if (live.length === 0) break;
          const i = live[picker.next().value % live.length];
          const value = scripts[i][cursors[i]++];
          twins[i].set(value);
          max = value > max ? value : max;
          const now = signal.value;
          if (now < seen || now !== max) return false;
          seen = now;
        }
        return signal.value === max;
      },
    ),
  );
});

Deno.test("a misspelt wait option is a TypeError, not a wait without limit", async () => {
  const signal = new CpuTimelineSignal();
  assert.throws(
    () => signal.wait(1, { timeout: 5 } as never),
    /wait: unknown option "timeout" \(the options are timeoutMs, signal\)/,
  );
  assert.throws(() => signal.waitSync(1, { timeout: 5 } as never), /waitSync: unknown option/);
  assert.throws(() => signal.wait(1, null as never), /wait: options must be an object, got null/);
  await assert.rejects(signal.wait(1, { timeoutMs: 5 }), TimeoutError); // the spelt one works
});

Deno.test("a wait whose value another agent reached before its timer fires resolves, not TIMEOUT", async () => {
  // The twin's set wakes this object's Atomics.waitAsync in a later task; the timer's task can
  // run first. It rejected with "Timed out ... the signal is at 1" for target 1 (about 1 in 2).
  for (let i = 0; i < 20; i++) {
    const signal = new CpuTimelineSignal();
    const wait = signal.wait(1, { timeoutMs: 2 });
    new CpuTimelineSignal(signal.buffer).set(1);
    const due = performance.now() + 4;
    while (performance.now() < due) { /* let the timer fall due before any wake-up runs */ }
    await wait;
    assert.equal(signal.pendingWaits, 0);
  }
});
