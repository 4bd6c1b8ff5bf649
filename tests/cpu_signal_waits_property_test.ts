/**
 * Property: waits on twins of one CPU signal (objects over one buffer) resolve exactly when the
 * value reaches their target: never before (checked when each resolves, before any later set),
 * and soon after (checked after each step).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CpuTimelineSignal } from "../sync/mod.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

type Op = { set: bigint; by: number } | { wait: bigint; on: number; abort: boolean };

const op = fc.oneof(
  fc.record({ set: fc.bigInt({ min: 0n, max: 40n }), by: fc.nat(2) }),
  fc.record({ wait: fc.bigInt({ min: 0n, max: 40n }), on: fc.nat(2), abort: fc.boolean() }),
);

Deno.test("property: waits on twins resolve exactly when the value reaches their target", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
      const first = new CpuTimelineSignal();
      const twins = [
        first,
        new CpuTimelineSignal(first.buffer),
        new CpuTimelineSignal(first.buffer),
      ];
      const pending = new Map<number, { target: bigint; abort: AbortController }>();
      const early: string[] = [];
      const done: Promise<unknown>[] = [];
      let id = 0;
      for (const step of ops) {
        if ("set" in step) {
          twins[step.by].set(step.set);
        } else {
          const me = id++;
          const abort = new AbortController();
          pending.set(me, { target: step.wait, abort });
          done.push(
            twins[step.on].wait(step.wait, { signal: abort.signal }).then(() => {
              // Sets run only between ticks, so the value is still what it was at the resolve.
              if (first.value < step.wait) {
                early.push(`wait ${me} for ${step.wait} at ${first.value}`);
              }
              pending.delete(me);
            }, () => pending.delete(me)),
          );
          if (step.abort) abort.abort();
        }
        for (let i = 0; i < 50 && [...pending.values()].some((w) => w.target <= first.value); i++) {
          await tick();
        }
        assert.deepEqual(early, []);
        for (const [me, waiter] of pending) {
          assert.ok(waiter.target > first.value, `wait ${me} for ${waiter.target} never resolved`);
        }
      }
      for (const waiter of pending.values()) waiter.abort.abort();
      await Promise.all(done);
      assert.deepEqual(twins.map((t) => t.pendingWaits), [0, 0, 0]);
    }),
    { numRuns: 60 },
  );
});
