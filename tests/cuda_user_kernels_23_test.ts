/**
 * User CUDA C, QA wave 17 (continued from tests/cuda_user_kernels_22_test.ts): llm.c's dev/cuda
 * kernels not run before (karpathy/llm.c f1e2ace): gelu_backward1 (tanhf, coshf), global_norm's
 * norm_kernel4 and global_norm_aggregate_kernel (a block reduction templated on a function
 * pointer), crossentropy_softmax_backward_kernel1, attention_forward1's three kernels and
 * trimat_forward's trimul_global<matmul_tri_naive> (a kernel templated on a `__device__` function,
 * with `__launch_bounds__(256, 2)`, on a 3-D grid); NVIDIA cuda-samples' (c94ff366) scalarProdGPU,
 * dwtHaar1D (dynamic shared memory padded against bank conflicts, two launches as the sample's host
 * runs them), sortingNetworks' odd-even merge sort (a shared pass and 23 in-place global
 * launches), quasirandomGenerator's inverseCNDKernel (`__logf`, `__umul24`) and
 * recursiveGaussian's d_simpleRecursive_rgba and d_transpose (helper_math's float4 operators
 * inlined), and the 64-bit generators users paste into kernels (pcg32, splitmix64, fmix64);
 * the samples' `cg::sync(cta)` is written `__syncthreads()`, as NVRTC has no
 * `<cooperative_groups.h>` here. Each against a CPU reference: bit for bit where the kernel is
 * exact (with `--fmad=false` where NVRTC's contraction to fma makes the rounding the compiler's
 * choice), within a stated bound otherwise.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms, xorWarpSum } from "./_cuda_user_run.ts";
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

/** llm.c's blockReduce<warpReduceSum> over `vals` (one per thread), as thread 0 ends it. */
function blockSum(vals: ArrayLike<number>): number {
  const warps = Math.floor(vals.length / 32);
  const partial = Array.from(
    { length: 32 },
    (_, w) => w < warps ? xorWarpSum(Array.prototype.slice.call(vals, w * 32, w * 32 + 32)) : 0,
  );
  return xorWarpSum(partial);
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

// llm.c dev/cuda/trimat_forward.cu: matmul_fn_ptr, trimul_global and matmul_tri_naive verbatim
// (comments shortened)
const TRIMAT =
  `using matmul_fn_ptr = void(*)(float* p, int PS, const float* k, int KS, const float* q, int QS, int T, int HS, float alpha);

template<matmul_fn_ptr matmul_tri>
__global__ void __launch_bounds__(256, 2) trimul_global(float* out, const float* inp, int T, int C, int NH) {
    // skip above the diagonal
    if(blockIdx.y > blockIdx.x)
        return;

    // set up indices
    int C3 = C*3;
    int HS = C / NH; // head size
    float scale = 1.0 / sqrtf(HS);

    // we put the "batch x head" dimension into the z block index.
    int b = blockIdx.z / NH;
    int nh = blockIdx.z % NH;

    // Get the base address for the current batch and head
    // shapes -> inp (B, T, 3, NH, HS), Q (B, NH, T, HS), K (B, NH, T, HS)
    const float* q = inp + b * T * C3 + nh * HS;  // Q[b][nh][:][:] = inp[b][:][0][nh][:]
    const float* k = inp + b * T * C3 + nh * HS + C;  // K[b][nh][:][:] = inp[b][:][1][nh][:]
    float* r = out + (b*NH + nh)*T*T;  // out[b][nh][:][:]

    // start the multiplication
    matmul_tri(r, T, k, C3, q, C3, T, HS, scale);
}

// baseline implementation: 20 ms
__device__ void matmul_tri_naive(float* p, int PS, const float* k, int KS, const float* q, int QS, int T, int HS, float alpha) {
    // get coordinates of our block - each thread is responsible for a single 8x8 block.
    int i_base = 128 * blockIdx.x + 8 * threadIdx.x;
    int j_base = 128 * blockIdx.y + 8 * threadIdx.y;

    // One more check to skip the upper diagonal in blocks that are on the diagonal.
    if(j_base > i_base)
        return;

    // Simple nested loop that calculates 8x8 results in one thread.
    for(int io = 0; io < 8; ++io) {
        int i = i_base + io;
        for(int jo = 0; jo < 8; ++jo) {
            int j = j_base + jo;
            float val = 0;
            for (int s = 0; s < HS; ++s) {
                val += q[i * QS + s] * k[j * KS + s];
            }
            p[i * PS + j] = val * alpha;
        }
    }
}`;

Deno.test({
  name: nvrtcName(
    "llm.c trimul_global<matmul_tri_naive> (a template on a __device__ function, " +
      "__launch_bounds__(256, 2)): B 1, T 256, 2 heads of 8 over blocks of [16, 16] on a " +
      "[2, 2, 2] grid, the causal half as trimul_cpu, bit for bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [B, T, NH, HS] = [1, 256, 2, 8], C = NH * HS, C3 = 3 * C;
    const inp = randoms(B * T * C3, 91);
    const [got] = await launch(
      client,
      {
        source: TRIMAT,
        entryPoint: "trimul_global<matmul_tri_naive>",
        blockSize: [16, 16, 1],
        compileOptions: ["--fmad=false"],
      },
      [16 * T / 128, 16 * T / 128, NH * B],
      [new Float32Array(B * NH * T * T).fill(-7), inp],
      { T, C, NH },
    );
    const scale = f(1 / f(Math.sqrt(HS)));
    for (let nh = 0; nh < NH; nh++) {
      for (let i = 0; i < T; i++) {
        for (let j = 0; j < T; j++) {
          const at = nh * T * T + i * T + j;
          // the kernel computes each 8x8 tile that starts on or below the diagonal whole
          if (Math.floor(j / 8) > Math.floor(i / 8)) {
            assert.equal(got[at], -7, `head ${nh}, (${i}, ${j}) above the diagonal`);
            continue;
          }
          let val = 0;
          for (let s = 0; s < HS; s++) {
            val = f(val + f(inp[i * C3 + nh * HS + s] * inp[j * C3 + C + nh * HS + s]));
          }
          assert.equal(got[at], f(val * scale), `head ${nh}, (${i}, ${j})`);
        }
      }
    }
  },
});

// cuda-samples Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh, verbatim but
// cg::sync(cta) written __syncthreads()
const SCALAR_PROD = `#define IMUL(a, b) __mul24(a, b)
#define ACCUM_N 1024
__global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    // Accumulators cache
    __shared__ float accumResult[ACCUM_N];

    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int vectorBase = IMUL(elementN, vec);
        int vectorEnd  = vectorBase + elementN;

        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;

            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];

            accumResult[iAccum] = sum;
        }

        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();

            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }

        __syncthreads();

        if (threadIdx.x == 0)
            d_C[vec] = accumResult[0];
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples scalarProdGPU: 37 vectors of 2100 elements on 16 blocks of 128 (blocks loop " +
      "over vectors), bit for bit with --fmad=false, within 1e-5 of it as compiled",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [vectorN, elementN] = [37, 2100];
    const a = randoms(vectorN * elementN, 101), b = randoms(vectorN * elementN, 102);
    const want = new Float32Array(vectorN);
    for (let vec = 0; vec < vectorN; vec++) {
      const acc = new Float32Array(1024), base = vec * elementN;
      for (let i = 0; i < 1024; i++) {
        for (let pos = base + i; pos < base + elementN; pos += 1024) {
          acc[i] = f(acc[i] + f(a[pos] * b[pos]));
        }
      }
      for (let stride = 512; stride > 0; stride >>= 1) {
        for (let i = 0; i < stride; i++) acc[i] = f(acc[i] + acc[stride + i]);
      }
      want[vec] = acc[0];
    }
    for (const fmad of [false, true]) {
      const [c] = await launch(
        client,
        {
          source: SCALAR_PROD,
          entryPoint: "scalarProdGPU",
          blockSize: [128, 1, 1],
          compileOptions: fmad ? [] : ["--fmad=false"],
        },
        16 * 128,
        [new Float32Array(vectorN), a, b],
        { vectorN, elementN },
      );
      if (!fmad) assert.deepEqual(c, want);
      // the products contracted into the sums (3 per accumulator) round once less: the
      // accumulators stay below 3, so each moves by under 3 * 2^-22; 1024 of them, 1e-5 in all
      else assert.equal(mismatch(c, want, 1e-5), undefined);
    }
  },
});

// cuda-samples Samples/5_Domain_Specific/dwtHaar1D/dwtHaar1D_kernel.cuh, verbatim but
// cg::sync(cta) written __syncthreads(), with the two constants of dwtHaar1D.cu (INV_SQRT_2 keeps
// its trailing semicolon, as the sample writes it)
const DWT_HAAR = `#define INV_SQRT_2 0.70710678118654752440f;
const unsigned int LOG_NUM_BANKS = 4;
__global__ void dwtHaar1D(float             *id,
                          float             *od,
                          float             *approx_final,
                          const unsigned int dlevels,
                          const unsigned int slength_step_half,
                          const int          bdim)
{
    // shared memory for part of the signal
    extern __shared__ float shared[];

    // thread runtime environment, 1D parametrization
    const int gdim = gridDim.x;
    // const int bdim = blockDim.x;
    const int bid = blockIdx.x;
    const int tid = threadIdx.x;

    // global thread id (w.r.t. to total data set)
    const int    tid_global = (bid * bdim) + tid;
    unsigned int idata      = (bid * (2 * bdim)) + tid;

    // read data from global memory
    shared[tid]        = id[idata];
    shared[tid + bdim] = id[idata + bdim];
    __syncthreads();

    // this operation has a two way bank conflicts for all threads, this are two
    // additional cycles for each warp -- all alternatives to avoid this bank
    // conflict are more expensive than the one cycle introduced by serialization
    float data0 = shared[2 * tid];
    float data1 = shared[(2 * tid) + 1];
    __syncthreads();

    // detail coefficient, not further referenced so directly store in
    // global memory
    od[tid_global + slength_step_half] = (data0 - data1) * INV_SQRT_2;

    // offset to avoid bank conflicts
    // see the scan example for a more detailed description
    unsigned int atid = tid + (tid >> LOG_NUM_BANKS);

    // approximation coefficient
    // store in shared memory for further decomposition steps in this global step
    shared[atid] = (data0 + data1) * INV_SQRT_2;

    // all threads have to write approximation coefficient to shared memory before
    // next steps can take place
    __syncthreads();

    // early out if possible
    // the compiler removes this part from the source because dlevels is
    // a constant shader input
    // note: syncthreads in bodies of branches can lead to dead-locks unless the
    // the condition evaluates the same way for ALL threads of a block, as in
    // this case
    if (dlevels > 1) {
        // offset to second element in shared element which has to be used for the
        // decomposition, effectively 2^(i - 1)
        unsigned int offset_neighbor = 1;
        // number of active threads per decomposition level
        // identical to the offset for the detail coefficients
        unsigned int num_threads = bdim >> 1;

        // index for the first element of the pair to process
        // the representation is still compact (and therefore still tid * 2)
        // because the first step operated on registers and only the result has been
        // written to shared memory
        unsigned int idata0 = tid * 2;

        // offset levels to make the loop more efficient
        for (unsigned int i = 1; i < dlevels; ++i) {
            // Non-coalesced writes occur if the number of active threads becomes
            // less than 16 for a block because the start address for the first
            // block is not always aligned with 64 byte which is necessary for
            // coalesced access. However, the problem only occurs at high levels
            // with only a small number of active threads so that the total number of
            // non-coalesced access is rather small and does not justify the
            // computations which are necessary to avoid these uncoalesced writes
            // (this has been tested and verified)
            if (tid < num_threads) {
                // update stride, with each decomposition level the stride grows by a
                // factor of 2
                unsigned int idata1 = idata0 + offset_neighbor;

                // position of write into global memory
                unsigned int g_wpos = (num_threads * gdim) + (bid * num_threads) + tid;

                // compute wavelet decomposition step

                // offset to avoid bank conflicts
                unsigned int c_idata0 = idata0 + (idata0 >> LOG_NUM_BANKS);
                unsigned int c_idata1 = idata1 + (idata1 >> LOG_NUM_BANKS);

                // detail coefficient, not further modified so directly store
                // in global memory
                od[g_wpos] = (shared[c_idata0] - shared[c_idata1]) * INV_SQRT_2;

                // approximation coefficient
                // note that the representation in shared memory becomes rather sparse
                // (with a lot of holes inbetween) but the storing scheme matches
                // the scheme for storing and therefore avoids bank conflicts
                shared[c_idata0] = (shared[c_idata0] + shared[c_idata1]) * INV_SQRT_2;

                // update storage offset for details
                num_threads = num_threads >> 1; // div 2
                offset_neighbor <<= 1;          // mul 2
                idata0 = idata0 << 1;           // mul 2
            }

            // sync after each decomposition step
            __syncthreads();
        }

        // write the top most level element for the next decomposition steps
        // which are performed after an interblock synchronization on host side
        if (0 == tid) {
            approx_final[bid] = shared[0];
        }

    } // end early out if possible
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples dwtHaar1D: a signal of 2^14 in two launches as the sample's host runs them " +
      "(16 blocks of 512 over 10 levels, then one of 8 over 4), dynamic shared memory padded " +
      "per 16 banks, bit for bit with the sample's CPU decomposition",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const slength = 2 ** 14;
    const signal = randoms(slength, 111);
    const sharedBytes = (bdim: number) => (2 * bdim + (2 * bdim) / 16) * 4;
    using id = client.createWithData(signal);
    using od = client.createWithData(new Float32Array(slength));
    using approx = client.createWithData(new Float32Array(16));
    const kernel = (bdim: number): CudaKernel => ({
      source: DWT_HAAR,
      entryPoint: "dwtHaar1D",
      blockSize: [bdim, 1, 1],
      sharedMemoryBytes: sharedBytes(bdim),
    });
    client.execute(kernel(512), {
      threads: 16 * 512,
      buffers: [id, od, approx],
      params: { dlevels: 10, slength_step_half: slength / 2, bdim: 512 },
    });
    // the host copies approx_final into the input, and after the last step into od[0]
    const firstApprox = await client.read(approx);
    using id2 = client.createWithData(firstApprox);
    client.execute(kernel(8), {
      threads: 8,
      buffers: [id2, od, approx],
      params: { dlevels: 4, slength_step_half: 8, bdim: 8 },
    });
    const [details, last] = await client.readMany([od, approx]);
    const got = Float32Array.from(details as Float32Array);
    got[0] = (last as Float32Array)[0];
    // the sample's CPU reference (dwtHaar1D_gold): levels of (a - b) / sqrt 2, (a + b) / sqrt 2
    const c = f(0.70710678118654752440), want = new Float32Array(slength);
    let a = signal.slice();
    for (let half = slength / 2; half >= 1; half /= 2) {
      const next = new Float32Array(half);
      for (let i = 0; i < half; i++) {
        want[half + i] = f(f(a[2 * i] - a[2 * i + 1]) * c);
        next[i] = f(f(a[2 * i] + a[2 * i + 1]) * c);
      }
      a = next;
    }
    want[0] = a[0];
    assert.deepEqual(got, want);
  },
});

