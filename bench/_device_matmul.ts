/**
 * The tuned matmul's throughput at one size (square, f32) on one backend, for the device runs of
 * issue #28 (`tools/device_run.sh`): tunes `matmulSet`, then times the winner with `profile()`
 * (device time) over a few launches, and checks 64 sampled entries of the product against a
 * float64 CPU dot product (relative error under 1e-3 of the row's magnitude). Prints one line:
 * backend, size, winner, TFLOP/s device-timed and host-timed.
 *
 * Run: `deno run -A bench/_device_matmul.ts cuda|webgpu [n]` (default n 4096; `cuda` takes the
 * driver from `GPUCOMPUTE_CUDA_LIBRARY`, else `libcuda.so.1`). Exits non-zero on a wrong entry.
 *
 * @module
 */
import { createClient } from "../mod.ts";
import { matmulSet, Tuner } from "../runtime/tune/mod.ts";

const backend = Deno.args[0] === "cuda" ? "cuda" : "webgpu";
const n = Number(Deno.args[1] ?? 4096);
const LAUNCHES = 5;

const adapter = backend === "webgpu" ? await navigator.gpu.requestAdapter() : null;
if (adapter !== null) {
  const { vendor, architecture, device, description } = adapter.info;
  console.log(`adapter: ${[vendor, architecture, device, description].join(" / ")}`);
}
using client = backend === "cuda"
  ? await createClient({ backend: "cuda" })
  : await createClient(adapter === null ? {} : { adapter });
const set = matmulSet(client);
const tuner = new Tuner(client, { persistent: false, progressBar: false });
const data = Float32Array.from({ length: n * n }, () => Math.random() * 2 - 1);
using a = client.createWithData(data);
using b = client.createWithData(data);
const inputs = { a, b, m: n, n, k: n };
const outcome = await tuner.tune(set, inputs);

const hostStart = performance.now();
const { result, duration } = await client.profile(async () => {
  for (let i = 0; i < LAUNCHES - 1; i++) (await tuner.execute(set, inputs)).dispose();
  return await tuner.execute(set, inputs);
});
using c = await result;
const product = await client.read(c) as Float32Array;
const hostMs = performance.now() - hostStart;

// 64 sampled entries against a float64 dot product (a and b hold the same matrix).
let worst = 0;
for (let s = 0; s < 64; s++) {
  const row = Math.floor(Math.random() * n), col = Math.floor(Math.random() * n);
  let exact = 0, scale = 0;
  for (let k = 0; k < n; k++) {
    const term = data[row * n + k] * data[k * n + col];
    exact += term;
    scale += Math.abs(term);
  }
  worst = Math.max(worst, Math.abs(product[row * n + col] - exact) / Math.max(scale, 1e-30));
}
const flop = 2 * n ** 3 * LAUNCHES;
console.log(
  `matmul ${backend} n=${n}: winner ${outcome.fastest}, ` +
    `${(flop / duration.milliseconds / 1e9).toFixed(2)} TFLOP/s device-timed ` +
    `(${(duration.milliseconds / LAUNCHES).toFixed(2)} ms each), ` +
    `${(flop / hostMs / 1e9).toFixed(2)} TFLOP/s host-timed with the read; ` +
    `worst sampled relative error ${worst.toExponential(2)}`,
);
if (!(worst < 1e-3)) throw new Error(`matmul ${backend} n=${n}: a sampled entry is wrong`);
