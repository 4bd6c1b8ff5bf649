import assert from "node:assert/strict";
import fc from "fast-check";
import { CpuTimelineSignal } from "../sync/mod.ts";
import type { SignalOp } from "./fixtures/signal_worker.ts";

interface Report {
  readonly errors: string[];
  readonly last: bigint;
}

function spawn(): Worker {
  return new Worker(new URL("./fixtures/signal_worker.ts", import.meta.url), { type: "module" });
}

function run(worker: Worker, buffer: SharedArrayBuffer, ops: SignalOp[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage({ buffer, ops });
  });
}

Deno.test("4 Workers: random producers and consumers, no lost wake-up, value never goes back", async () => {
  const workers = Array.from({ length: 4 }, spawn);
  try {
    const plan = fc.record({
      // Two producers set random values with yields in between.
      producers: fc.array(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant("set" as const), value: fc.nat(1000) }),
            fc.constant({ kind: "yield" as const }),
          ),
          { minLength: 1, maxLength: 30 },
        ),
        { minLength: 2, maxLength: 2 },
      ),
      // Two consumers wait (async or blocking) for random fractions of the final value.
      consumers: fc.array(
        fc.array(
          fc.record({
            kind: fc.constantFrom("wait" as const, "waitSync" as const),
            at: fc.nat(100),
          }),
          { maxLength: 20 },
        ),
        { minLength: 2, maxLength: 2 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ producers, consumers }) => {
        const max = Math.max(
          0,
          ...producers.flat().map((op) => op.kind === "set" ? op.value : 0),
        );
        const signal = new CpuTimelineSignal();
        const reports = await Promise.all([
          // Consumers start first so that most waits are really pending.
          ...consumers.map((script, i) =>
            run(
              workers[2 + i],
              signal.buffer,
              script.map(({ kind, at }) => ({ kind, value: Math.floor(max * at / 100) })),
            )
          ),
          ...producers.map((script, i) => run(workers[i], signal.buffer, script)),
        ]);
        assert.deepEqual(reports.flatMap((r) => r.errors), []);
        assert.equal(signal.value, BigInt(max));
      }),
      { numRuns: 15 },
    );
  } finally {
    for (const worker of workers) worker.terminate();
  }
});

Deno.test("a set on the main thread wakes waiters in 3 Workers on many different targets", async () => {
  const workers = Array.from({ length: 3 }, spawn);
  try {
    const signal = new CpuTimelineSignal();
    const targets = Array.from({ length: 60 }, (_, i) => i + 1);
    const reports = workers.map((worker, w) =>
      run(
        worker,
        signal.buffer,
        targets.filter((t) => t % 3 === w).map((value) => ({ kind: "wait", value })),
      )
    );
    const local = targets.map((t) => signal.wait(t));
    for (const t of targets) {
      signal.set(t);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await Promise.all(local);
    for (const [w, report] of (await Promise.all(reports)).entries()) {
      assert.deepEqual(report.errors, []);
      assert.ok(report.last >= [60n, 58n, 59n][w], `worker ${w} ended at ${report.last}`);
    }
  } finally {
    for (const worker of workers) worker.terminate();
  }
});

Deno.test("a Worker blocked in waitSync wakes on a set from the main thread", async () => {
  const worker = spawn();
  try {
    const signal = new CpuTimelineSignal();
    const report = run(worker, signal.buffer, [{ kind: "waitSync", value: 7 }]);
    signal.set(7);
    assert.deepEqual((await report).errors, []);
  } finally {
    worker.terminate();
  }
});