// cuda-samples Samples/5_Domain_Specific/quasirandomGenerator/quasirandomGenerator_kernel.cu:
// MoroInvCNDgpu and inverseCNDKernel verbatim, MUL as the sample defines it
const INVERSE_CND = `#define MUL(a, b) __umul24(a, b)
__device__ inline float MoroInvCNDgpu(unsigned int x)
{
    const float a1 = 2.50662823884f;
    const float a2 = -18.61500062529f;
    const float a3 = 41.39119773534f;
    const float a4 = -25.44106049637f;
    const float b1 = -8.4735109309f;
    const float b2 = 23.08336743743f;
    const float b3 = -21.06224101826f;
    const float b4 = 3.13082909833f;
    const float c1 = 0.337475482272615f;
    const float c2 = 0.976169019091719f;
    const float c3 = 0.160797971491821f;
    const float c4 = 2.76438810333863E-02f;
    const float c5 = 3.8405729373609E-03f;
    const float c6 = 3.951896511919E-04f;
    const float c7 = 3.21767881768E-05f;
    const float c8 = 2.888167364E-07f;
    const float c9 = 3.960315187E-07f;

    float z;

    bool negate = false;

    // Ensure the conversion to floating point will give a value in the
    // range (0,0.5] by restricting the input to the bottom half of the
    // input domain. We will later reflect the result if the input was
    // originally in the top half of the input domain
    if (x >= 0x80000000UL) {
        x      = 0xffffffffUL - x;
        negate = true;
    }

    // x is now in the range [0,0x80000000) (i.e. [0,0x7fffffff])
    // Convert to floating point in (0,0.5]
    const float x1 = 1.0f / static_cast<float>(0xffffffffUL);
    const float x2 = x1 / 2.0f;
    float       p1 = x * x1 + x2;
    // Convert to floating point in (-0.5,0]
    float p2 = p1 - 0.5f;

    // The input to the Moro inversion is p2 which is in the range
    // (-0.5,0]. This means that our output will be the negative side
    // of the bell curve (which we will reflect if "negate" is true).

    // Main body of the bell curve for |p| < 0.42
    if (p2 > -0.42f) {
        z = p2 * p2;
        z = p2 * (((a4 * z + a3) * z + a2) * z + a1) / ((((b4 * z + b3) * z + b2) * z + b1) * z + 1.0f);
    }
    // Special case (Chebychev) for tail
    else {
        z = __logf(-__logf(p1));
        z = -(c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * (c7 + z * (c8 + z * c9))))))));
    }

    // If the original input (x) was in the top half of the range, reflect
    // to get the positive side of the bell curve
    return negate ? -z : z;
}
static __global__ void inverseCNDKernel(float *d_Output, unsigned int *d_Input, unsigned int pathN)
{
    unsigned int distance = ((unsigned int)-1) / (pathN + 1);
    unsigned int tid      = MUL(blockDim.x, blockIdx.x) + threadIdx.x;
    unsigned int threadN  = MUL(blockDim.x, gridDim.x);

    // Transform input number sequence if it's supplied
    if (d_Input) {
        for (unsigned int pos = tid; pos < pathN; pos += threadN) {
            unsigned int d = d_Input[pos];
            d_Output[pos]  = (float)MoroInvCNDgpu(d);
        }
    }
    // Else generate input uniformly placed samples on the fly
    // and write to destination
    else {
        for (unsigned int pos = tid; pos < pathN; pos += threadN) {
            unsigned int d = (pos + 1) * distance;
            d_Output[pos]  = (float)MoroInvCNDgpu(d);
        }
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples inverseCNDKernel (Moro's inversion, __umul24, a grid-stride loop of 16 " +
      "blocks of 128): the central branch bit for bit with --fmad=false, the __logf tail " +
      "within its documented error",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const pathN = 5001;
    // inputs over the whole range, the tails (x near 0 and 2^32 - 1) included
    const input = Uint32Array.from(
      { length: pathN },
      (_, i) =>
        i < 40 ? (i * 2654435761) % 1e6 : i < 80 ? 0xffffffff - i * 977 : Math.floor(i * 858_993.4),
    );
    const [out] = await launch(
      client,
      {
        source: INVERSE_CND,
        entryPoint: "inverseCNDKernel",
        blockSize: [128, 1, 1],
        compileOptions: ["--fmad=false"],
      },
      16 * 128,
      [new Float32Array(pathN), input],
      { pathN },
    );
    const [a1, a2, a3, a4] = [2.50662823884, -18.61500062529, 41.39119773534, -25.44106049637]
      .map(f);
    const [b1, b2, b3, b4] = [-8.4735109309, 23.08336743743, -21.06224101826, 3.13082909833].map(f);
    const cs = [
      0.337475482272615,
      0.976169019091719,
      0.160797971491821,
      2.76438810333863E-02,
      3.8405729373609E-03,
      3.951896511919E-04,
      3.21767881768E-05,
      2.888167364E-07,
      3.960315187E-07,
    ].map(f);
    let tails = 0;
    for (let i = 0; i < pathN; i++) {
      let x = input[i], negate = false;
      if (x >= 0x80000000) x = 0xffffffff - x, negate = true;
      const x1 = f(1 / f(0xffffffff)), x2 = f(x1 / 2);
      const p1 = f(f(f(x) * x1) + x2), p2 = f(p1 - 0.5);
      let z: number;
      if (p2 > f(-0.42)) {
        const zz = f(p2 * p2);
        const num = f(f(f(f(f(f(a4 * zz) + a3) * zz) + a2) * zz) + a1);
        const den = f(f(f(f(f(f(f(f(b4 * zz) + b3) * zz) + b2) * zz) + b1) * zz) + 1);
        z = f(f(p2 * num) / den);
        assert.equal(out[i], negate ? -z : z, `input ${input[i]}`);
      } else {
        tails++;
        const l = Math.log(-Math.log(p1));
        let poly = cs[8];
        for (let c = 7; c >= 0; c--) poly = cs[c] + l * poly;
        z = -poly;
        // __logf is within 3 ulp of log off [0.5, 2] (CUDA C Programming Guide, intrinsic
        // functions), so log(-log(p1)) (p1 < 0.08) within 3 * 2^-23 relative of the inner and
        // 3 ulp of the outer value (below 3.2): 2^-19 absolute; the polynomial's slope is under
        // 2 and its roundings a few ulp of 5: 1e-5 relative (the values pass 1.4)
        const want = negate ? -z : z;
        assert.ok(
          Math.abs(out[i] - want) <= 1e-5 * Math.abs(want),
          `input ${input[i]}: ${out[i]} vs ${want}`,
        );
      }
    }
    assert.ok(tails >= 60, `${tails} tail inputs`);
  },
});

// cuda-samples Samples/5_Domain_Specific/recursiveGaussian/recursiveGaussian_kernel.cuh:
// d_transpose, rgbaFloatToInt, rgbaIntToFloat and d_simpleRecursive_rgba verbatim but
// cg::sync(cta) written __syncthreads(), with the three float4 operators of helper_math.h they
// use, as a user inlines them, and the sample's `uint`
const RECURSIVE = `typedef unsigned int uint;
#define BLOCK_DIM 16
inline __host__ __device__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
inline __host__ __device__ float4 operator-(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
inline __host__ __device__ float4 operator*(float b, float4 a) { return make_float4(b * a.x, b * a.y, b * a.z, b * a.w); }
inline __host__ __device__ float4 operator*(float4 a, float b) { return make_float4(a.x * b, a.y * b, a.z * b, a.w * b); }
__global__ void d_transpose(uint *odata, uint *idata, int width, int height)
{
    __shared__ uint block[BLOCK_DIM][BLOCK_DIM + 1];

    // read the matrix tile into shared memory
    unsigned int xIndex = blockIdx.x * BLOCK_DIM + threadIdx.x;
    unsigned int yIndex = blockIdx.y * BLOCK_DIM + threadIdx.y;

    if ((xIndex < width) && (yIndex < height)) {
        unsigned int index_in           = yIndex * width + xIndex;
        block[threadIdx.y][threadIdx.x] = idata[index_in];
    }

    __syncthreads();

    // write the transposed matrix tile to global memory
    xIndex = blockIdx.y * BLOCK_DIM + threadIdx.x;
    yIndex = blockIdx.x * BLOCK_DIM + threadIdx.y;

    if ((xIndex < height) && (yIndex < width)) {
        unsigned int index_out = yIndex * height + xIndex;
        odata[index_out]       = block[threadIdx.x][threadIdx.y];
    }
}
__device__ uint rgbaFloatToInt(float4 rgba)
{
    rgba.x = __saturatef(rgba.x); // clamp to [0.0, 1.0]
    rgba.y = __saturatef(rgba.y);
    rgba.z = __saturatef(rgba.z);
    rgba.w = __saturatef(rgba.w);
    return (uint(rgba.w * 255) << 24) | (uint(rgba.z * 255) << 16) | (uint(rgba.y * 255) << 8) | uint(rgba.x * 255);
}

__device__ float4 rgbaIntToFloat(uint c)
{
    float4 rgba;
    rgba.x = (c & 0xff) / 255.0f;
    rgba.y = ((c >> 8) & 0xff) / 255.0f;
    rgba.z = ((c >> 16) & 0xff) / 255.0f;
    rgba.w = ((c >> 24) & 0xff) / 255.0f;
    return rgba;
}
__global__ void d_simpleRecursive_rgba(uint *id, uint *od, int w, int h, float a)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;

    if (x >= w)
        return;

    id += x; // advance pointers to correct column
    od += x;

    // forward pass
    float4 yp = rgbaIntToFloat(*id); // previous output

    for (int y = 0; y < h; y++) {
        float4 xc = rgbaIntToFloat(*id);
        float4 yc = xc + a * (yp - xc); // simple lerp between current and previous value
        *od       = rgbaFloatToInt(yc);
        id += w;
        od += w; // move to next row
        yp = yc;
    }

    // reset pointers to point to last element in column
    id -= w;
    od -= w;

    // reverse pass
    // ensures response is symmetrical
    yp = rgbaIntToFloat(*id);

    for (int y = h - 1; y >= 0; y--) {
        float4 xc = rgbaIntToFloat(*id);
        float4 yc = xc + a * (yp - xc);
        *od       = rgbaFloatToInt((rgbaIntToFloat(*od) + yc) * 0.5f);
        id -= w;
        od -= w; // move to previous row
        yp = yc;
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples recursiveGaussian: d_simpleRecursive_rgba down the columns, d_transpose " +
      "(16x16 tiles, padded), again and back, as gaussianFilterRGBA's order-0 path on a 45x30 " +
      "RGBA image, bit for bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [w, h, a] = [45, 30, f(Math.exp(-2 / 3))];
    const image = Uint32Array.from(
      { length: w * h },
      (_, i) => (Math.imul(i + 7, 2654435761) ^ (i << 9)) >>> 0,
    );
    const compile = { compileOptions: ["--fmad=false"] };
    const simple: CudaKernel = {
      source: RECURSIVE,
      entryPoint: "d_simpleRecursive_rgba",
      blockSize: [64, 1, 1],
      ...compile,
    };
    const transpose: CudaKernel = {
      source: RECURSIVE,
      entryPoint: "d_transpose",
      blockSize: [16, 16, 1],
      ...compile,
    };
    using src = client.createWithData(image);
    using temp = client.createWithData(new Uint32Array(w * h));
    using dest = client.createWithData(new Uint32Array(w * h));
    const up = (n: number, m: number) => Math.ceil(n / m) * m;
    client.execute(simple, { threads: up(w, 64), buffers: [src, temp], params: { w, h, a } });
    client.execute(transpose, {
      threads: [up(w, 16), up(h, 16)],
      buffers: [dest, temp],
      params: { width: w, height: h },
    });
    client.execute(simple, {
      threads: up(h, 64),
      buffers: [dest, temp],
      params: { w: h, h: w, a },
    });
    client.execute(transpose, {
      threads: [up(h, 16), up(w, 16)],
      buffers: [dest, temp],
      params: { width: h, height: w },
    });
    const got = await client.read(dest);

    const toF = (c: number) => [0, 8, 16, 24].map((s) => f(((c >>> s) & 0xff) / 255));
    const sat = (v: number) => (v > 1 ? 1 : v > 0 ? v : 0);
    const toI = (v: number[]) =>
      v.reduce((acc, x, k) => (acc | (Math.trunc(f(sat(x) * 255)) << (8 * k))) >>> 0, 0);
    const lerp = (xc: number[], yp: number[]) => xc.map((x, k) => f(x + f(a * f(yp[k] - x))));
    const simpleCpu = (id: Uint32Array, W: number, H: number) => {
      const od = new Uint32Array(W * H);
      for (let x = 0; x < W; x++) {
        let yp = toF(id[x]);
        for (let y = 0; y < H; y++) {
          const yc = lerp(toF(id[y * W + x]), yp);
          od[y * W + x] = toI(yc), yp = yc;
        }
        yp = toF(id[(H - 1) * W + x]);
        for (let y = H - 1; y >= 0; y--) {
          const yc = lerp(toF(id[y * W + x]), yp);
          od[y * W + x] = toI(toF(od[y * W + x]).map((v, k) => f(f(v + yc[k]) * 0.5))), yp = yc;
        }
      }
      return od;
    };
    const transposeCpu = (m: Uint32Array, W: number, H: number) =>
      Uint32Array.from({ length: W * H }, (_, i) => m[(i % H) * W + Math.floor(i / H)]);
    const pass1 = transposeCpu(simpleCpu(image, w, h), w, h);
    const want = transposeCpu(simpleCpu(pass1, h, w), h, w);
    assert.deepEqual(got, want);
  },
});

