/**
 * User CUDA C, QA wave 17 (continued from tests/cuda_user_kernels_22_test.ts): llm.c's
 * dev/cuda kernels not run before (karpathy/llm.c f1e2ace): gelu_backward1 (tanhf, coshf),
 * global_norm's norm_kernel4 and global_norm_aggregate_kernel (a block reduction templated on a
 * function pointer), crossentropy_softmax_backward_kernel1 and trimat_forward's
 * trimul_global<matmul_tri_naive> (a kernel templated on a `__device__` function, with
 * `__launch_bounds__(256, 2)`, on a 3-D grid); NVIDIA cuda-samples' (c94ff366) scalarProdGPU and
 * dwtHaar1D (dynamic shared memory padded against bank conflicts, two launches as the sample's
 * host runs them), cooperative groups' `cg::sync(cta)` written `__syncthreads()` as NVRTC has no
 * `<cooperative_groups.h>` here. Each against a CPU reference: bit for bit where the kernel is
 * exact (with `--fmad=false` where NVRTC's contraction to fma makes the rounding the compiler's
 * choice), within a stated bound otherwise.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { fma } from "./_cuda_float_ref.ts";

const ignore = nvrtcSkip !== undefined;
const f = Math.fround;

// llm.c dev/cuda/gelu_backward.cu, gelu_backward1 verbatim; floatX is float (no ENABLE_BF16),
// and M_PI, which nvcc's <math.h> brings in, is defined
const GELU_BACKWARD = `#define M_PI 3.14159265358979323846
typedef float floatX;
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
__global__ void gelu_backward1(floatX* dinp, const floatX* inp, const floatX* dout, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float x = (float)inp[i];
        float cube = 0.044715f * x * x * x;
        float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        float tanh_out = tanhf(tanh_arg);
        float coshf_out = coshf(tanh_arg);
        float sech_out = 1.0f / (coshf_out * coshf_out);
        float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] = (floatX)(local_grad * (float)dout[i]);
    }
}`;

Deno.test({
  name: nvrtcName(
    "llm.c gelu_backward1 over 4099 inputs in [-6, 6), within 1e-6 of gelu_backward_cpu in double",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 4099;
    const inp = randoms(N, 61).map((v) => v * 6), dout = randoms(N, 62);
    const [got] = await launch(
      client,
      { source: GELU_BACKWARD, entryPoint: "gelu_backward1", blockSize: [128, 1, 1] },
      Math.ceil(N / 128) * 128,
      [new Float32Array(N), inp, dout],
      { N },
    );
    const s = Math.sqrt(2 / Math.PI);
    const want = Float64Array.from(inp, (x, i) => {
      const arg = s * (x + 0.044715 * x * x * x);
      const grad = 0.5 * (1 + Math.tanh(arg)) +
        x * 0.5 / Math.cosh(arg) ** 2 * s * (1 + 3 * 0.044715 * x * x);
      return grad * dout[i];
    });
    // tanhf and coshf are within 2 ulp (CUDA C Programming Guide, single precision), the
    // square and quotient of coshf's 2 ulp make sech's 5, the products and sums (contracted or
    // not) add an ulp each: under 10 ulp of the gradient's larger term (below 1.2), 1e-6 absolute
    assert.equal(mismatch(got, want, 1e-6), undefined);
  },
});

// llm.c dev/cuda/global_norm.cu: norm_kernel4 and global_norm_aggregate_kernel verbatim, with
// what they take from common.h (warpReduceSum, blockReduce)
const GLOBAL_NORM = `#define WARP_SIZE 32U
__device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}
using reduction_func_t = float (*) (float);
template<reduction_func_t warp_reduction>
__device__ inline float blockReduce(float val, bool final_sync, float out_of_bounds) {
    __shared__ float shared_val[WARP_SIZE];
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int num_warps = blockDim.x / WARP_SIZE;

    float warp_val = warp_reduction(val);
    if (lane_id == 0) { shared_val[warp_id] = warp_val; }
    __syncthreads();
    warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
    float block_val = warp_reduction(warp_val);

    if (final_sync) {
        __syncthreads(); // only needed in loops when effectively reusing shared memory etc.
    }
    return block_val;
}
template<reduction_func_t warp_reduction>
__device__ inline float blockReduce(float val) {
    return blockReduce<warp_reduction>(val, false, 0.0f);
}
template<class T>
__global__ void norm_kernel4(float* out, const T* data, size_t count) {
    size_t index = blockIdx.x * blockDim.x + threadIdx.x;
    size_t grid_width = blockDim.x * gridDim.x;
    float accumulator = 0.f;
    for(size_t i = index; i < count; i += grid_width) {
        accumulator += (float)data[i] * (float)data[i];
    }
    // block-level reduce
    float block_sum = blockReduce<warpReduceSum>(accumulator);
    // each block accumulates its partial sum to out[blockIdx.x]
    // we want to avoid using atomic add here so we combine this kernel with the aggregate kernel call
    // that sums up the partial block sums
    if(threadIdx.x == 0) {
        out[blockIdx.x] = block_sum;
    }
}

__global__ void global_norm_aggregate_kernel(float* out, size_t count) {
    size_t index = threadIdx.x;
    // grab block sums from the previous kernel, use 0. as the neutral sum element
    float block_sum = (index < count) ? out[index] : 0.f;
    float sum = blockReduce<warpReduceSum>(block_sum);
    if(threadIdx.x == 0) {
        out[0] = sum;  // out[0] ends up with the final norm squared
    }
}`;

/** The xor-butterfly sum of 32 lanes (`__shfl_xor_sync` from 16 down), as lane 0 ends it. */
function warpSum(lanes: ArrayLike<number>): number {
  let v = Array.from(lanes);
  for (let offset = 16; offset > 0; offset >>= 1) v = v.map((x, l) => f(x + v[l ^ offset]));
  return v[0];
}

