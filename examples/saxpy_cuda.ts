// SAXPY on CUDA, the same call as examples/saxpy.ts: y = a * x + y in CUDA C (compiled by NVRTC),
// checked on the CPU. Needs an NVIDIA driver and NVRTC: `deno run --allow-ffi --allow-env
// examples/saxpy_cuda.ts` (GPUCOMPUTE_CUDA_LIBRARY and GPUCOMPUTE_NVRTC_LIBRARY pick the libraries).
import { createClient } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const saxpy: CudaKernel = {
  source: `
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`,
};

const n = 5_000_000;
using client = await createClient({ backend: "cuda" }); // the first CUDA device
using x = client.createWithData(Float32Array.from({ length: n }, (_, i) => i % 100));
using y = client.full(n, 1); // n f32 ones
client.execute(saxpy, { threads: n, buffers: [x, y], params: { a: 3, n } });
const result = await client.read(y); // a Float32Array: y holds f32
console.log(result.slice(0, 4)); // Float32Array [1, 4, 7, 10]

const wrong = result.findIndex((v, i) => v !== 3 * (i % 100) + 1);
if (wrong !== -1) throw new Error(`SAXPY on CUDA: element ${wrong} is ${result[wrong]}`);
console.log(`SAXPY on CUDA, ${n} floats: ok`);
