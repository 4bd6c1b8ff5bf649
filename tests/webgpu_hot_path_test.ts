/**
 * The shortcuts of the launch path (issue #22) never give a stale answer: the bind-group cache's
 * two most recent groups, the memory's last located slice, the arguments' last encoded scalars.
 */
import assert from "node:assert/strict";
import { KernelArguments } from "../backend.ts";
import { BindGroupCache } from "../runtime/server/webgpu/launch/_bind_group_cache.ts";
import { createClient, CubeCount } from "../mod.ts";
import { increment } from "./_wgsl_kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();
const noAdapter = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test("the arguments re-encode scalars whose values changed, even in the same array", () => {
  const args = new KernelArguments();
  const values = [1.5, 2];
  args.withScalar("f32", values);
  const first = args.scalars.get("f32")!;
  args.clear().withScalar("f32", values);
  assert.equal(args.scalars.get("f32"), first, "equal values: the encoding is reused");
  values[1] = 3; // the caller's array changed since
  args.clear().withScalar("f32", values);
  const changed = args.scalars.get("f32")!;
  assert.notEqual(changed, first);
  assert.deepEqual([...new Float32Array(changed.bytes.buffer)], [1.5, 3]);
  args.clear().withScalar("f32", [1.5, -0]);
  const negativeZero = new Uint8Array(args.scalars.get("f32")!.bytes);
  args.clear().withScalar("f32", [1.5, 0]);
  assert.notDeepEqual(new Uint8Array(args.scalars.get("f32")!.bytes), negativeZero, "-0 is not 0");
  assert.throws(() => args.clear().withScalar("u32", [1.5]), RangeError, "still checked");
});

Deno.test("the bind-group cache's recent groups: ping-pong hits, a third group evicts, clear forgets", () => {
  let made = 0;
  const device = { createBindGroup: () => ({ made: made++ }) } as unknown as GPUDevice;
  const cache = new BindGroupCache(device);
  const layout = {} as GPUBindGroupLayout;
  const [x, y, z] = [{}, {}, {}] as GPUBuffer[];
  const entries = (a: GPUBuffer, b: GPUBuffer, size = 16) => [
    { binding: 0, resource: { buffer: a, offset: 0, size } },
    { binding: 1, resource: { buffer: b, offset: 0, size } },
  ];
  const xy = cache.get(layout, entries(x, y));
  const yx = cache.get(layout, entries(y, x));
  assert.equal(made, 2);
  for (let i = 0; i < 4; i++) {
    assert.equal(cache.get(layout, entries(x, y)), xy);
    assert.equal(cache.get(layout, entries(y, x)), yx);
  }
  assert.equal(made, 2, "ping-pong creates nothing");
  assert.notEqual(cache.get(layout, entries(x, y, 32)), xy, "another size is another group");
  const xz = cache.get(layout, entries(x, z));
  assert.equal(cache.get(layout, entries(x, y)), xy, "evicted from the recent two, found by key");
  assert.notEqual(cache.get({} as GPUBindGroupLayout, entries(x, z)), xz, "another layout");
  const before = made;
  cache.clear();
  assert.notEqual(cache.get(layout, entries(x, y)), xy, "cleared: a new group");
  assert.equal(made, before + 1);
});

Deno.test({
  name: "a ref located by the last launch still fails after its handle is disposed",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const data = client.createWithData(new Uint32Array(64));
    const ref = data.ref();
    const launch = () => client.execute(increment, { count: CubeCount.new1d(1), buffers: [ref] });
    launch();
    launch(); // the memory's last located slice is this one
    data.dispose();
    assert.throws(launch, { code: "INVALID_HANDLE" });
    using other = client.createWithData(new Uint32Array(64));
    client.execute(increment, { count: CubeCount.new1d(1), buffers: [other] });
    assert.deepEqual([...(await client.read(other)).slice(0, 2)], [1, 1]);
  },
});