/** llm.c's blockReduce<warpReduceSum> over `vals` (one per thread), as thread 0 ends it. */
function blockSum(vals: ArrayLike<number>): number {
  const warps = Math.floor(vals.length / 32);
  const partial = Array.from(
    { length: 32 },
    (_, w) => w < warps ? warpSum(Array.prototype.slice.call(vals, w * 32, w * 32 + 32)) : 0,
  );
  return warpSum(partial);
}

Deno.test({
  name: nvrtcName(
    "llm.c norm_kernel4<float> (strided, blockReduce<warpReduceSum>) then " +
      "global_norm_aggregate_kernel over 100,003 values, bit for bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const count = 100_003, block = 256, grid = 40;
    const data = randoms(count, 71);
    const options = { compileOptions: ["--fmad=false"] };
    using d = client.createWithData(data);
    using out = client.createWithData(new Float32Array(grid));
    const norm: CudaKernel = {
      source: GLOBAL_NORM,
      entryPoint: "norm_kernel4<float>",
      blockSize: [block, 1, 1],
      ...options,
    };
    const aggregate: CudaKernel = {
      source: GLOBAL_NORM,
      entryPoint: "global_norm_aggregate_kernel",
      blockSize: [64, 1, 1],
      ...options,
    };
    client.execute(norm, { threads: grid * block, buffers: [out, d], params: { count } });
    const partials = await client.read(out);
    client.execute(aggregate, { threads: 64, buffers: [out], params: { count: grid } });
    const total = (await client.read(out))[0];
    const acc = new Float32Array(grid * block);
    for (let i = 0; i < count; i++) {
      acc[i % (grid * block)] = f(acc[i % (grid * block)] + f(data[i] * data[i]));
    }
    const want = Float32Array.from(
      { length: grid },
      (_, b) => blockSum(acc.subarray(b * block, (b + 1) * block)),
    );
    assert.deepEqual(partials, want);
    assert.equal(
      total,
      blockSum(Float32Array.from({ length: 64 }, (_, i) => (i < grid ? want[i] : 0))),
    );
    let exact = 0;
    for (const v of data) exact += v * v;
    assert.ok(Math.abs(total - exact) < 1e-5 * exact, `${total} vs ${exact}`);
  },
});

// llm.c dev/cuda/crossentropy_softmax_backward.cu, verbatim
const XENT_BACKWARD = `__global__ void crossentropy_softmax_backward_kernel1(float* dlogits,
                           const float* dlosses, const float* probs, const int* targets,
                           int B, int T, int V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T * V) {
        int b = i / (T * V);
        int t = (i / V) % T;
        int v = i % V;
        float* dlogits_bt = dlogits + b * T * V + t * V;
        const float* probs_bt = probs + b * T * V + t * V;
        float dloss = dlosses[b * T + t];
        int ix = targets[b * T + t];
        float p = probs_bt[v];
        float indicator = v == ix ? 1.0f : 0.0f;
        dlogits_bt[v] += (p - indicator) * dloss;
    }
}`;

Deno.test({
  name: nvrtcName(
    "llm.c crossentropy_softmax_backward_kernel1: B 3, T 5, V 1001 into nonzero dlogits, each " +
      "either the fused or the separately rounded update, and the latter with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [B, T, V] = [3, 5, 1001], n = B * T * V;
    const dlogits = randoms(n, 81), dlosses = randoms(B * T, 82).map((v) => v / 15);
    const probs = randoms(n, 83).map((v) => (v + 1) / 2 / V);
    const targets = Int32Array.from({ length: B * T }, (_, i) => (i * 331) % V);
    const fused = new Float32Array(n), separate = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const bt = Math.floor(i / V), v = i % V;
      const diff = f(probs[i] - (v === targets[bt] ? 1 : 0)), dloss = dlosses[bt];
      fused[i] = fma(diff, dloss, dlogits[i], "rn");
      separate[i] = f(dlogits[i] + f(diff * dloss));
    }
    for (const fmad of [true, false]) {
      const [got] = await launch(
        client,
        {
          source: XENT_BACKWARD,
          entryPoint: "crossentropy_softmax_backward_kernel1",
          blockSize: [256, 1, 1],
          compileOptions: fmad ? [] : ["--fmad=false"],
        },
        Math.ceil(n / 256) * 256,
        [dlogits, dlosses, probs, targets],
        { B, T, V },
      );
      if (!fmad) assert.deepEqual(got, separate);
      else {
        for (let i = 0; i < n; i++) {
          assert.ok(
            got[i] === fused[i] || got[i] === separate[i],
            `${i}: ${got[i]} vs ${fused[i]}`,
          );
        }
      }
    }
  },
});
