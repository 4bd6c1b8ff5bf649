import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { CpuTimelineSignal, WebGpuTimelineSignal } from "../sync/mod.ts";
import { scale } from "../examples/kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** Counts `onSubmittedWorkDone` calls on a queue (each costs one ~10 ms device poll in Deno). */
function countPolls(queue: GPUQueue): { readonly count: number } {
  const original = queue.onSubmittedWorkDone.bind(queue);
  const counter = { count: 0 };
  queue.onSubmittedWorkDone = () => {
    counter.count++;
    return original();
  };
  return counter;
}

/** A kernel that spins a while per invocation, so that completion is really later. */
const SPIN = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  var x = v[g.x];
  for (var i = 0u; i < 20000u; i++) { x = x * 1664525u + 1013904223u; }
  v[g.x] = x;
}`;

Deno.test({
  name: "WebGPU signal: marks after real queue work resolve waiters in order, one poll per batch",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    try {
      const polls = countPolls(device.queue);
      const buffer = device.createBuffer({ size: 64 * 4 * 16, usage: GPUBufferUsage.STORAGE });
      const pipeline = device.createComputePipeline({
        layout: "auto",
        compute: { module: device.createShaderModule({ code: SPIN }), entryPoint: "main" },
      });
      const group = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer } }],
      });
      const timeline = new WebGpuTimelineSignal(device);
      for (let mark = 1; mark <= 8; mark++) {
        const encoder = device.createCommandEncoder();
        const pass = encoder.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(16);
        pass.end();
        device.queue.submit([encoder.finish()]);
        timeline.signal(mark);
      }
      assert.equal(timeline.value, 0n, "a mark is reached only when its work completes");
      const order: number[] = [];
      await Promise.all(
        [8, 3, 1, 6, 2, 7, 5, 4].map((t) => timeline.wait(t).then(() => order.push(t))),
      );
      assert.deepEqual(order, [1, 2, 3, 4, 5, 6, 7, 8]);
      assert.equal(polls.count, 1, "eight marks in one run of JS share one onSubmittedWorkDone");
      // Blocking on this thread could never see the completion: refused, not a deadlock.
      timeline.signal(9);
      assert.throws(() => timeline.waitSync(9), { name: "UnsupportedError" });
      await timeline.wait(9);
      assert.equal(polls.count, 2);
      // Another view of the same shared value (as a Worker would rebuild it) sees it.
      assert.equal(new CpuTimelineSignal(timeline.buffer).value, 9n);
    } finally {
      device.destroy();
    }
  },
});

Deno.test({
  name: "client.signal: the timeline reaches the mark once the stream's kernels completed",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const polls = countPolls((client.server as WebGpuServer).device.queue);
    using data = client.createWithData(new Float32Array([1, 2, 3, 4]), { stream: 1 });
    const marks: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      client.execute(scale, { stream: 1, threads: 4, buffers: [data], params: { factor: 2 } });
      marks.push(client.signal({ stream: 1 }));
    }
    assert.deepEqual(marks, [1n, 2n, 3n]);
    await client.timeline.wait(3n);
    assert.equal(polls.count, 1, "three marks in one run share one poll");
    assert.deepEqual([...await client.read(data, Float32Array, { stream: 1 })], [8, 16, 24, 32]);
    client.timeline.set(10); // a user may move the timeline; marks stay above it
    assert.equal(client.signal(), 11n);
    await client.timeline.wait(11);
  },
});

Deno.test({
  name: "client.waitFor: a held stream takes host-produced input once the signal is reached",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const produced = new CpuTimelineSignal();
    const input = new Float32Array(new SharedArrayBuffer(16));
    client.waitFor(produced, 1, { stream: 1 });
    using data = client.createWithData(input, { stream: 1 }); // held: copies at the gate
    client.execute(scale, { stream: 1, threads: 4, buffers: [data], params: { factor: 10 } });
    // Another stream's read of memory a held call uses waits for it too.
    const result = client.read(data, Float32Array, { stream: 0 });
    data.dispose(); // held calls keep their own references
    using again = client.createWithData(new Float32Array(4), { stream: 2 });
    const unrelated = await client.read(again, Float32Array, { stream: 2 });
    assert.deepEqual([...unrelated], [0, 0, 0, 0], "other streams are not held");
    input.set([1, 2, 3, 4]); // the producer fills the input after the calls were made
    produced.set(1);
    assert.deepEqual([...await result], [10, 20, 30, 40]);
    await client.sync();
  },
});

Deno.test({
  name: "a mark made just before the server is destroyed is never reached",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice(); // adopted: the server leaves it alive
    try {
      const server = await WebGpuServer.create({ device });
      const timeline = new CpuTimelineSignal();
      server.signal(timeline, 1n, 0);
      server.destroy();
      // Work-done callbacks settle in order: the mark's has run once this one resolves.
      await device.queue.onSubmittedWorkDone();
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.equal(timeline.value, 0n);
    } finally {
      device.destroy();
    }
  },
});

Deno.test({
  name: "WebGpuTimelineSignal: a destroyed device never reaches its values (they reached 'done')",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    const timeline = new WebGpuTimelineSignal(device);
    device.queue.submit([device.createCommandEncoder().finish()]);
    timeline.signal(1);
    await timeline.wait(1, { timeoutMs: 10_000 });
    const pending = timeline.wait(2, { timeoutMs: 10_000 });
    timeline.signal(2); // before the loss: its completion comes after it
    device.destroy();
    await assert.rejects(pending, { name: "DestroyedError", message: /destroyed/ });
    assert.throws(() => timeline.signal(3), { name: "DestroyedError" });
    await assert.rejects(timeline.wait(2, { timeoutMs: 10_000 }), { name: "DestroyedError" });
    assert.throws(() => timeline.waitSync(2, { timeoutMs: 10 }), { name: "DestroyedError" });
    assert.throws(() => timeline.waitSync(9, { timeoutMs: 10 }), { name: "DestroyedError" });
    await device.queue.onSubmittedWorkDone(); // the marks' completions have been told by now
    assert.equal(timeline.value, 1n, "the work of value 2 never ran on a destroyed device");
    await timeline.wait(1); // reached before the loss: stays reached
  },
});