// llm.c dev/cuda/attention_forward.cu: attention_query_key_kernel1, attention_softmax_kernel1
// and attention_value_kernel1 verbatim (attention_forward1's three launches), with INFINITY and
// FLT_MAX, which nvcc's host headers bring in, defined
const ATTENTION1 = `#define INFINITY __int_as_float(0x7f800000)
#define FLT_MAX 3.402823466e+38f
__global__ void attention_query_key_kernel1(float* preatt, const float* inp,
                                           int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * NH * T * T;

    if (idx < total_threads) {
        int t2 = idx % T;
        int t = (idx / T) % T;
        if (t2 > t) {
            // autoregressive mask
            preatt[idx] = -INFINITY;
            return;
        }
        int h = (idx / (T * T)) % NH;
        int b = idx / (NH * T * T);

        int C3 = C*3;
        int hs = C / NH; // head size
        const float* query_t = inp + b * T * C3 + t * C3 + h * hs;
        const float* key_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C; // +C because it's key

        // (query_t) dot (key_t2)
        float val = 0.0f;
        for (int i = 0; i < hs; i++) {
            val += query_t[i] * key_t2[i];
        }
        val *= 1.0 / sqrtf(hs);

        preatt[idx] = val;
    }
}
__global__ void attention_softmax_kernel1(float* att, const float* preatt,
                                         int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * T * NH;

    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);

        const float* preatt_bth = preatt + b*NH*T*T + h*T*T + t*T;
        float* att_bth = att + b*NH*T*T + h*T*T + t*T;

        // find maxval
        float maxval = -FLT_MAX;
        for (int t2 = 0; t2 <= t; t2++) {
            if (preatt_bth[t2] > maxval) {
                maxval = preatt_bth[t2];
            }
        }

        // calculate the exp and keep track of sum
        float expsum = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) {
            float expv = expf(preatt_bth[t2] - maxval);
            expsum += expv;
            att_bth[t2] = expv;
        }
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;

        // normalize to get the softmax
        for (int t2 = 0; t2 < T; t2++) {
            if (t2 <= t) {
                att_bth[t2] *= expsum_inv;
            } else {
                // causal attention mask. not strictly necessary to set to zero here
                // only doing this explicitly for debugging and checking to PyTorch
                att_bth[t2] = 0.0f;
            }
        }
    }
}
__global__ void attention_value_kernel1(float* out, const float* att, const float* inp,
                                       int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * T * NH;

    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);

        int C3 = C*3;
        int hs = C / NH; // head size

        float* out_bth = out + b * T * C + t * C + h * hs;
        const float* att_bth = att + b*NH*T*T + h*T*T + t*T;

        for (int i = 0; i < hs; i++) { out_bth[i] = 0.0f; }
        for (int t2 = 0; t2 <= t; t2++) {
           const  float* value_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C*2; // +C*2 because it's value
            float att_btht2 = att_bth[t2];
            for (int i = 0; i < hs; i++) {
                out_bth[i] += att_btht2 * value_t2[i];
            }
        }
    }
}`;

