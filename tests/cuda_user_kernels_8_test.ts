/**
 * User CUDA C, QA wave 5 (continued): ggml-cuda's kernels (llama.cpp) as they are written,
 * minimally adapted (no toolkit headers: `half` is its bits, converted by `cvt` in inline asm):
 * soft_max with a mask and ALiBi, rope (normal and NeoX, template bodies behind `extern "C"`
 * wrappers that build the struct ggml passes by value), q4_0/q8_0 dequantization through a
 * template of a function pointer. CPU references follow ggml's CPU code.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

const COMMON = `#define WARP_SIZE 32
#define INFINITY __int_as_float(0x7f800000) // <math.h>'s, which NVRTC lacks
typedef long long int64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef unsigned short half; // the bits: no cuda_fp16.h
static __device__ __forceinline__ float h2f(half h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, 32);
  return x;
}
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
  return x;
}
`;

Deno.test({
  name: nvrtcName(
    "ggml soft_max_f32<true, 0, 0> with a broadcast mask and ALiBi slopes, values cached in " +
      "dynamic shared memory, 64-thread blocks reducing across warps",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `${COMMON}
template <bool vals_smem, int ncols_template, int block_size_template>
static __global__ void soft_max_f32(const float * x, const float * mask, const float * pos, float * dst, const int ncols_par, const int nrows_y, const float scale, const float max_bias, const float m0, const float m1, uint32_t n_head_log2) {
    const int ncols = ncols_template == 0 ? ncols_par : ncols_template;
    const int tid  = threadIdx.x;
    const int rowx = blockIdx.x;
    const int rowy = rowx % nrows_y; // broadcast the mask in the row dimension
    const int block_size = block_size_template == 0 ? blockDim.x : block_size_template;
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    float slope = 0.0f;
    if (max_bias > 0.0f) { // ALiBi
        const int h = rowx/nrows_y; // head index
        const float base = h < n_head_log2 ? m0 : m1;
        const int   exp  = h < n_head_log2 ? h + 1 : 2*(h - n_head_log2) + 1;
        slope = powf(base, exp);
    }
    extern __shared__ float data_soft_max_f32[];
    float * buf_iw = data_soft_max_f32; // shared memory buffer for inter-warp communication
    float * vals = vals_smem ? buf_iw + WARP_SIZE : dst + rowx*ncols;
    float max_val = -INFINITY;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;
        if (ncols_template == 0 && col >= ncols) break;
        const int ix = rowx*ncols + col;
        const int iy = rowy*ncols + col;
        const float val = x[ix]*scale + (mask ? mask[iy] : 0.0f) + (pos ? slope*pos[col] : 0.0f);
        vals[col] = val;
        max_val = max(max_val, val);
    }
    max_val = warp_reduce_max(max_val);
    if (block_size > WARP_SIZE) {
        if (warp_id == 0) buf_iw[lane_id] = -INFINITY;
        __syncthreads();
        if (lane_id == 0) buf_iw[warp_id] = max_val;
        __syncthreads();
        max_val = buf_iw[lane_id];
        max_val = warp_reduce_max(max_val);
    }
    float tmp = 0.0f;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;
        if (ncols_template == 0 && col >= ncols) break;
        const float val = expf(vals[col] - max_val);
        tmp += val;
        vals[col] = val;
    }
    tmp = warp_reduce_sum(tmp);
    if (block_size > WARP_SIZE) {
        __syncthreads();
        if (warp_id == 0) buf_iw[lane_id] = 0.0f;
        __syncthreads();
        if (lane_id == 0) buf_iw[warp_id] = tmp;
        __syncthreads();
        tmp = buf_iw[lane_id];
        tmp = warp_reduce_sum(tmp);
    }
    const float inv_sum = 1.0f / tmp;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;
        if (ncols_template == 0 && col >= ncols) return;
        const int idst = rowx*ncols + col;
        dst[idst] = vals[col] * inv_sum;
    }
}`;
    const ncols = 150, nrowsY = 3, heads = 5, rows = nrowsY * heads, scale = 0.7, maxBias = 8;
    const nHeadLog2 = 2 ** Math.floor(Math.log2(heads));
    const m0 = 2 ** (-maxBias / nHeadLog2), m1 = 2 ** (-(maxBias / 2) / nHeadLog2);
    const x = randoms(rows * ncols, 31).map((v) => v * 6);
    // a causal-style mask: -inf past the row's diagonal, small biases elsewhere
    const mask = Float32Array.from(
      { length: nrowsY * ncols },
      (_, i) => (i % ncols > 100 + 20 * Math.floor(i / ncols) ? -Infinity : ((i * 7) % 5) / 10),
    );
    const pos = Float32Array.from({ length: ncols }, (_, i) => i);
    const [, , , dst] = await launch(
      client,
      {
        source,
        entryPoint: "soft_max_f32<true, 0, 0>",
        blockSize: [64, 1, 1],
        sharedMemoryBytes: (32 + ncols) * 4,
      },
      64 * rows,
      [x, mask, pos, new Float32Array(rows * ncols)],
      {
        ncols_par: ncols,
        nrows_y: nrowsY,
        scale,
        max_bias: maxBias,
        m0,
        m1,
        n_head_log2: nHeadLog2,
      },
    );
    const want = new Float64Array(rows * ncols);
    for (let r = 0; r < rows; r++) { // ggml_compute_forward_soft_max_f32
      const h = Math.floor(r / nrowsY);
      const slope = h < nHeadLog2 ? m0 ** (h + 1) : m1 ** (2 * (h - nHeadLog2) + 1);
      const v = Array.from(
        { length: ncols },
        (_, c) =>
          Math.fround(x[r * ncols + c] * Math.fround(scale)) + mask[(r % nrowsY) * ncols + c] +
          slope * c,
      );
      const max = Math.max(...v), sum = v.reduce((s, a) => s + Math.exp(a - max), 0);
      v.forEach((a, c) => (want[r * ncols + c] = Math.exp(a - max) / sum));
    }
    // expf: 2 ulp, powf: 4 ulp (CUDA C Programming Guide, Mathematical Functions); the exponent
    // |a - max| < 60 turns a 2^-24 relative error of a into at most 60 * 2^-24 of exp(a - max)
    assert.equal(mismatch(dst, want, 1e-5), undefined);
    assert.ok(dst.some((v) => v === 0) && dst.every((v) => v >= 0)); // the masked columns
  },
});

/** ggml_rope_yarn_corr_dims-free YaRN (ext_factor 0) rope, as ggml's CPU rope_f32. */
function ropeRef(x: Float32Array, ne0: number, nDims: number, pos: Int32Array, neox: boolean) {
  const out = Float64Array.from(x);
  const thetaScale = 10000 ** (-2 / nDims);
  for (let row = 0; row < x.length / ne0; row++) {
    for (let i0 = 0; i0 < nDims; i0 += 2) {
      const theta = 0.5 * pos[row] * thetaScale ** (i0 / 2); // freq_scale 0.5
      const [a, b] = neox ? [row * ne0 + i0 / 2, row * ne0 + i0 / 2 + nDims / 2] : [
        row * ne0 + i0,
        row * ne0 + i0 + 1,
      ];
      const c = Math.cos(theta) * 0.9, s = Math.sin(theta) * 0.9; // attn_factor 0.9
      out[a] = x[a] * c - x[b] * s;
      out[b] = x[a] * s + x[b] * c;
    }
  }
  return out;
}

