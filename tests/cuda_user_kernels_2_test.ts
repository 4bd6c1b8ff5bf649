/**
 * Real-world user kernels in CUDA C, in the style of karpathy/llm.c's dev/cuda kernels (GPT-2
 * layers: layernorm, softmax, GELU, encoder, AdamW, attention softmax, cross-entropy, the bias
 * gradient), written as users write them: warp reductions with `__shfl_xor_sync`, 128-bit packed
 * loads through a templated struct, `__ldcs`/`__stcs`, `__restrict__`, a block reduction templated
 * on its warp reduction. Each runs through `client.execute` on the simulated driver (NVRTC
 * compiles it, the PTX interpreter runs it) against a CPU reference in double precision.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

/**
 * The helpers llm.c's kernels share (common.h), as a user's source carries them; NVRTC has no
 * host `<math.h>`, so the source defines the two macros of it that the kernels use.
 */
const COMMON = `
#define INFINITY __int_as_float(0x7f800000)
#define M_PI 3.14159265358979323846
#define WARP_SIZE 32U
__device__ float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
  return val;
}
__device__ float warpReduceMax(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val = fmaxf(val, __shfl_xor_sync(0xFFFFFFFF, val, offset));
  return val;
}
using reduction_func_t = float (*)(float);
template <reduction_func_t warp_reduction>
__device__ inline float blockReduce(float val, bool final_sync = false, float out_of_bounds = 0.0f) {
  __shared__ float shared_val[WARP_SIZE];
  const int lane_id = threadIdx.x % WARP_SIZE;
  const int warp_id = threadIdx.x / WARP_SIZE;
  const int num_warps = blockDim.x / WARP_SIZE;
  float warp_val = warp_reduction(val);
  if (lane_id == 0) shared_val[warp_id] = warp_val;
  __syncthreads();
  warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
  float block_val = warp_reduction(warp_val);
  if (final_sync) __syncthreads();
  return block_val;
}
template <class ElementType>
struct alignas(16) Packed128 {
  Packed128() = default;
  __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
  __device__ ElementType& operator[](int index) { return payload[index]; }
  __device__ const ElementType& operator[](int index) const { return payload[index]; }
  __device__ int4 get_bits() const { int4 bits; memcpy(&bits, &payload, sizeof(bits)); return bits; }
  static constexpr const int size = sizeof(int4) / sizeof(ElementType);
  ElementType payload[size];
};
typedef Packed128<float> f128;
template <class ElementType>
__device__ Packed128<ElementType> load128(const ElementType* address) {
  return Packed128<ElementType>{*reinterpret_cast<const int4*>(address)};
}
template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address) {
  return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
  *reinterpret_cast<int4*>(target) = value.get_bits();
}
template <class ElementType>
__device__ void store128cs(ElementType* target, Packed128<ElementType> value) {
  __stcs(reinterpret_cast<int4*>(target), value.get_bits());
}
`;

const sum = (a: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
};

