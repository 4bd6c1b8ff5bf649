/**
 * Named params: packed by WGSL uniform layout rules, checked by the GPU reading every field back,
 * and every misuse a KernelArgumentError naming the field.
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError, type WgslKernel } from "../mod.ts";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";
import { packParams } from "../runtime/server/webgpu/launch/_params.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

// Every scalar of the uniform, written out as its bits in declaration order.
const readBack: WgslKernel = {
  id: "params_read_back",
  source: `
struct Light { color: vec3f, intensity: f32 }
struct Params {
  a: f32,
  n: u32,
  k: i32,
  v2: vec2f,
  v3: vec3f,
  v4: vec4i,
  m: mat2x3f,
  lights: array<Light, 2>,
  tail: u32,
}
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  var w = 0u;
  out[w] = bitcast<u32>(p.a); w++;
  out[w] = p.n; w++;
  out[w] = bitcast<u32>(p.k); w++;
  for (var i = 0u; i < 2u; i++) { out[w] = bitcast<u32>(p.v2[i]); w++; }
  for (var i = 0u; i < 3u; i++) { out[w] = bitcast<u32>(p.v3[i]); w++; }
  for (var i = 0u; i < 4u; i++) { out[w] = bitcast<u32>(p.v4[i]); w++; }
  for (var c = 0u; c < 2u; c++) {
    for (var r = 0u; r < 3u; r++) { out[w] = bitcast<u32>(p.m[c][r]); w++; }
  }
  for (var l = 0u; l < 2u; l++) {
    for (var i = 0u; i < 3u; i++) { out[w] = bitcast<u32>(p.lights[l].color[i]); w++; }
    out[w] = bitcast<u32>(p.lights[l].intensity); w++;
  }
  out[w] = p.tail;
}`,
};

const params = {
  a: 1.5,
  n: 4_000_000_000,
  k: -7,
  v2: [0.25, -2],
  v3: [1, 2, 3],
  v4: [-1, 2147483647, -2147483648, 0],
  m: [1, 2, 3, 4, 5, 6], // column-major: columns [1, 2, 3] and [4, 5, 6]
  lights: [{ color: [0.5, 0.25, 0.125], intensity: 10 }, { color: [7, 8, 9], intensity: -1 }],
  tail: 99,
};

const f32Bits = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];
const expected = [
  f32Bits(1.5),
  4_000_000_000,
  -7 >>> 0,
  ...[0.25, -2].map(f32Bits),
  ...[1, 2, 3].map(f32Bits),
  ...[-1, 2147483647, -2147483648, 0].map((x) => x >>> 0),
  ...[1, 2, 3, 4, 5, 6].map(f32Bits),
  ...[0.5, 0.25, 0.125, 10, 7, 8, 9, -1].map(f32Bits),
  99,
];

Deno.test({
  name: "params are packed by WGSL layout rules: the GPU reads every field back",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using out = client.createBytes(expected.length * 4);
    client.execute(readBack, { threads: 1, buffers: [out], params });
    assert.deepEqual([...await client.read(out, Uint32Array)], expected);
  },
});

Deno.test({
  name: "several uniforms are filled by variable name",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const kernel = { source: (await import("./fixtures/wgsl_corpus.ts")).CORPUS[8].kernel.source };
    using a = client.createWithData(new Float32Array([1, 2, 3]));
    using b = client.createBytes(12);
    client.execute(kernel, {
      threads: 3,
      buffers: [a, b],
      params: { scale: 10, offset: [0.5, 0, 0, 0] },
    });
    assert.deepEqual([...await client.read(b, Float32Array)], [10.5, 20.5, 30.5]);
  },
});

Deno.test("every params misuse is a KernelArgumentError naming the field", () => {
  const uniforms = reflectKernel(readBack).bindings.filter((b) => b.space === "uniform");
  const misuse = (change: Record<string, unknown>, argument: string, pattern: RegExp) =>
    assert.throws(
      () => packParams("k", uniforms, { ...params, ...change } as never),
      (e) => e instanceof KernelArgumentError && e.argument === argument && pattern.test(e.message),
      argument,
    );
  misuse({ n: undefined }, "params.n", /is missing \(u32 at byte 4\)/);
  misuse({ extra: 1 }, "params.extra", /is not one of the fields of struct Params \(a, n, k,/);
  misuse({ n: -1 }, "params.n", /integer in \[0, 4294967295\] \(u32\), got -1/);
  misuse({ n: 2 ** 32 }, "params.n", /got 4294967296/);
  misuse({ k: 2 ** 31 }, "params.k", /\(i32\), got 2147483648/);
  misuse({ k: 1.5 }, "params.k", /\(i32\), got 1.5/);
  misuse({ a: 1e39 }, "params.a", /beyond the largest f32/);
  misuse({ a: "1" }, "params.a", /must be a number \(f32\), got "1"/);
  misuse({ v3: [1, 2] }, "params.v3", /must have 3 values \(vec3<f32>\), got 2/);
  misuse({ m: [1, 2, 3] }, "params.m", /must have 6 values \(mat2x3<f32> \(column-major\)\)/);
  misuse({ lights: [{ color: [1, 2, 3], intensity: 1 }] }, "params.lights", /must have 2 values/);
  // Items are named to the component (the names are built on a refusal only, launch/_params.ts).
  misuse({ v3: [1, "2", 3] }, "params.v3[1]", /must be a number \(f32\), got "2"/);
  misuse({ m: [1, 2, 3, 4, 1e39, 6] }, "params.m[4]", /beyond the largest f32/);
  misuse(
    { lights: [params.lights[0], { color: [7, 8, null], intensity: -1 }] },
    "params.lights[1].color[2]",
    /must be a number \(f32\), got null/,
  );
  misuse(
    { lights: [{ color: [1, 2, 3] }, params.lights[1]] },
    "params.lights[0].intensity",
    /is missing \(f32 at byte 108\)/,
  );
  misuse(
    { lights: [{ color: [1, 2, 3], intensity: 1, glow: 2 }, params.lights[1]] },
    "params.lights[0].glow",
    /is not one of the fields of struct Light/,
  );
  assert.throws(
    () => packParams("k", [], { a: 1 }),
    (e) =>
      e instanceof KernelArgumentError && e.argument === "params.a" &&
      /no var<uniform>/.test(e.message),
  );
});

Deno.test("f16 fields are packed as IEEE half floats (no shader-f16 needed to pack)", () => {
  const source = `enable f16;
struct P { h: f16, g: f16, x: f32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { _ = p.h; }`;
  const uniforms = reflectKernel({ source }).bindings;
  const [{ bytes }] = packParams("k", uniforms, { h: 1.5, g: -65504, x: 2 });
  const view = new DataView(bytes.buffer);
  assert.deepEqual([view.getFloat16(0, true), view.getFloat16(2, true), view.getFloat32(4, true)], [
    1.5,
    -65504,
    2,
  ]);
  assert.equal(bytes.byteLength, 16);
  assert.throws(
    () => packParams("k", uniforms, { h: 70000, g: 0, x: 0 }),
    (e) => e instanceof KernelArgumentError && /beyond the largest f16 \(65504\)/.test(e.message),
  );
});
