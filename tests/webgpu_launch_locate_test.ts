/**
 * A WebGPU launch locates each buffer once, before its params are read (launch/launcher.ts): a
 * handle disposed while they are read (a getter of the params object disposing it) is refused
 * with `INVALID_HANDLE` as before, not bound to memory it no longer owns; and a launch of two
 * buffers that alternate binds each to its own memory.
 */
import assert from "node:assert/strict";
import { createClient, InvalidHandleError } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined;

const AXPB = {
  source: `struct P { a: f32, b: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&y)) { y[g.x] = p.a * x[g.x] + p.b; }
}`,
};

Deno.test({
  name: "a buffer disposed while a launch reads its params is refused, and nothing runs",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using y = client.zeros(4);
    client.execute(AXPB, { threads: 4, buffers: [x, y], params: { a: 2, b: 1 } });
    const gone = client.zeros(4);
    const params = {
      get a() {
        gone.dispose(); // while the launch packs its params, after its buffers were located
        return 3;
      },
      b: 0,
    };
    assert.throws(
      () => client.execute(AXPB, { threads: 4, buffers: [x, gone], params }),
      (e) => e instanceof InvalidHandleError && /dispose\(\)/.test(e.message),
    );
    // the client still runs, and the buffers alternate, each bound to its own memory
    using z = client.zeros(4);
    client.execute(AXPB, { threads: 4, buffers: [y, z], params: { a: 10, b: 0 } });
    client.execute(AXPB, { threads: 4, buffers: [z, y], params: { a: 0.5, b: 0 } });
    assert.deepEqual([...await client.read(z)], [30, 50, 70, 90]);
    assert.deepEqual([...await client.read(y)], [15, 25, 35, 45]);
  },
});