Deno.test({
  name: nvrtcName(
    "llm.c attention_forward1's kernels (query-key with the causal -INFINITY, softmax, value " +
      "accumulation through global memory), B 2, T 64, C 64, NH 4: the products bit for bit " +
      "with --fmad=false, the softmax within expf's bound",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [B, T, C, NH] = [2, 64, 64, 4], hs = C / NH, C3 = 3 * C;
    const inp = randoms(B * T * C3, 211).map((v) => v * 2);
    const kernel = (entryPoint: string): CudaKernel => ({
      source: ATTENTION1,
      entryPoint,
      blockSize: [256, 1, 1],
      compileOptions: ["--fmad=false"],
    });
    const att4 = B * NH * T * T;
    const [preatt] = await launch(client, kernel("attention_query_key_kernel1"), att4, [
      new Float32Array(att4),
      inp,
    ], { B, T, C, NH });
    const scale = 1 / f(Math.sqrt(hs)); // a double: 1.0 / sqrtf(hs)
    const wantPre = new Float32Array(att4);
    for (let idx = 0; idx < att4; idx++) {
      const t2 = idx % T, t = Math.floor(idx / T) % T;
      if (t2 > t) {
        wantPre[idx] = -Infinity;
        continue;
      }
      const h = Math.floor(idx / (T * T)) % NH, b = Math.floor(idx / (NH * T * T));
      let val = 0;
      for (let i = 0; i < hs; i++) {
        val = f(
          val +
            f(inp[b * T * C3 + t * C3 + h * hs + i] * inp[b * T * C3 + t2 * C3 + h * hs + C + i]),
        );
      }
      wantPre[idx] = f(val * scale);
    }
    assert.deepEqual(preatt, wantPre);
    const rows = Math.ceil((B * T * NH) / 256) * 256;
    const [att] = await launch(client, kernel("attention_softmax_kernel1"), rows, [
      new Float32Array(att4).fill(9),
      preatt,
    ], { B, T, NH });
    for (let row = 0; row < B * NH * T; row++) {
      const t = row % T, pre = preatt.subarray(row * T, row * T + t + 1);
      const max = Math.max(...pre);
      let sum = 0;
      for (const v of pre) sum += Math.exp(v - max);
      for (let t2 = 0; t2 < T; t2++) {
        const got = att[row * T + t2];
        if (t2 > t) {
          assert.equal(got, 0, `row ${row}, ${t2}: masked`);
          continue;
        }
        // expf within 2 ulp, the sum of up to 64 of them and its reciprocal and product a
        // rounding each: within 70 ulp relative, 1e-5
        const want = Math.exp(pre[t2] - max) / sum;
        assert.ok(Math.abs(got - want) <= 1e-5 * want, `row ${row}, ${t2}: ${got} vs ${want}`);
      }
    }
    const [out] = await launch(client, kernel("attention_value_kernel1"), rows, [
      new Float32Array(B * T * C).fill(5),
      att,
      inp,
    ], { B, T, C, NH });
    const wantOut = new Float32Array(B * T * C);
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        for (let h = 0; h < NH; h++) {
          const o = b * T * C + t * C + h * hs, a = (b * NH + h) * T * T + t * T;
          for (let t2 = 0; t2 <= t; t2++) {
            for (let i = 0; i < hs; i++) {
              wantOut[o + i] = f(
                wantOut[o + i] + f(att[a + t2] * inp[b * T * C3 + t2 * C3 + h * hs + 2 * C + i]),
              );
            }
          }
        }
      }
    }
    assert.deepEqual(out, wantOut);
  },
});