Deno.test({
  name: nvrtcName(
    'ggml rope_norm and rope_neox: template bodies behind extern "C" wrappers building the ' +
      "rope_corr_dims struct ggml passes by value, 2-D blocks of [1, 32], n_dims < ne0",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const body = (neox: boolean) =>
      `{
    const int i0 = 2*(blockDim.y*blockIdx.y + threadIdx.y);
    if (i0 >= ne0) return;
    const int row = blockDim.x*blockIdx.x + threadIdx.x;
    if (i0 >= n_dims) {
        const int i = row*ne0 + i0;
        dst[i + 0] = x[i + 0];
        dst[i + 1] = x[i + 1];
        return;
    }
    const int i  = row*ne0 + ${neox ? "i0/2" : "i0"};
    const int i2 = row/p_delta_rows;
    const float theta_base = pos[i2]*powf(theta_scale, i0/2.0f);
    const float freq_factor = has_ff ? freq_factors[i0/2] : 1.0f;
    float cos_theta, sin_theta;
    rope_yarn(theta_base/freq_factor, freq_scale, corr_dims, i0, ext_factor, attn_factor, &cos_theta, &sin_theta);
    const float x0 = x[i + 0];
    const float x1 = x[i + ${neox ? "n_dims/2" : "1"}];
    dst[i + 0] = x0*cos_theta - x1*sin_theta;
    dst[i + ${neox ? "n_dims/2" : "1"}] = x0*sin_theta + x1*cos_theta;
}`;
    const params =
      "const T * x, T * dst, int ne0, int n_dims, const int32_t * pos, float freq_scale, int p_delta_rows, float ext_factor, float attn_factor, rope_corr_dims corr_dims, float theta_scale, const float * freq_factors";
    const wrapper = (name: string) =>
      `extern "C" __global__ void ${name}_f32(const float * __restrict__ x, float * __restrict__ dst, const int32_t * pos, const float * freq_factors, int ne0, int n_dims, float freq_scale, int p_delta_rows, float ext_factor, float attn_factor, float corr_dims_0, float corr_dims_1, float theta_scale) {
    rope_corr_dims corr_dims = { { corr_dims_0, corr_dims_1 } };
    ${name}<float, false>(x, dst, ne0, n_dims, pos, freq_scale, p_delta_rows, ext_factor, attn_factor, corr_dims, theta_scale, freq_factors);
}`;
    const source = `${COMMON}
struct rope_corr_dims { float v[2]; };
static __device__ float rope_yarn_ramp(const float low, const float high, const int i0) {
    const float y = (i0 / 2 - low) / max(0.001f, high - low);
    return 1.0f - min(1.0f, max(0.0f, y));
}
static __device__ void rope_yarn(float theta_extrap, float freq_scale, rope_corr_dims corr_dims, int64_t i0, float ext_factor, float mscale, float * cos_theta, float * sin_theta) {
    float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        float ramp_mix = rope_yarn_ramp(corr_dims.v[0], corr_dims.v[1], i0) * ext_factor;
        theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    *cos_theta = cosf(theta) * mscale;
    *sin_theta = sinf(theta) * mscale;
}
template<typename T, bool has_ff>
static __device__ void rope_norm(${params}) ${body(false)}
template<typename T, bool has_ff>
static __device__ void rope_neox(${params}) ${body(true)}
${wrapper("rope_norm")}
${wrapper("rope_neox")}`;
    const ne0 = 24, nDims = 16, rows = 4;
    const x = randoms(rows * ne0, 41), pos = Int32Array.from({ length: rows }, (_, r) => 3 + 5 * r);
    for (const neox of [false, true]) {
      const [, dst] = await launch(
        client,
        { source, entryPoint: neox ? "rope_neox_f32" : "rope_norm_f32", blockSize: [1, 32, 1] },
        [rows, ne0 / 2],
        [x, new Float32Array(rows * ne0), pos, new Float32Array(1)],
        {
          ne0,
          n_dims: nDims,
          freq_scale: 0.5,
          p_delta_rows: 1,
          ext_factor: 0,
          attn_factor: 0.9,
          corr_dims_0: 0,
          corr_dims_1: 0,
          theta_scale: 10000 ** (-2 / nDims),
        },
      );
      // theta < 20: powf's 4 ulp and the argument's rounding move it by < 2^-17; cosf/sinf 2 ulp
      assert.equal(
        mismatch(dst, ropeRef(x, ne0, nDims, pos, neox), 2e-5),
        undefined,
        `neox ${neox}`,
      );
    }
  },
});

