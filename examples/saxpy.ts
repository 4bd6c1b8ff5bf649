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
using client = await createClient(); // the default WebGPU adapter
using x = client.createWithData(Float32Array.from({ length: n }, (_, i) => i % 100));
using y = client.full(n, 1); // n f32 ones
client.execute(saxpy, { threads: n, buffers: [x, y], params: { a: 3, n } });
const result = await client.read(y); // a Float32Array: y holds f32
console.log(result.slice(0, 4)); // Float32Array [1, 4, 7, 10]

const wrong = result.findIndex((v, i) => v !== 3 * (i % 100) + 1);
if (wrong !== -1) throw new Error(`SAXPY: element ${wrong} is ${result[wrong]}`);
console.log(`SAXPY on ${n} floats: ok`);