// The 64-bit generators users paste into kernels: pcg32_random_r (pcg-random.org's minimal C
// implementation, as written there), splitmix64 (Vigna's, as written in its reference C) and
// MurmurHash3's fmix64, each thread stepping its own stream; a 64-bit division and modulo bucket
const RNG64 = `typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;
typedef struct { uint64_t state;  uint64_t inc; } pcg32_random_t;

__device__ uint32_t pcg32_random_r(pcg32_random_t* rng)
{
    uint64_t oldstate = rng->state;
    // Advance internal state
    rng->state = oldstate * 6364136223846793005ULL + (rng->inc|1);
    // Calculate output function (XSH RR), uses old state for max ILP
    uint32_t xorshifted = ((oldstate >> 18u) ^ oldstate) >> 27u;
    uint32_t rot = oldstate >> 59u;
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}
__device__ uint64_t splitmix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
}
__device__ uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}
extern "C" __global__ void rng64(uint32_t* pcg_out, uint64_t* sm_out, uint64_t* bucket,
                                 uint64_t seed, uint64_t buckets, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    pcg32_random_t rng = { seed ^ (uint64_t)i, 2ull * i + 1 };
    uint64_t sm = seed + i;
    for (int s = 0; s < steps; s++) {
        pcg_out[i * steps + s] = pcg32_random_r(&rng);
        uint64_t v = splitmix64(&sm);
        sm_out[i * steps + s] = v;
        uint64_t h = fmix64(v);
        bucket[i * steps + s] = (h % buckets) ^ (h / buckets);
    }
}`;

