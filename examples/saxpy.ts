// SAXPY on 5M floats (past 65,535 workgroups: still right): y = a * x + y, checked on the CPU.
import { createClient, type WgslKernel } from "../mod.ts";

const saxpy: WgslKernel = {
  source: `
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
}`,
};

const n = 5_000_000;
const xs = Float32Array.from({ length: n }, (_, i) => i % 100);
const ys = Float32Array.from({ length: n }, (_, i) => 1 - (i % 7));
using client = await createClient();
using x = client.createWithData(xs); // an f32 handle: the kernel's array<f32> matches
using y = client.createWithData(ys);
client.execute(saxpy, { threads: n, buffers: [x, y], params: { a: 3, n } });
const out = await client.read(y); // a Float32Array, the handle's type
const wrong = out.findIndex((v, i) => v !== 3 * xs[i] + ys[i]);
if (wrong !== -1) throw new Error(`SAXPY: element ${wrong} is ${out[wrong]}`);
console.log(`SAXPY on ${n} floats: ok`);
