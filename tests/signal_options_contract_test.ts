/**
 * Every timeline signal answers its wait options the same way, reached or not: the CPU one, the
 * WebGPU one (over a stand-in queue), a client's timeline and the CUDA one (over stand-in events).
 * `client.timeline` resolved a reached wait without looking at its options, and the CUDA signal
 * resolved one with an aborted `signal`, where the CPU signal refuses and rejects.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, type TimelineSignal, WebGpuTimelineSignal } from "../sync/mod.ts";
import { CudaTimelineSignal } from "../sync/cuda_signal.ts";
import { ClientTimeline } from "../runtime/client/timeline/_client_timeline.ts";

const device = { queue: { onSubmittedWorkDone: () => Promise.resolve() } } as unknown as GPUDevice;
const events = { create: () => 0, record: () => {}, query: () => true, destroy: () => {} };
const kinds: Record<string, () => TimelineSignal> = {
  cpu: () => new CpuTimelineSignal(),
  webgpu: () => new WebGpuTimelineSignal(device),
  client: () => new ClientTimeline("test client"),
  cuda: () => new CudaTimelineSignal(events),
};

const outcome = async (wait: () => Promise<void> | void) => {
  try {
    await wait();
    return "resolved";
  } catch (error) {
    return (error as Error).name;
  }
};

for (const [kind, make] of Object.entries(kinds)) {
  Deno.test(`${kind}: a reached wait still checks its options and its abort signal`, async () => {
    const signal = make();
    const reason = new Error("stop");
    assert.equal(
      await signal.wait(0, { signal: AbortSignal.abort(reason) }).catch((e) => e),
      reason,
    );
    assert.equal(
      await outcome(() => signal.wait(0, { signal: AbortSignal.abort() })),
      "AbortError",
    );
    assert.equal(await outcome(() => signal.wait(0, { timeout: 5 } as never)), "TypeError");
    assert.equal(await outcome(() => signal.wait(0, { timeoutMs: -1 })), "RangeError");
    assert.equal(await outcome(() => signal.wait(0, { timeoutMs: NaN })), "RangeError");
    assert.equal(await outcome(() => signal.waitSync(0, { timeout: 5 } as never)), "TypeError");
    assert.equal(await outcome(() => signal.waitSync(0, { timeoutMs: Infinity })), "RangeError");
    for (const options of [null, 5, true, { signal: "x" }, { signal: {} }]) {
      // `webgpu` took a number or `true` as no options: an unreached wait never settled.
      const error = await Promise.resolve().then(() => signal.wait(1, options as never)).then(
        () => "ok",
        (e) => e,
      );
      assert.ok(error instanceof TypeError, `${kind} wait(1, ${JSON.stringify(options)})`);
      assert.match(error.message, /options/);
    }
    assert.equal(await outcome(() => signal.wait(0, { timeoutMs: 5 })), "resolved");
    assert.equal(await outcome(() => signal.waitSync(0)), "resolved");
  });

  Deno.test(`${kind}: bad targets are typed errors, a tiny timeout times out`, async () => {
    const signal = make();
    for (const target of [-1, 1.5, 2 ** 53, 2n ** 63n, -1n, NaN]) {
      assert.equal(await outcome(() => signal.wait(target)), "RangeError", `target ${target}`);
    }
    assert.equal(await outcome(() => signal.wait("1" as never)), "TypeError");
    assert.equal(await outcome(() => signal.wait(1, { timeoutMs: 1e-9 })), "TimeoutError");
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 5);
    assert.equal(await outcome(() => signal.wait(1, { signal: abort.signal })), "AbortError");
    assert.equal(signal.isReached(1), false);
    signal.set(2n ** 63n - 1n);
    assert.equal(signal.value, 2n ** 63n - 1n);
    assert.equal(await outcome(() => signal.wait(2n ** 63n - 1n)), "resolved");
  });
}

Deno.test("webgpu: a queue whose onSubmittedWorkDone throws fails the marks, not an uncaught error", async () => {
  const broken = new Error("queue gone");
  const queue = {
    onSubmittedWorkDone: () => {
      throw broken;
    },
  };
  const timeline = new WebGpuTimelineSignal({ queue } as unknown as GPUDevice);
  timeline.signal(1);
  assert.equal(await timeline.wait(1, { timeoutMs: 5_000 }).catch((e) => e), broken);
  assert.throws(() => timeline.signal(2), (e) => e === broken);
});
