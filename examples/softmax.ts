// Softmax of a vector: subtract the maximum, exponentiate, divide by the sum.
import { createClient, reduce } from "../mod.ts";

const exp = {
  source: `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> top: array<f32>;
@group(0) @binding(2) var<storage, read_write> e: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&e)) { e[id.x] = exp(x[id.x] - top[0]); }
}`,
};
const divide = {
  source: `
@group(0) @binding(0) var<storage, read> total: array<f32>;
@group(0) @binding(1) var<storage, read_write> e: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&e)) { e[id.x] = e[id.x] / total[0]; }
}`,
};

const n = 10_000;
const data = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 5);
using client = await createClient();
using x = client.createWithData(data);
using e = client.createBytes(n * 4);
using top = reduce(client, x, { op: "max" });
client.execute(exp, { threads: n, buffers: [x, top, e] });
using total = reduce(client, e);
client.execute(divide, { threads: n, buffers: [total, e] });
const softmax = await client.read(e, Float32Array);

const max = Math.max(...data);
const exps = data.map((v) => Math.exp(v - max));
const sum = exps.reduce((a, b) => a + b, 0);
const error = softmax.reduce((worst, v, i) => Math.max(worst, Math.abs(v - exps[i] / sum)), 0);
if (!(error < 1e-6)) throw new Error(`softmax: largest error ${error}`);
console.log(`softmax of ${n} values: ok (largest error ${error.toExponential(1)})`);
