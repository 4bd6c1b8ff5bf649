/**
 * User CUDA C, QA wave 12 (continued): Ampere's asynchronous copies as kernels write them in
 * inline PTX (`cp.async.ca/cg.shared.global`, `cp.async.commit_group`, `cp.async.wait_group`,
 * `cp.async.wait_all`, the zero-filling src-size and ignore-src forms) on a device of compute
 * capability 8.0: DefTruth's CUDA-Learn-Notes double-buffered SGEMM against its synchronous twin
 * and a CPU product, and every form against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

// DefTruth/CUDA-Learn-Notes, kernels/sgemm/sgemm_async.cu (56e2fe9): the macros and
// sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf_async_kernel, verbatim; its torch and toolkit includes
// dropped, so the uint32_t that <cuda_runtime.h> brings in is declared.
const SGEMM_ASYNC = `typedef unsigned int uint32_t;
#define FLOAT4(value) (reinterpret_cast<float4*>(&(value))[0])
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\\n" ::)
#define CP_ASYNC_WAIT_ALL() asm volatile("cp.async.wait_all;\\n" ::)
#define CP_ASYNC_WAIT_GROUP(n) asm volatile("cp.async.wait_group %0;\\n" ::"n"(n))
#define CP_ASYNC_CA(dst, src, bytes) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;\\n" ::"r"(dst), "l"(src), "n"(bytes))
#define CP_ASYNC_CG(dst, src, bytes) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2;\\n" ::"r"(dst), "l"(src), "n"(bytes))

template<const int BM=64, const int BN=64, const int BK=16,
         const int TM=8,  const int TN=4,  const int OFFSET=0>
__global__ void sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf_async_kernel(
  float* a, float* b, float* c, const int M, const int N, const int K) {
  const int bx = blockIdx.x;
  const int by = blockIdx.y;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = ty * blockDim.x + tx;
  __shared__ float s_a[2][BK][BM + OFFSET];
  __shared__ float s_b[2][BK][BN + OFFSET];
  float r_load_a[8];
  float r_comp_a[TM];
  float r_comp_b[TN];
  float r_c[TM][TN] = {0.0};
  int load_a_smem_m = tid / 2;
  int load_a_smem_k = (tid % 2 == 0) ? 0 : 8;
  int load_b_smem_k = tid / 8;
  int load_b_smem_n = (tid % 8) * 8;
  int load_a_gmem_m = by * BM + load_a_smem_m;
  int load_b_gmem_n = bx * BN + load_b_smem_n;
  {
    int load_a_gmem_k = load_a_smem_k;
    int load_a_gmem_addr = load_a_gmem_m * K + load_a_gmem_k;
    int load_b_gmem_k = load_b_smem_k;
    int load_b_gmem_addr = load_b_gmem_k * N + load_b_gmem_n;
    uint32_t load_b_smem_ptr = __cvta_generic_to_shared(
      &s_b[0][load_b_smem_k][load_b_smem_n]);
    #pragma unroll
    for(int i = 0; i < 8; i += 4) {
      CP_ASYNC_CA(load_b_smem_ptr + i * 4, &b[load_b_gmem_addr + i], 16);
    }
    CP_ASYNC_COMMIT_GROUP();
    #pragma unroll
    for(int i = 0; i < 8; i += 4) {
      FLOAT4(r_load_a[i]) = (FLOAT4(a[load_a_gmem_addr + i]));
    }
    #pragma unroll
    for(int i = 0; i < 8; ++i) {
      s_a[0][load_a_smem_k + i][load_a_smem_m] = r_load_a[i];
    }
    CP_ASYNC_WAIT_GROUP(0);
  }
  __syncthreads();
  for (int bk = 1; bk < (K + BK - 1) / BK; bk++) {
    int smem_sel = (bk - 1) & 1;
    int smem_sel_next = bk & 1;
    int load_a_gmem_k = bk * BK + load_a_smem_k;
    int load_a_gmem_addr = load_a_gmem_m * K + load_a_gmem_k;
    int load_b_gmem_k = bk * BK + load_b_smem_k;
    int load_b_gmem_addr = load_b_gmem_k * N + load_b_gmem_n;
    uint32_t load_b_smem_ptr = __cvta_generic_to_shared(
      &s_b[smem_sel_next][load_b_smem_k][load_b_smem_n]);
    #pragma unroll
    for(int i = 0; i < 8; i += 4) {
      CP_ASYNC_CA(load_b_smem_ptr + i * 4, &b[load_b_gmem_addr + i], 16);
    }
    CP_ASYNC_COMMIT_GROUP();
    #pragma unroll
    for(int i = 0; i < 8; i += 4) {
      FLOAT4(r_load_a[i]) = (FLOAT4(a[load_a_gmem_addr + i]));
    }
    #pragma unroll
    for (int tk = 0; tk < BK; tk++) {
      FLOAT4(r_comp_a[0]) = FLOAT4(s_a[smem_sel][tk][ty * TM     ]);
      FLOAT4(r_comp_a[4]) = FLOAT4(s_a[smem_sel][tk][ty * TM + 4 ]);
      FLOAT4(r_comp_b[0]) = FLOAT4(s_b[smem_sel][tk][tx * TN     ]);
      #pragma unroll
      for (int tm = 0; tm < TM; tm++) {
        #pragma unroll
        for (int tn = 0; tn < TN; tn++) {
          r_c[tm][tn] = __fmaf_rn(r_comp_a[tm], r_comp_b[tn], r_c[tm][tn]);
        }
      }
    }
    #pragma unroll
    for(int i = 0; i < 8; ++i) {
      s_a[smem_sel_next][load_a_smem_k + i][load_a_smem_m] = r_load_a[i];
    }
    CP_ASYNC_WAIT_GROUP(0);
    __syncthreads();
  }
  #pragma unroll
  for (int tk = 0; tk < BK; tk++) {
    FLOAT4(r_comp_a[0]) = FLOAT4(s_a[1][tk][ty * TM     ]);
    FLOAT4(r_comp_a[4]) = FLOAT4(s_a[1][tk][ty * TM + 4 ]);
    FLOAT4(r_comp_b[0]) = FLOAT4(s_b[1][tk][tx * TN     ]);
    #pragma unroll
    for (int tm = 0; tm < TM; tm++) {
      #pragma unroll
      for (int tn = 0; tn < TN; tn++) {
        r_c[tm][tn] = __fmaf_rn(r_comp_a[tm], r_comp_b[tn], r_c[tm][tn]);
      }
    }
  }
  #pragma unroll
  for (int i = 0; i < TM; i++) {
    int store_c_gmem_m = by * BM + ty * TM + i;
    int store_c_gmem_n = bx * BN + tx * TN;
    int store_c_gmem_addr = store_c_gmem_m * N + store_c_gmem_n;
    FLOAT4(c[store_c_gmem_addr]) = FLOAT4(r_c[i][0]);
  }
}`;

Deno.test({
  name: nvrtcName(
    "CUDA-Learn-Notes sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf_async_kernel (cp.async.ca of 16 " +
      "bytes, commit_group, wait_group 0, __cvta_generic_to_shared) on compute capability 8.0",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "80" }, async () => {
      using client = await simulatedCudaClient();
      const M = 128, N = 128, K = 64; // K / BK even: the kernel's last tile is in buffer 1
      let s = 9;
      const small = (n: number) =>
        Float32Array.from({ length: n }, () => {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          return (s >>> 24) % 9 - 4;
        });
      const a = small(M * K), b = small(K * N);
      const [, , got] = await launch(
        client,
        {
          source: SGEMM_ASYNC,
          entryPoint: "sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf_async_kernel<64, 64, 16, 8, 4, 0>",
          blockSize: [16, 8, 1],
        },
        [N / 64 * 16, M / 64 * 8],
        [a, b, new Float32Array(M * N)],
        { M, N, K },
      );
      const want = new Float32Array(M * N);
      for (let i = 0; i < M; i++) {
        for (let j = 0; j < N; j++) {
          let sum = 0;
          for (let k = 0; k < K; k++) sum += a[i * K + k] * b[k * N + j];
          want[i * N + j] = sum; // small integers: exact
        }
      }
      assert.deepEqual(got, want);
    });
  },
});

// The forms as CUTLASS's and the CUDA-Learn-Notes kernels write them: a copy of 4, 8 or 16 bytes,
// .cg, the zero fill of a src-size (CUTLASS's cp_async_zfill), and the ignore-src predicate.
const FORMS = `typedef unsigned int uint32_t;
extern "C" __global__ void forms(const float* src, float* out, int bytes) {
  __shared__ __align__(16) float s[6][16];
  int t = threadIdx.x; // one thread a row of s, filled with -1 first
  for (int i = 0; i < 16; i++) s[t][i] = -1.0f;
  uint32_t row = __cvta_generic_to_shared(&s[t][0]);
  const float* g = src + 16 * t;
  if (t == 0) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(row), "l"(g));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(row + 8), "l"(g + 2));
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;" :: "r"(row + 16), "l"(g + 4));
  } else if (t == 1) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(row), "l"(g));
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(row + 48), "l"(g + 12));
  } else if (t == 2 || t == 3) { // src-size: bytes and bytes - 4, and 0 (all zeros)
    int n = t == 2 ? bytes : 0, m = t == 2 ? bytes - 4 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(row), "l"(g), "r"(n));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(row + 16), "l"(g + 4), "r"(m));
    // a src-size above cp-size: undefined (PTX ISA)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(row + 24), "l"(g + 6), "r"(n));
  } else { // ignore-src: zeros where it holds
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0;\\n"
                 "cp.async.ca.shared.global [%0], [%1], 16, p; }"
                 :: "r"(row), "l"(g), "r"((int)(t == 4)));
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0;\\n"
                 "cp.async.ca.shared.global [%0], [%1], 16, !p; }"
                 :: "r"(row + 16), "l"(g + 4), "r"((int)(t == 4)));
  }
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;");
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  for (int i = 0; i < 16; i++) out[16 * t + i] = s[t][i];
}`;

Deno.test({
  name: nvrtcName(
    "cp.async forms: .ca of 4, 8 and 16 bytes, .cg, the zero fill of a src-size, ignore-src " +
      "(negated too), commit_group, wait_group and wait_all; a src-size above cp-size (undefined) " +
      "fills zeros on the simulator, as on an H100",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "80" }, async () => {
      using client = await simulatedCudaClient();
      const src = Float32Array.from({ length: 96 }, (_, i) => i + 1);
      // 35, 38 and 39 and a few ulps: low bytes of 0xa5, 0x77 and 0x11
      new Uint32Array(src.buffer).set([0x420c00a5], 34);
      new Uint32Array(src.buffer).set([0x42180077, 0x421c0011], 37);
      const [, got] = await launch(
        client,
        { source: FORMS, blockSize: [6, 1, 1] },
        6,
        [src, new Float32Array(96)],
        { bytes: 9 }, // two floats and a byte of the third
      );
      const want = new Float32Array(96).fill(-1);
      const copy = (row: number, at: number, n: number) => {
        for (let i = at; i < at + n; i++) want[16 * row + i] = src[16 * row + i];
      };
      copy(0, 0, 1), copy(0, 2, 2), copy(0, 4, 4); // 4, 8 and 16 bytes
      copy(1, 0, 4), copy(1, 12, 4);
      // src-size 9 of 16: two floats, the low byte of the third (0xa5: a subnormal), zeros to 16
      // bytes; 5 of 8: a float and the low byte of the next (0x77). src-size 0: zeros.
      const lowByte = (bits: number) => new Float32Array(Uint32Array.of(bits).buffer)[0];
      want.set([src[32], src[33], lowByte(0xa5), 0, src[36], lowByte(0x77)], 32);
      // src-size 9 of 8 (elements 38 and 39): undefined in the PTX ISA ("Specifying src-size
      // larger than cp-size results in undefined behavior"). An H100 wrote zeros (when this copy
      // read floats with low bytes of 0); the simulator fills zeros too (even with a low byte of
      // 0x11 to copy); a device is not held to it
      if (onSimulator) want.set([0, 0], 38);
      else want.set([got[38], got[39]], 38);
      want.set([0, 0, 0, 0, 0, 0, 0, 0], 48);
      want.set([0, 0, 0, 0], 64), copy(4, 4, 4); // ignore-src p (p true), then !p
      copy(5, 0, 4), want.set([0, 0, 0, 0], 84); // p false
      assert.deepEqual(got, want);
    });
  },
});
