/**
 * Several bind groups and named buffers: kernels in the styles of real shaders (a per-pass
 * uniform in group 1, buffers spread over groups), each bit-identical to the same WGSL run by a
 * plain WebGPU program on the same adapter; named buffers bind by WGSL name whatever the key
 * order, and an unknown or missing name is a KernelArgumentError naming it, at the call.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, createClient, KernelArgumentError, type WgslKernel } from "../mod.ts";
import { bytesOf, runPlain } from "./_plain_webgpu.ts";
import { PASS_WGSL, SPREAD_WGSL } from "./_wgsl_corpus_27.ts";
import { BindGroupCache } from "../runtime/server/webgpu/launch/_bind_group_cache.ts";
import { ValidatedShapes } from "../runtime/server/webgpu/queue/_device_validation.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({ name: "a per-pass uniform in group 1 matches plain WebGPU", ignore }, async () => {
  using client = await createClient();
  const src = Float32Array.from({ length: 200 }, (_, i) => Math.sin(i) * 3.7);
  using input = client.createWithData(src);
  using output = client.zeros(200);
  const params = { gain: 1.75, bias: -0.25, frame: 7, _pad: 0 };
  client.execute({ source: PASS_WGSL }, { threads: 200, buffers: [input, output], params });
  const got = await client.read(output);
  const uniform = new ArrayBuffer(16);
  new Float32Array(uniform, 0, 2).set([1.75, -0.25]);
  new Uint32Array(uniform, 8, 1)[0] = 7;
  const [, plain] = await runPlain(PASS_WGSL, [
    { group: 0, binding: 0, buffer: src },
    { group: 0, binding: 1, buffer: new Float32Array(200) },
    { group: 1, binding: 0, buffer: new Uint8Array(uniform), uniform: true },
  ], [4]);
  assert.deepEqual(bytesOf(got), plain);
  assert.notDeepEqual(got, new Float32Array(200));
});

Deno.test(
  { name: "buffers bind in (group, binding) order, with an empty group", ignore },
  async () => {
    using client = await createClient();
    const a = Uint32Array.from({ length: 70 }, (_, i) => i);
    const b = Uint32Array.from({ length: 70 }, (_, i) => 500 + i);
    using ha = client.createWithData(a);
    using hb = client.createWithData(b);
    using out = client.zeros(70, "u32");
    // (0,1) out, (0,3) b, (2,0) a.
    client.execute({ source: SPREAD_WGSL }, { threads: 70, buffers: [out, hb, ha] });
    const got = await client.read(out);
    const [plain] = await runPlain(SPREAD_WGSL, [
      { group: 0, binding: 1, buffer: new Uint32Array(70) },
      { group: 0, binding: 3, buffer: b },
      { group: 2, binding: 0, buffer: a },
    ], [2]);
    assert.deepEqual(bytesOf(got), plain);
    assert.equal(got[69], 69 * 1000 + 569);
  },
);

Deno.test({ name: "named buffers bind by WGSL name, in any key order", ignore }, async () => {
  using client = await createClient();
  const a = Uint32Array.from({ length: 70 }, (_, i) => i + 1);
  const b = Uint32Array.from({ length: 70 }, (_, i) => 3 * i);
  using ha = client.createWithData(a);
  using hb = client.createWithData(b);
  using out = client.zeros(70, "u32");
  client.execute({ source: SPREAD_WGSL }, { threads: 70, buffers: { b: hb, out, a: ha } });
  const got = await client.read(out);
  const [plain] = await runPlain(SPREAD_WGSL, [
    { group: 0, binding: 1, buffer: new Uint32Array(70) },
    { group: 0, binding: 3, buffer: b },
    { group: 2, binding: 0, buffer: a },
  ], [2]);
  assert.deepEqual(bytesOf(got), plain);
  // Named with a group-1 uniform beside them.
  using src = client.createWithData(new Float32Array([1, 2, 3]));
  using dst = client.zeros(3);
  client.execute({ source: PASS_WGSL }, {
    threads: 3,
    buffers: { dst, src },
    params: { gain: 2, bias: 1, frame: 0, _pad: 0 },
  });
  assert.deepEqual(await client.read(dst), new Float32Array([3, 5, 7]));
});

Deno.test(
  { name: "an unknown or missing buffer name is refused at the call", ignore },
  async () => {
    using client = await createClient();
    using x = client.zeros(70, "u32");
    const kernel: WgslKernel = { source: SPREAD_WGSL };
    const refuse = (buffers: Record<string, typeof x>, argument: string, text: RegExp) =>
      assert.throws(() => client.execute(kernel, { threads: 70, buffers }), (error) => {
        assert.ok(error instanceof KernelArgumentError, String(error));
        assert.equal(error.argument, argument);
        assert.match(error.message, text);
        return true;
      });
    refuse({ a: x, b: x, outt: x }, "buffers.outt", /not a storage or texture binding.*out, b, a/);
    refuse({ a: x, out: x }, "buffers.b", /is missing.*@group\(0\) @binding\(3\)/);
    refuse({ a: x, b: x, out: x, extra: x }, "buffers.extra", /not a storage/);
    const pass: WgslKernel = { source: PASS_WGSL };
    assert.throws(
      () => client.execute(pass, { threads: 1, buffers: { src: x, dst: x, pass_: x } }),
      /buffers\.pass_.*var<uniform>: pass its fields in params/,
    );
    // Held stream: still refused at the call.
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1);
    assert.throws(
      () => client.execute(kernel, { threads: 70, buffers: { a: x, b: x, nope: x } }),
      /buffers\.nope/,
    );
    gate.set(1);
    // Usable after.
    using a = client.createWithData(new Uint32Array(70).fill(2));
    client.execute(kernel, { threads: 70, buffers: { a, b: a, out: x } });
    assert.equal((await client.read(x))[5], 2002);
  },
);

Deno.test("a bind-group shape is accepted for all of a launch's groups, not group 0 alone", () => {
  // The encoder shares a submission only among launches whose shape the device accepted: a
  // launch that differs from an accepted one in group 1 only must not pass for validated.
  let ids = 0;
  const device = { createBindGroup: () => ({ id: ids++ }) } as unknown as GPUDevice;
  const cache = new BindGroupCache(device);
  const shapes = new ValidatedShapes(cache);
  const [layout0, layout1] = [{}, {}] as GPUBindGroupLayout[];
  const buffer = {} as GPUBuffer;
  const group = (layout: GPUBindGroupLayout, size: number) =>
    cache.get(layout, [{ binding: 0, resource: { buffer, offset: 0, size } }]);
  const accepted = { bindGroup: group(layout0, 64), groups: [group(layout1, 16)] };
  const otherGroup1 = { bindGroup: group(layout0, 64), groups: [group(layout1, 4)] };
  assert.equal(shapes.isValid(accepted), false);
  shapes.accept(shapes.shape(accepted), accepted);
  assert.equal(shapes.isValid(accepted), true);
  assert.equal(shapes.isValid(otherGroup1), false);
  shapes.reject(shapes.shape(otherGroup1), "binding too small");
  assert.equal(shapes.rejection(otherGroup1), "binding too small");
  assert.equal(shapes.rejection(accepted), undefined);
  // One group: found by its object once accepted.
  const single = { bindGroup: group(layout0, 32), groups: undefined };
  shapes.accept(shapes.shape(single), single);
  assert.equal(shapes.isValid(single), true);
});
