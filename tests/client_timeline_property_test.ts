/**
 * Property: a client's timeline (`ClientTimeline`) under random sets, failed marks, gates and
 * waits: a wait resolves only once the value reaches its target, rejects `ABORTED` only for a
 * target at or past a failed value, never rises to a failed value, and after `close` every wait
 * still pending rejects `DESTROYED`; none is left pending.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ClientTimeline } from "../runtime/client/timeline/_client_timeline.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const v = fc.bigInt({ min: 1n, max: 30n });
const op = fc.oneof(
  { arbitrary: fc.record({ set: v }), weight: 4 },
  { arbitrary: fc.record({ wait: fc.bigInt({ min: 0n, max: 30n }) }), weight: 4 },
  { arbitrary: fc.record({ fail: v }), weight: 1 },
  { arbitrary: fc.record({ gate: v }), weight: 1 },
  { arbitrary: fc.record({ open: fc.nat(), ok: fc.boolean() }), weight: 1 },
);

Deno.test("property: client timeline waits settle exactly as its value, failures and close say", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const timeline = new ClientTimeline("test client");
      let fault: bigint | undefined;
      const gates: {
        value: bigint;
        holds: boolean;
        resolve: () => void;
        reject: (e: Error) => void;
      }[] = [];
      const problems: string[] = [];
      const outcomes: Promise<void>[] = [];
      const check = () => {
        if (fault !== undefined && timeline.value >= fault) {
          problems.push(`value ${timeline.value} at or past the failed ${fault}`);
        }
        for (const gate of gates) {
          if (gate.holds && timeline.value >= gate.value) {
            problems.push(`value ${timeline.value} past the unsettled gate ${gate.value}`);
          }
        }
      };
      for (const step of ops) {
        if ("set" in step) timeline.set(step.set);
        else if ("fail" in step) {
          const reached = timeline.isReached(step.fail);
          timeline.fail(step.fail, new Error("boom"));
          if (!reached && (fault === undefined || step.fail < fault)) fault = step.fail;
        } else if ("gate" in step) {
          const { promise, resolve, reject } = Promise.withResolvers<void>();
          promise.catch(() => {});
          timeline.gate(step.gate, promise); // holds the value back unless reached already
          gates.push({ value: step.gate, holds: !timeline.isReached(step.gate), resolve, reject });
        } else if ("open" in step) {
          const gate = gates.splice(step.open % Math.max(1, gates.length), 1)[0];
          if (step.ok) gate?.resolve();
          else if (gate !== undefined) {
            gate.reject(new Error("verdict")); // fails its value on (unless reached)
            const reached = timeline.isReached(gate.value);
            if (!reached && (fault === undefined || gate.value < fault)) fault = gate.value;
          }
        } else {
          const target = step.wait;
          outcomes.push(
            timeline.wait(target).then(() => {
              if (timeline.value < target) {
                problems.push(`wait ${target} resolved at ${timeline.value}`);
              }
            }, (error: Error) => {
              if (error.name === "DestroyedError") return;
              if (error.name !== "AbortedError") {
                return void problems.push(`wait ${target}: ${error}`);
              }
              if (fault === undefined || target < fault) {
                problems.push(`wait ${target} ABORTED with the fault at ${fault}`);
              }
              if (timeline.value >= target) problems.push(`wait ${target} ABORTED though reached`);
            }),
          );
        }
        await tick();
        check();
      }
      timeline.close(new Error("closed"));
      await Promise.all(outcomes); // every wait settles
      check();
      assert.deepEqual(problems, []);
      assert.equal(timeline.pendingWaits, 0);
    }),
    { numRuns: 80 },
  );
});
