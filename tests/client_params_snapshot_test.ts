/**
 * A launch that runs after its call (held behind a `waitFor`, captured, a replay's new params)
 * runs the params' values of its call, as a launch on a free stream does: the caller changing its
 * params objects afterwards changes nothing (WebGPU here; tests/cuda_struct_layout_test.ts has
 * CUDA's structs).
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, createClient, type WgslKernel } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();

const write: WgslKernel = {
  id: "params_snapshot_write",
  source: `
struct P { a: f32, v: vec2f }
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { y[0] = p.a; y[1] = p.v.x; y[2] = p.v.y; }`,
};

Deno.test({
  name: "held launches, captures and replays run the params of their call, not later changes",
  ignore: adapter === null || adapter === undefined,
  async fn() {
    using client = await createClient();
    using y = client.zeros(3);
    const run = (params: { a: number; v: number[] }) =>
      client.execute(write, { threads: 1, buffers: [y], params });
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1);
    const params = { a: 1, v: [2, 3] };
    run(params);
    params.a = 10; // after the call
    params.v[1] = 30;
    gate.set(1);
    assert.deepEqual([...await client.read(y)], [1, 2, 3]);

    const captured = { a: 4, v: [5, 6] };
    using graph = await client.capture(() => run(captured));
    captured.v[0] = 50;
    graph.replay();
    assert.deepEqual([...await client.read(y)], [4, 5, 6]);
    const next = { v: [7, 8] };
    graph.replay({ params: next });
    next.v[0] = 70;
    graph.replay({ params: { a: 9 } });
    assert.deepEqual([...await client.read(y)], [9, 7, 8]);
  },
});
