/**
 * Waits with a `timeoutMs` past 2^31 - 1 ms (what `setTimeout` takes): they wait, not time out
 * at once, on the CPU signal (and so the WebGPU one and `client.timeline`) and the CUDA one.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal } from "../sync/cpu_signal.ts";
import { CudaTimelineSignal } from "../sync/cuda_signal.ts";

const HUGE = [2 ** 31, 2 ** 32 + 5, 1e300];

Deno.test("a CPU wait with a timeout past 2^31 - 1 ms waits for its value", async () => {
  for (const timeoutMs of HUGE) {
    const signal = new CpuTimelineSignal();
    let settled = "pending";
    const wait = signal.wait(1, { timeoutMs }).then(() => settled = "resolved", (e) => {
      settled = `rejected: ${e}`;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, "pending", `timeoutMs ${timeoutMs}`);
    signal.set(1);
    await wait;
    assert.equal(settled, "resolved");
    assert.equal(signal.pendingWaits, 0);
  }
});

Deno.test("a CUDA wait with a timeout past 2^31 - 1 ms asks its host wait for at most that", async () => {
  const limits: number[] = [];
  let complete = () => {};
  const signal = new CudaTimelineSignal<number>({
    create: () => 0,
    record: () => {},
    query: () => false,
    destroy: () => {},
    waitHost: (_event, timeoutMs, released) => {
      limits.push(timeoutMs);
      return new Promise<void>((resolve) => complete = resolve).finally(released);
    },
  });
  signal.record(1);
  let settled = "pending";
  const wait = signal.wait(1, { timeoutMs: 2 ** 40 }).then(() => settled = "resolved");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(settled, "pending");
  assert.ok(limits.length >= 1);
  for (const limit of limits) assert.ok(limit > 0 && limit <= 2 ** 31 - 1, `limit ${limit}`);
  signal.set(1);
  complete();
  await wait;
  signal.destroy();
});