Deno.test({
  name: nvrtcName(
    "pcg32_random_r, splitmix64 and MurmurHash3's fmix64 as users paste them into kernels: 96 " +
      "streams of 20 steps, 64-bit multiplies, shifts, rotates, division and modulo, bit for " +
      "bit with BigInt references",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [threads, steps] = [96, 20], n = threads * steps;
    const seed = 0x853c49e6748fea9bn, buckets = 1_000_003n;
    const [pcg, sm, bucket] = (await launch(
      client,
      { source: RNG64, blockSize: [32, 1, 1] },
      threads,
      [new Uint32Array(n), new BigUint64Array(n), new BigUint64Array(n)],
      { seed, buckets, steps },
    )) as unknown as [Uint32Array, BigUint64Array, BigUint64Array];
    const M = (1n << 64n) - 1n;
    const fmix = (k: bigint) => {
      k ^= k >> 33n;
      k = (k * 0xff51afd7ed558ccdn) & M;
      k ^= k >> 33n;
      k = (k * 0xc4ceb9fe1a85ec53n) & M;
      return k ^ (k >> 33n);
    };
    for (let i = 0; i < threads; i++) {
      let state = seed ^ BigInt(i), x = (seed + BigInt(i)) & M;
      const inc = BigInt(2 * i + 1);
      for (let s = 0; s < steps; s++) {
        const old = state;
        state = (old * 6364136223846793005n + (inc | 1n)) & M;
        const xs = Number(((old >> 18n) ^ old) >> 27n & 0xffffffffn), rot = Number(old >> 59n);
        const want = ((xs >>> rot) | (xs << ((-rot) & 31))) >>> 0;
        assert.equal(pcg[i * steps + s], want, `pcg ${i}.${s}`);
        x = (x + 0x9e3779b97f4a7c15n) & M;
        let z = x;
        z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
        z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
        z ^= z >> 31n;
        assert.equal(sm[i * steps + s], z, `splitmix64 ${i}.${s}`);
        const h = fmix(z);
        assert.equal(bucket[i * steps + s], (h % buckets) ^ (h / buckets), `bucket ${i}.${s}`);
      }
    }
  },
});