Deno.test({
  name: nvrtcName("llm.c-style kernels: layernorm forward (a warp a row, __ldcs/__stcs, rsqrtf)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 6, C = 80; // C is no multiple of 32: the lanes' strided loops end unevenly
    const inp = randoms(N * C, 3), weight = randoms(C, 4), bias = randoms(C, 5);
    const kernel = {
      source: COMMON + `
extern "C" __global__ void layernorm_forward(float* __restrict__ out, float* __restrict__ mean,
    float* __restrict__ rstd, const float* __restrict__ inp, const float* __restrict__ weight,
    const float* __restrict__ bias, int N, int C) {
  int warpsPerBlock = blockDim.x / warpSize;
  int warpId = threadIdx.x / warpSize;
  int laneId = threadIdx.x % warpSize;
  int idx = blockIdx.x * warpsPerBlock + warpId;
  if (idx >= N) return;
  const float* x = inp + idx * C;
  float sum = 0.0f;
  for (int i = laneId; i < C; i += warpSize) sum += x[i];
  sum = warpReduceSum(sum);
  float m = sum / C;
  if (laneId == 0 && mean != nullptr) __stcs(mean + idx, m);
  sum = 0.0f;
  for (int i = laneId; i < C; i += warpSize) { float diff = x[i] - m; sum += diff * diff; }
  sum = warpReduceSum(sum);
  float s = rsqrtf(sum / C + 1e-5f);
  if (laneId == 0 && rstd != nullptr) __stcs(rstd + idx, s);
  float* o = out + idx * C;
  for (int c = laneId; c < C; c += warpSize) {
    float n = s * (__ldcs(x + c) - m);
    __stcs(o + c, n * weight[c] + bias[c]);
  }
}`,
      blockSize: [64, 1, 1] as [number, number, number],
    };
    // 4 blocks of 2 warps: the last block's second warp has no row and returns at once
    const [out, mean, rstd] = await launch(client, kernel, 8 * 32, [
      new Float32Array(N * C),
      new Float32Array(N),
      new Float32Array(N),
      inp,
      weight,
      bias,
    ], { N, C });
    const wantMean: number[] = [], wantRstd: number[] = [], wantOut: number[] = [];
    for (let r = 0; r < N; r++) {
      const x = inp.subarray(r * C, r * C + C);
      const m = sum(x) / C;
      const v = sum(Array.from(x, (e) => (e - m) ** 2)) / C;
      const s = 1 / Math.sqrt(v + 1e-5);
      wantMean.push(m);
      wantRstd.push(s);
      for (let c = 0; c < C; c++) wantOut.push(s * (x[c] - m) * weight[c] + bias[c]);
    }
    assert.equal(mismatch(mean, wantMean, 1e-6), undefined);
    assert.equal(mismatch(rstd, wantRstd, 1e-6), undefined);
    assert.equal(mismatch(out, wantOut, 1e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName("llm.c-style kernels: online softmax (a warp a row, max and sum in one pass)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 5, C = 70;
    const inp = Float32Array.from(randoms(N * C, 7), (v) => v * 6);
    const kernel = {
      source: COMMON + `
extern "C" __global__ void softmax_forward_online(float* out, const float* inp, int N, int C) {
  const int warpsPerBlock = blockDim.x / warpSize;
  int tid = threadIdx.x;
  if (tid >= C) return;
  int warpId = tid / warpSize, laneId = tid % warpSize;
  int row = blockIdx.x * warpsPerBlock + warpId;
  if (row >= N) return;
  const float* x = inp + row * C;
  float* const y = out + row * C;
  float maxval = -INFINITY, sumval = 0.0f;
  for (int i = laneId; i < C; i += warpSize) {
    float bigger = fmaxf(maxval, x[i]);
    sumval = sumval * expf(maxval - bigger) + expf(x[i] - bigger);
    maxval = bigger;
  }
  float offsetMaxval, offsetSumval;
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
    __syncwarp();
    offsetMaxval = __shfl_down_sync(0xFFFFFFFF, maxval, offset);
    offsetSumval = __shfl_down_sync(0xFFFFFFFF, sumval, offset);
    if (offsetMaxval > maxval) {
      sumval *= expf(maxval - offsetMaxval);
      maxval = offsetMaxval;
    } else {
      offsetSumval *= expf(offsetMaxval - maxval);
    }
    sumval += offsetSumval;
  }
  maxval = __shfl_sync(0xFFFFFFFF, maxval, 0);
  sumval = __shfl_sync(0xFFFFFFFF, sumval, 0);
  for (int i = laneId; i < C; i += warpSize) y[i] = expf(x[i] - maxval) / sumval;
}`,
      blockSize: [32, 1, 1] as [number, number, number],
    };
    const [out] = await launch(client, kernel, N * 32, [new Float32Array(N * C), inp], { N, C });
    const want: number[] = [];
    for (let r = 0; r < N; r++) {
      const x = Array.from(inp.subarray(r * C, r * C + C));
      const m = Math.max(...x), s = sum(x.map((v) => Math.exp(v - m)));
      want.push(...x.map((v) => Math.exp(v - m) / s));
    }
    assert.equal(mismatch(out, want, 2e-6), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "llm.c-style kernels: GELU and residual through a templated 128-bit packed struct (int4 loads, memcpy)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 512;
    const inp = Float32Array.from(randoms(N, 11), (v) => v * 4), res = randoms(N, 12);
    const [gelu, residual] = await launch(
      client,
      {
        source: COMMON + `
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
extern "C" __global__ void gelu_residual(float* out, float* res_out, const float* inp, const float* res, int N) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
  if (i < N) {
    f128 packed_out, packed_res;
    f128 packed_inp = load128cs(inp);
    packed_inp = load128cs(inp + i);
    f128 r = load128(res + i);
    for (int k = 0; k < packed_inp.size; ++k) {
      float xi = packed_inp[k];
      float cube = 0.044715f * xi * xi * xi;
      packed_out[k] = 0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube)));
      packed_res[k] = xi + r[k];
    }
    store128(out + i, packed_out);
    store128cs(res_out + i, packed_res);
  }
}`,
        blockSize: [32, 1, 1],
      },
      N / 4,
      [new Float32Array(N), new Float32Array(N), inp, res],
      { N },
    );
    const s = Math.sqrt(2 / Math.PI);
    const want = Array.from(inp, (x) => 0.5 * x * (1 + Math.tanh(s * (x + 0.044715 * x ** 3))));
    assert.equal(mismatch(gelu, want, 1e-6), undefined);
    assert.equal(mismatch(residual, Array.from(inp, (x, i) => Math.fround(x + res[i]))), undefined);
  },
});

Deno.test({
  name: nvrtcName("llm.c-style kernels: encoder forward (token and position embeddings, float4)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const B = 2, T = 5, C = 16, V = 11;
    const wte = randoms(V * C, 21), wpe = randoms(T * C, 22);
    const tokens = Int32Array.from({ length: B * T }, (_, i) => (i * 7 + 3) % V);
    const [out] = await launch(
      client,
      {
        source: `
extern "C" __global__ void encoder_forward(float4* out, const int* inp, const float4* wte,
                                            const float4* wpe, int B, int T, int C) {
  int C4 = C / 4;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int N = B * T * C4;
  if (idx < N) {
    int bt = idx / C4, b = bt / T, t = bt % T, c4 = idx % C4;
    int ix = inp[b * T + t];
    float4 w = wte[ix * C4 + c4], p = wpe[t * C4 + c4];
    out[b * T * C4 + t * C4 + c4] = make_float4(w.x + p.x, w.y + p.y, w.z + p.z, w.w + p.w);
  }
}`,
        blockSize: [32, 1, 1],
      },
      B * T * C / 4,
      [new Float32Array(B * T * C), tokens, wte, wpe],
      { B, T, C },
    );
    const want = Array.from({ length: B * T * C }, (_, i) => {
      const bt = Math.floor(i / C), t = bt % T, c = i % C;
      return Math.fround(wte[tokens[bt] * C + c] + wpe[t * C + c]);
    });
    assert.equal(mismatch(out, want), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "llm.c-style kernels: AdamW update (lerp, float scalars by name, powf corrections)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 300;
    const params = randoms(n, 31), grads = randoms(n, 32);
    const m = Float32Array.from(randoms(n, 33), (v) => v * 0.1);
    const v = Float32Array.from(randoms(n, 34), (x) => Math.abs(x) * 0.01);
    const lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0.01, t = 3;
    const b1c = 1 - beta1 ** t, b2c = 1 - beta2 ** t;
    const [p2, , m2, v2] = await launch(
      client,
      {
        source: `
__device__ inline float lerp(float start, float end, float weight) {
  return fma(weight, end, fma(-weight, start, start));
}
extern "C" __global__ void adamw_kernel2(float* params_memory, const float* grads_memory,
    float* m_memory, float* v_memory, long num_parameters, float learning_rate, float beta1,
    float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_parameters) return;
  float grad = grads_memory[i];
  float m = m_memory[i];
  float v = v_memory[i];
  m = lerp(grad, m, beta1);
  m_memory[i] = m;
  v = lerp(grad * grad, v, beta2);
  v_memory[i] = v;
  m /= beta1_correction;
  v /= beta2_correction;
  params_memory[i] -= learning_rate * (m / (sqrtf(v) + eps) + weight_decay * params_memory[i]);
}`,
        blockSize: [128, 1, 1],
      },
      n,
      [params, grads, m, v],
      {
        num_parameters: n,
        learning_rate: lr,
        beta1,
        beta2,
        beta1_correction: b1c,
        beta2_correction: b2c,
        eps,
        weight_decay: wd,
      },
    );
    const wantM = Array.from(m, (mi, i) => beta1 * mi + (1 - beta1) * grads[i]);
    const wantV = Array.from(v, (vi, i) => beta2 * vi + (1 - beta2) * grads[i] ** 2);
    const wantP = Array.from(params, (p, i) => {
      const mh = wantM[i] / b1c, vh = wantV[i] / b2c;
      return p - lr * (mh / (Math.sqrt(vh) + eps) + wd * p);
    });
    assert.equal(mismatch(m2, wantM, 1e-6), undefined);
    assert.equal(mismatch(v2, wantV, 1e-5), undefined);
    assert.equal(mismatch(p2, wantP, 1e-6), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "llm.c-style kernels: causal attention softmax and cross-entropy (-INFINITY, expf, logf)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const B = 2, T = 6, NH = 3;
    const preatt = Float32Array.from(randoms(B * NH * T * T, 41), (v) => v * 5);
    const [att] = await launch(
      client,
      {
        source: `
extern "C" __global__ void attention_softmax_kernel1(float* att, const float* preatt, int B, int T, int NH) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int total_threads = B * T * NH;
  if (idx < total_threads) {
    int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);
    const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
    float* att_bth = att + b * NH * T * T + h * T * T + t * T;
    float maxval = -10000.0f;
    for (int t2 = 0; t2 <= t; t2++) if (preatt_bth[t2] > maxval) maxval = preatt_bth[t2];
    float expsum = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
      float expv = expf(preatt_bth[t2] - maxval);
      expsum += expv;
      att_bth[t2] = expv;
    }
    float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
    for (int t2 = 0; t2 < T; t2++) att_bth[t2] = t2 <= t ? att_bth[t2] * expsum_inv : 0.0f;
  }
}`,
        blockSize: [16, 1, 1],
      },
      B * T * NH,
      [new Float32Array(B * NH * T * T), preatt],
      { B, T, NH },
    );
    const want: number[] = [];
    for (let row = 0; row < B * NH * T; row++) {
      const t = row % T, x = Array.from(preatt.subarray(row * T, row * T + t + 1));
      const mx = Math.max(...x), s = sum(x.map((e) => Math.exp(e - mx)));
      for (let t2 = 0; t2 < T; t2++) want.push(t2 <= t ? Math.exp(x[t2] - mx) / s : 0);
    }
    assert.equal(mismatch(att, want, 1e-6), undefined);

    const N = 40, V = 9;
    const probs = Float32Array.from(randoms(N * V, 42), (p) => (p + 1.01) / 2);
    const targets = Int32Array.from({ length: N }, (_, i) => (i * 5) % V);
    const [losses] = await launch(
      client,
      {
        source: `
extern "C" __global__ void crossentropy_forward_kernel1(float* losses, const float* probs,
                                                        const int* targets, int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T) {
    const float* probs_bt = probs + i * V;
    int ix = targets[i];
    losses[i] = -logf(probs_bt[ix]);
  }
}`,
        blockSize: [32, 1, 1],
      },
      N,
      [new Float32Array(N), probs, targets],
      { B: 4, T: N / 4, V },
    );
    assert.equal(
      mismatch(losses, Array.from(targets, (ix, i) => -Math.log(probs[i * V + ix])), 2e-7),
      undefined,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "llm.c-style kernels: bias gradient by a block reduction templated on its warp reduction",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const BT = 100, OC = 6;
    const dout = randoms(BT * OC, 51);
    const dbias0 = randoms(OC, 52);
    const [dbias] = await launch(
      client,
      {
        source: COMMON + `
extern "C" __global__ void matmul_backward_bias(float* dbias, const float* dout, int B, int T, int OC) {
  int o = blockIdx.x;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < B * T; i += blockDim.x) sum += dout[i * OC + o];
  float block_sum = blockReduce<warpReduceSum>(sum);
  float block_max = blockReduce<warpReduceMax>(sum, true, -INFINITY);
  if (threadIdx.x == 0) dbias[o] += block_sum + 0.0f * block_max;
}`,
        blockSize: [64, 1, 1],
      },
      OC * 64,
      [dbias0, dout],
      { B: 4, T: BT / 4, OC },
    );
    const want = Array.from(dbias0, (d, o) => {
      let s = 0;
      for (let i = 0; i < BT; i++) s += dout[i * OC + o];
      return d + s;
    });
    assert.equal(mismatch(dbias, want, 1e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    'C++-linkage kernels as pasted (no extern "C"): found by name in the mangled PTX, overloads refused',
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 4, C = 48;
    const inp = randoms(N * C, 71), weight = randoms(C, 72), bias = randoms(C, 73);
    // llm.c's kernels are C++ functions: two in one source, launched by name
    const source = COMMON + `
__global__ void mean_kernel(float* mean, const float* inp, int N, int C, int block_size) {
  extern __shared__ float shared[];
  int idx = blockIdx.x, tid = threadIdx.x;
  const float* x = inp + idx * C;
  float sum = 0.0f;
  for (int i = tid; i < C; i += block_size) sum += x[i];
  shared[tid] = sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) shared[tid] += shared[tid + stride];
  }
  if (tid == 0) mean[idx] = shared[0] / C;
}
namespace layers {
__global__ void normalization_kernel(float* out, const float* inp, const float* mean,
                                     const float* weight, const float* bias, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int bt = idx / C, c = idx % C;
  out[idx] = (inp[idx] - mean[bt]) * weight[c] + bias[c];
}
}`;
    const [mean] = await launch(
      client,
      {
        source,
        entryPoint: "mean_kernel",
        blockSize: [16, 1, 1],
        sharedMemoryBytes: 16 * 4,
      },
      N * 16,
      [new Float32Array(N), inp],
      { N, C, block_size: 16 },
    );
    const [out] = await launch(
      client,
      {
        source,
        entryPoint: "normalization_kernel",
        blockSize: [64, 1, 1],
      },
      N * C,
      [new Float32Array(N * C), inp, mean, weight, bias],
      { C },
    );
    const wantMean = Array.from({ length: N }, (_, r) => sum(inp.subarray(r * C, r * C + C)) / C);
    assert.equal(mismatch(mean, wantMean, 1e-6), undefined);
    assert.equal(
      mismatch(
        out,
        Array.from(inp, (v, i) => (v - mean[Math.floor(i / C)]) * weight[i % C] + bias[i % C]),
        1e-6,
      ),
      undefined,
    );
    // a lone C++ kernel needs no entryPoint
    const [twice] = await launch(
      client,
      {
        source:
          `__global__ void twice(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }`,
      },
      8,
      [Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8])],
      { n: 8 },
    );
    assert.deepEqual(Array.from(twice), [2, 4, 6, 8, 10, 12, 14, 16]);
    // overloads of one name are ambiguous
    await assert.rejects(
      launch(
        client,
        {
          source: `__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
__global__ void k(int* x) { x[threadIdx.x] = 1; }`,
          entryPoint: "k",
        },
        8,
        [new Float32Array(8)],
      ),
      /entryPoint is 'k', a C\+\+ __global__ function with 2 overloads in the module \(_Z1kPf, _Z1kPi\)/,
    );
  },
});