/** An IEEE half's value from its bits. */
function f16(bits: number): number {
  const e = (bits >> 10) & 31, m = bits & 1023, s = bits & 0x8000 ? -1 : 1;
  return e === 0
    ? s * m * 2 ** -24
    : e === 31
    ? (m ? NaN : s * Infinity)
    : s * (1024 + m) * 2 ** (e - 25);
}

Deno.test({
  name: nvrtcName(
    "ggml dequantize_block<32, 2, dequantize_q4_0, float> and <32, 1, dequantize_q8_0, float>: " +
      "a template of a function pointer over packed block structs (18 and 34 bytes), bit-exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `${COMMON}
#define QK4_0 32
#define QR4_0 2
typedef struct { half d; uint8_t qs[QK4_0 / 2]; } block_q4_0;
#define QK8_0 32
#define QR8_0 1
typedef struct { half d; int8_t qs[QK8_0]; } block_q8_0;
typedef float dfloat;
typedef float2 dfloat2;
typedef void (*dequantize_kernel_t)(const void * vx, const int64_t ib, const int iqs, dfloat2 & v);
static __device__ __forceinline__ void dequantize_q4_0(const void * vx, const int64_t ib, const int iqs, dfloat2 & v){
    const block_q4_0 * x = (const block_q4_0 *) vx;
    const dfloat d = h2f(x[ib].d);
    const int vui = x[ib].qs[iqs];
    v.x = vui & 0xF;
    v.y = vui >> 4;
    v.x = (v.x - 8.0f) * d;
    v.y = (v.y - 8.0f) * d;
}
static __device__ __forceinline__ void dequantize_q8_0(const void * vx, const int64_t ib, const int iqs, dfloat2 & v){
    const block_q8_0 * x = (const block_q8_0 *) vx;
    const dfloat d = h2f(x[ib].d);
    v.x = x[ib].qs[iqs + 0];
    v.y = x[ib].qs[iqs + 1];
    v.x *= d;
    v.y *= d;
}
template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static __global__ void dequantize_block(const void * __restrict__ vx, dst_t * __restrict__ y, const int64_t k) {
    const int64_t i = (int64_t)2*(blockDim.x*blockIdx.x + threadIdx.x);
    if (i >= k) return;
    const int64_t ib = i/qk; // block index
    const int64_t iqs = (i%qk)/qr; // quant index
    const int64_t iybs = i - i%qk; // y block start index
    const int64_t y_offset = qr == 1 ? 1 : qk/2;
    dfloat2 v;
    dequantize_kernel(vx, ib, iqs, v);
    y[iybs + iqs + 0]        = v.x;
    y[iybs + iqs + y_offset] = v.y;
}`;
    const blocks = 6, k = 32 * blocks;
    const scales = [0x3000, 0x3200, 0xb800, 0x3e00, 0x2c01, 0x5640]; // 0.125 ... 100 (f16 bits)
    let h = 99;
    const next = () => (h = (Math.imul(h, 1103515245) + 12345) >>> 0) >>> 16;
    const q4 = new Uint8Array(18 * blocks), q8 = new Uint8Array(34 * blocks + 4); // pad to 4
    const want4 = new Float32Array(k), want8 = new Float32Array(k);
    for (let b = 0; b < blocks; b++) {
      const d = f16(scales[b]);
      q4[18 * b] = scales[b] & 255, q4[18 * b + 1] = scales[b] >> 8;
      q8[34 * b] = scales[b] & 255, q8[34 * b + 1] = scales[b] >> 8;
      for (let j = 0; j < 16; j++) { // ggml's dequantize_row_q4_0
        const q = q4[18 * b + 2 + j] = next() & 255;
        want4[32 * b + j] = ((q & 15) - 8) * d;
        want4[32 * b + j + 16] = ((q >> 4) - 8) * d;
      }
      for (let j = 0; j < 32; j++) {
        const q = q8[34 * b + 2 + j] = next() & 255;
        want8[32 * b + j] = Math.fround(((q << 24) >> 24) * d);
      }
    }
    const [, y4] = await launch(
      client,
      {
        source,
        entryPoint: "dequantize_block<32, 2, dequantize_q4_0, float>",
        blockSize: [32, 1, 1],
      },
      k / 2,
      [q4, new Float32Array(k)],
      { k },
    );
    assert.deepEqual(y4, want4); // (q - 8) * d: exact in f32 (a 4-bit times an 11-bit significand)
    const [, y8] = await launch(
      client,
      {
        source,
        entryPoint: "dequantize_block<32, 1, dequantize_q8_0, float>",
        blockSize: [32, 1, 1],
      },
      k / 2,
      [q8, new Float32Array(k)],
      { k: BigInt(k) as unknown as number }, // an int64_t takes a bigint too
    );
    assert.deepEqual(y8, want8);
  },
});