// cuda-samples Samples/2_Concepts_and_Techniques/sortingNetworks: oddEvenMergeSortShared and
// oddEvenMergeGlobal (oddEvenMergeSort.cu) verbatim but cg::sync(cta) written __syncthreads(),
// with Comparator and SHARED_SIZE_LIMIT (sortingNetworks_common.cuh) and the samples' uint
const ODD_EVEN = `typedef unsigned int uint;
#define SHARED_SIZE_LIMIT 1024U
__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir)
{
    uint t;

    if ((keyA > keyB) == dir) {
        t    = keyA;
        keyA = keyB;
        keyB = t;
        t    = valA;
        valA = valB;
        valB = t;
    }
}
__global__ void
oddEvenMergeSortShared(uint *d_DstKey, uint *d_DstVal, uint *d_SrcKey, uint *d_SrcVal, uint arrayLength, uint dir)
{
    // Shared memory storage for one or more small vectors
    __shared__ uint s_key[SHARED_SIZE_LIMIT];
    __shared__ uint s_val[SHARED_SIZE_LIMIT];

    // Offset to the beginning of subbatch and load data
    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x + 0]                       = d_SrcKey[0];
    s_val[threadIdx.x + 0]                       = d_SrcVal[0];
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
    s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];

    for (uint size = 2; size <= arrayLength; size <<= 1) {
        uint stride = size / 2;
        uint offset = threadIdx.x & (stride - 1);

        {
            __syncthreads();
            uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
            stride >>= 1;
        }

        for (; stride > 0; stride >>= 1) {
            __syncthreads();
            uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));

            if (offset >= stride)
                Comparator(s_key[pos - stride], s_val[pos - stride], s_key[pos + 0], s_val[pos + 0], dir);
        }
    }

    __syncthreads();
    d_DstKey[0]                       = s_key[threadIdx.x + 0];
    d_DstVal[0]                       = s_val[threadIdx.x + 0];
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
    d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}
__global__ void oddEvenMergeGlobal(uint *d_DstKey,
                                   uint *d_DstVal,
                                   uint *d_SrcKey,
                                   uint *d_SrcVal,
                                   uint  arrayLength,
                                   uint  size,
                                   uint  stride,
                                   uint  dir)
{
    uint global_comparatorI = blockIdx.x * blockDim.x + threadIdx.x;

    // Odd-even merge
    uint pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1));

    if (stride < size / 2) {
        uint offset = global_comparatorI & ((size / 2) - 1);

        if (offset >= stride) {
            uint keyA = d_SrcKey[pos - stride];
            uint valA = d_SrcVal[pos - stride];
            uint keyB = d_SrcKey[pos + 0];
            uint valB = d_SrcVal[pos + 0];

            Comparator(keyA, valA, keyB, valB, dir);

            d_DstKey[pos - stride] = keyA;
            d_DstVal[pos - stride] = valA;
            d_DstKey[pos + 0]      = keyB;
            d_DstVal[pos + 0]      = valB;
        }
    }
    else {
        uint keyA = d_SrcKey[pos + 0];
        uint valA = d_SrcVal[pos + 0];
        uint keyB = d_SrcKey[pos + stride];
        uint valB = d_SrcVal[pos + stride];

        Comparator(keyA, valA, keyB, valB, dir);

        d_DstKey[pos + 0]      = keyA;
        d_DstVal[pos + 0]      = valA;
        d_DstKey[pos + stride] = keyB;
        d_DstVal[pos + stride] = valB;
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples oddEvenMergeSort of 4096 keys with values, as its host runs it (shared-memory " +
      "sorts of 1024, then 23 in-place global merge steps), the same network on the host, key " +
      "for key and value for value",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const L = 4096, dir = 1, S = 1024;
    const keys = Uint32Array.from(
      { length: L },
      (_, i) => (Math.imul(i + 11, 2654435761) >>> 20) % 700,
    );
    const vals = Uint32Array.from({ length: L }, (_, i) => i);
    const kernel = (entryPoint: string, threads: number): CudaKernel => ({
      source: ODD_EVEN,
      entryPoint,
      blockSize: [threads, 1, 1],
    });
    using srcKey = client.createWithData(keys);
    using srcVal = client.createWithData(vals);
    using dstKey = client.createWithData(new Uint32Array(L));
    using dstVal = client.createWithData(new Uint32Array(L));
    client.execute(kernel("oddEvenMergeSortShared", S / 2), {
      threads: (L / S) * (S / 2),
      buffers: [dstKey, dstVal, srcKey, srcVal],
      params: { arrayLength: S, dir },
    });
    let launches = 0;
    for (let size = 2 * S; size <= L; size <<= 1) {
      for (let stride = size / 2; stride > 0; stride >>= 1, launches++) {
        client.execute(kernel("oddEvenMergeGlobal", 256), {
          threads: L / 2,
          buffers: [dstKey, dstVal, dstKey, dstVal],
          params: { arrayLength: L, size, stride, dir },
        });
      }
    }
    assert.equal(launches, 23);
    const [gotKeys, gotVals] = await client.readMany([dstKey, dstVal]);
    // the comparator network the kernels run, on the host
    const k = keys.slice(), v = vals.slice();
    const cmp = (a: number, b: number) => {
      if ((k[a] > k[b]) === (dir === 1)) [k[a], k[b], v[a], v[b]] = [k[b], k[a], v[b], v[a]];
    };
    for (let base = 0; base < L; base += S) {
      for (let size = 2; size <= S; size <<= 1) {
        let stride = size / 2;
        const offsets = (t: number) => t & (size / 2 - 1);
        for (let t = 0; t < S / 2; t++) {
          cmp(base + 2 * t - (t & (stride - 1)), base + 2 * t - (t & (stride - 1)) + stride);
        }
        for (stride >>= 1; stride > 0; stride >>= 1) {
          for (let t = 0; t < S / 2; t++) {
            const pos = base + 2 * t - (t & (stride - 1));
            if (offsets(t) >= stride) cmp(pos - stride, pos);
          }
        }
      }
    }
    for (let size = 2 * S; size <= L; size <<= 1) {
      for (let stride = size / 2; stride > 0; stride >>= 1) {
        for (let g = 0; g < L / 2; g++) {
          const pos = 2 * g - (g & (stride - 1));
          if (stride < size / 2) {
            if ((g & (size / 2 - 1)) >= stride) cmp(pos - stride, pos);
          } else cmp(pos, pos + stride);
        }
      }
    }
    for (let i = 1; i < L; i++) assert.ok(k[i - 1] <= k[i], "the host network sorts");
    assert.deepEqual(gotKeys, k);
    assert.deepEqual(gotVals, v);
  },
});
