/**
 * User CUDA C, QA wave 5 (continued): ggml-cuda's get_rows over a 3-D grid (block comments in
 * its parameter list) and its bitonic argsort (an enum template parameter); siboehm's SGEMM
 * kernels, each against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "ggml k_get_rows_float<float, float> over a 3-D grid (block comments in its parameter list, " +
      "int64_t and size_t strides) and k_argsort_f32_i32<GGML_SORT_ORDER_DESC> (an enum template " +
      "parameter, bitonic over a padded row in dynamic shared memory), exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const getRows = `typedef long long int64_t;
typedef int int32_t;
template<typename src0_t, typename dst_t>
static __global__ void k_get_rows_float(
            const src0_t * src0, const int32_t * src1, dst_t * dst,
            const int64_t ne00, /*const int64_t ne01, const int64_t ne02, const int64_t ne03,*/
            /*const int64_t ne10, const int64_t ne11,*/ const int64_t ne12, /*const int64_t ne13,*/
            /*const size_t s0,*/ const size_t s1, const size_t s2, const size_t s3,
            /*const size_t nb00,*/ const size_t nb01, const size_t nb02, const size_t nb03,
            const size_t s10, const size_t s11, const size_t s12/*, const size_t s13*/) {
    const int i00 = blockIdx.x*blockDim.x + threadIdx.x;
    const int i10 = blockIdx.y;
    const int i11 = (blockIdx.z*blockDim.z + threadIdx.z)/ne12;
    const int i12 = (blockIdx.z*blockDim.z + threadIdx.z)%ne12;
    if (i00 >= ne00) return;
    const int i01 = src1[i10*s10 + i11*s11 + i12*s12];
    dst_t * dst_row = dst + i10*s1 + i11*s2 + i12*s3;
    const src0_t * src0_row = (const src0_t *)((const char *)src0 + i01*nb01 + i11*nb02 + i12*nb03);
    dst_row[i00] = src0_row[i00];
}`;
    // src0: [ne00 = 40, ne01 = 7, ne02 = 2]; src1: [ne10 = 5, ne11 = 2] row indices; ne12 = 1
    const ne00 = 40, ne01 = 7, ne02 = 2, ne10 = 5, ne11 = 2;
    const src0 = randoms(ne00 * ne01 * ne02, 51);
    const src1 = Int32Array.from({ length: ne10 * ne11 }, (_, i) => (i * 3 + 1) % ne01);
    const [, , dst] = await launch(
      client,
      { source: getRows, entryPoint: "k_get_rows_float<float, float>", blockSize: [32, 1, 1] },
      [ne00, ne10, ne11],
      [src0, src1, new Float32Array(ne00 * ne10 * ne11)],
      {
        ne00,
        ne12: 1,
        s1: ne00,
        s2: ne00 * ne10,
        s3: ne00 * ne10 * ne11,
        nb01: 4 * ne00,
        nb02: 4 * ne00 * ne01,
        nb03: 4 * ne00 * ne01 * ne02,
        s10: 1,
        s11: ne10,
        s12: ne10 * ne11,
      },
    );
    const want = new Float32Array(ne00 * ne10 * ne11);
    for (let i11 = 0; i11 < ne11; i11++) {
      for (let i10 = 0; i10 < ne10; i10++) {
        const r = src1[i11 * ne10 + i10], from = (i11 * ne01 + r) * ne00;
        want.set(src0.subarray(from, from + ne00), (i11 * ne10 + i10) * ne00);
      }
    }
    assert.deepEqual(dst, want);

    const argsort = `template<typename T>
static inline __device__ void ggml_cuda_swap(T & a, T & b) { T tmp = a; a = b; b = tmp; }
enum ggml_sort_order { GGML_SORT_ORDER_ASC, GGML_SORT_ORDER_DESC };
template<ggml_sort_order order>
static __global__ void k_argsort_f32_i32(const float * x, int * dst, const int ncols, int ncols_pad) {
    int col = threadIdx.x;
    int row = blockIdx.y;
    if (col >= ncols_pad) return;
    const float * x_row = x + row * ncols;
    extern __shared__ int dst_row[];
    dst_row[col] = col;
    __syncthreads();
    for (int k = 2; k <= ncols_pad; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            int ixj = col ^ j;
            if (ixj > col) {
                if ((col & k) == 0) {
                    if (dst_row[col] >= ncols ||
                        (dst_row[ixj] < ncols && (order == GGML_SORT_ORDER_ASC ?
                            x_row[dst_row[col]] > x_row[dst_row[ixj]] :
                            x_row[dst_row[col]] < x_row[dst_row[ixj]]))) {
                        ggml_cuda_swap(dst_row[col], dst_row[ixj]);
                    }
                } else {
                    if (dst_row[ixj] >= ncols ||
                        (dst_row[col] < ncols && (order == GGML_SORT_ORDER_ASC ?
                            x_row[dst_row[col]] < x_row[dst_row[ixj]] :
                            x_row[dst_row[col]] > x_row[dst_row[ixj]]))) {
                        ggml_cuda_swap(dst_row[col], dst_row[ixj]);
                    }
                }
            }
            __syncthreads();
        }
    }
    if (col < ncols) dst[row * ncols + col] = dst_row[col];
}`;
    const ncols = 45, pad = 64, nrows = 3;
    const x = randoms(ncols * nrows, 61); // distinct values: one order
    const [, idx] = await launch(
      client,
      {
        source: argsort,
        entryPoint: "k_argsort_f32_i32<GGML_SORT_ORDER_DESC>",
        blockSize: [pad, 1, 1],
        sharedMemoryBytes: pad * 4,
      },
      [pad, nrows],
      [x, new Int32Array(ncols * nrows)],
      { ncols, ncols_pad: pad },
    );
    const wantIdx = Int32Array.from({ length: ncols * nrows }, (_, i) => i % ncols);
    for (let r = 0; r < nrows; r++) {
      wantIdx.subarray(r * ncols, (r + 1) * ncols).sort((a, b) =>
        x[r * ncols + b] - x[r * ncols + a]
      );
    }
    assert.deepEqual(idx, wantIdx);
  },
});

/** C = alpha A B + beta C in f64, and each element's error bound for any f32 order (K + 2 ulps). */
function gemmRef(
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float32Array,
  B: Float32Array,
  beta: number,
  C: Float32Array,
) {
  const want = new Float64Array(M * N), bound = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0, a = 0;
      for (let k = 0; k < K; k++) {
        s += A[i * K + k] * B[k * N + j], a += Math.abs(A[i * K + k] * B[k * N + j]);
      }
      want[i * N + j] = alpha * s + beta * C[i * N + j];
      bound[i * N + j] = (K + 2) * 2 ** -24 * (Math.abs(alpha) * a + Math.abs(beta * C[i * N + j]));
    }
  }
  return { want, bound };
}

Deno.test({
  name: nvrtcName(
    "siboehm's SGEMM kernels 1-4 and 6 (naive, coalesced, shared-memory blocks, 1-D blocktiling, " +
      "float4-vectorized 2-D blocktiling with a transposed As), templates of uint tile sizes",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `typedef unsigned int uint; // <sys/types.h>'s, which nvcc brings in
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  const uint x = blockIdx.x * blockDim.x + threadIdx.x;
  const uint y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < M && y < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) tmp += A[x * K + i] * B[i * N + y];
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}
template <const uint BLOCKSIZE>
__global__ void sgemm_global_mem_coalesce(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  const int cRow = blockIdx.x * BLOCKSIZE + (threadIdx.x / BLOCKSIZE);
  const int cCol = blockIdx.y * BLOCKSIZE + (threadIdx.x % BLOCKSIZE);
  if (cRow < M && cCol < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) tmp += A[cRow * K + i] * B[i * N + cCol];
    C[cRow * N + cCol] = alpha * tmp + beta * C[cRow * N + cCol];
  }
}
template <const int BLOCKSIZE>
__global__ void sgemm_shared_mem_block(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  const uint cRow = blockIdx.x;
  const uint cCol = blockIdx.y;
  __shared__ float As[BLOCKSIZE * BLOCKSIZE];
  __shared__ float Bs[BLOCKSIZE * BLOCKSIZE];
  const uint threadCol = threadIdx.x % BLOCKSIZE;
  const uint threadRow = threadIdx.x / BLOCKSIZE;
  A += cRow * BLOCKSIZE * K;
  B += cCol * BLOCKSIZE;
  C += cRow * BLOCKSIZE * N + cCol * BLOCKSIZE;
  float tmp = 0.0;
  for (int bkIdx = 0; bkIdx < K; bkIdx += BLOCKSIZE) {
    As[threadRow * BLOCKSIZE + threadCol] = A[threadRow * K + threadCol];
    Bs[threadRow * BLOCKSIZE + threadCol] = B[threadRow * N + threadCol];
    __syncthreads();
    A += BLOCKSIZE;
    B += BLOCKSIZE * N;
    for (int dotIdx = 0; dotIdx < BLOCKSIZE; ++dotIdx) tmp += As[threadRow * BLOCKSIZE + dotIdx] * Bs[dotIdx * BLOCKSIZE + threadCol];
    __syncthreads();
  }
  C[threadRow * N + threadCol] = alpha * tmp + beta * C[threadRow * N + threadCol];
}
template <const int BM, const int BN, const int BK, const int TM>
__global__ void sgemm1DBlocktiling(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  const uint cRow = blockIdx.y;
  const uint cCol = blockIdx.x;
  const int threadCol = threadIdx.x % BN;
  const int threadRow = threadIdx.x / BN;
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const uint innerColA = threadIdx.x % BK;
  const uint innerRowA = threadIdx.x / BK;
  const uint innerColB = threadIdx.x % BN;
  const uint innerRowB = threadIdx.x / BN;
  float threadResults[TM] = {0.0};
  for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
    As[innerRowA * BK + innerColA] = A[innerRowA * K + innerColA];
    Bs[innerRowB * BN + innerColB] = B[innerRowB * N + innerColB];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      float tmpB = Bs[dotIdx * BN + threadCol];
      for (uint resIdx = 0; resIdx < TM; ++resIdx) threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;
    }
    __syncthreads();
  }
  for (uint resIdx = 0; resIdx < TM; ++resIdx) C[(threadRow * TM + resIdx) * N + threadCol] = alpha * threadResults[resIdx] + beta * C[(threadRow * TM + resIdx) * N + threadCol];
}
template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void sgemmVectorize(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C) {
  const uint cRow = blockIdx.y;
  const uint cCol = blockIdx.x;
  const uint threadCol = threadIdx.x % (BN / TN);
  const uint threadRow = threadIdx.x / (BN / TN);
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const uint innerRowA = threadIdx.x / (BK / 4);
  const uint innerColA = threadIdx.x % (BK / 4);
  const uint innerRowB = threadIdx.x / (BN / 4);
  const uint innerColB = threadIdx.x % (BN / 4);
  float threadResults[TM * TN] = {0.0};
  float regM[TM] = {0.0};
  float regN[TN] = {0.0};
  for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
    float4 tmp = reinterpret_cast<float4 *>(&A[innerRowA * K + innerColA * 4])[0];
    As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
    As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
    As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
    As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
    reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] = reinterpret_cast<float4 *>(&B[innerRowB * N + innerColB * 4])[0];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      for (uint i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + threadRow * TM + i];
      for (uint i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      for (uint resIdxM = 0; resIdxM < TM; ++resIdxM)
        for (uint resIdxN = 0; resIdxN < TN; ++resIdxN)
          threadResults[resIdxM * TN + resIdxN] += regM[resIdxM] * regN[resIdxN];
    }
    __syncthreads();
  }
  for (uint resIdxM = 0; resIdxM < TM; resIdxM += 1) {
    for (uint resIdxN = 0; resIdxN < TN; resIdxN += 4) {
      float4 tmp = reinterpret_cast<float4 *>(&C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN])[0];
      tmp.x = alpha * threadResults[resIdxM * TN + resIdxN] + beta * tmp.x;
      tmp.y = alpha * threadResults[resIdxM * TN + resIdxN + 1] + beta * tmp.y;
      tmp.z = alpha * threadResults[resIdxM * TN + resIdxN + 2] + beta * tmp.z;
      tmp.w = alpha * threadResults[resIdxM * TN + resIdxN + 3] + beta * tmp.w;
      reinterpret_cast<float4 *>(&C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN])[0] = tmp;
    }
  }
}`;
    const M = 64, N = 64, K = 32, alpha = 1.5, beta = -0.5;
    const A = randoms(M * K, 81), B = randoms(K * N, 82), C = randoms(M * N, 83);
    const { want, bound } = gemmRef(M, N, K, alpha, A, B, beta, C);
    const runs: [string, [number, number], [number, number, number]][] = [
      ["sgemm_naive", [M, N], [16, 16, 1]],
      ["sgemm_global_mem_coalesce<8>", [(M / 8) * 64, N / 8], [64, 1, 1]],
      ["sgemm_shared_mem_block<16>", [(M / 16) * 256, N / 16], [256, 1, 1]],
      // BM = BN = 16, BK = 4, TM = 4: 64 threads load 16 x 4 of A and 4 x 16 of B
      ["sgemm1DBlocktiling<16, 16, 4, 4>", [(N / 16) * 64, M / 16], [64, 1, 1]],
      // BM = BN = 32, BK = 8, TM = TN = 4: 64 threads, one float4 of A and of B each
      ["sgemmVectorize<32, 32, 8, 4, 4>", [(N / 32) * 64, M / 32], [64, 1, 1]],
    ];
    for (const [entryPoint, threads, blockSize] of runs) {
      const [, , got] = await launch(
        client,
        { source, entryPoint, blockSize },
        threads,
        [A, B, C],
        {
          M,
          N,
          K,
          alpha,
          beta,
        },
      );
      const bad = want.findIndex((w, i) => !(Math.abs(got[i] - w) <= bound[i]));
      assert.equal(bad, -1, `${entryPoint}: element ${bad}: ${got[bad]} vs ${want[bad]}`);
    }
  },
});

Deno.test({
  name: nvrtcName(
    "a single-pass scan with decoupled look-back (Merrill & Garland): tiles taken from an atomic " +
      "counter, 64-bit flag|value status words, thread 0 looking back over its predecessors",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // Blocks run one after another here, so a predecessor has always published: the spin loop
    // (flag X) is never taken; a grid that spun on a later block would be CUDA_ERROR_LAUNCH_TIMEOUT
    const source = `#define FLAG_X 0u
#define FLAG_A 1u
#define FLAG_P 2u
extern "C" __global__ void scan_lookback(const int* in, int* out, unsigned long long* status, unsigned* tile_counter, int n) {
  __shared__ int s[128];
  __shared__ int tile_s, exclusive_s;
  if (threadIdx.x == 0) tile_s = atomicAdd(tile_counter, 1);
  __syncthreads();
  const int tile = tile_s;
  const int i = tile * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) { // Hillis-Steele, inclusive
    int t = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += t;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int aggregate = s[blockDim.x - 1];
    int exclusive = 0;
    if (tile == 0) {
      atomicExch(&status[0], ((unsigned long long)FLAG_P << 32) | (unsigned)aggregate);
    } else {
      atomicExch(&status[tile], ((unsigned long long)FLAG_A << 32) | (unsigned)aggregate);
      for (int p = tile - 1; p >= 0;) {
        unsigned long long st = atomicAdd(&status[p], 0ull);
        unsigned flag = (unsigned)(st >> 32);
        if (flag == FLAG_X) continue; // the predecessor has not published yet
        exclusive += (int)(unsigned)st;
        if (flag == FLAG_P) break;
        p--;
      }
      __threadfence();
      atomicExch(&status[tile], ((unsigned long long)FLAG_P << 32) | (unsigned)(exclusive + aggregate));
    }
    exclusive_s = exclusive;
  }
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x] + exclusive_s;
}`;
    const n = 1000, tiles = Math.ceil(n / 128);
    const input = Int32Array.from({ length: n }, (_, i) => ((i * 7919) % 201) - 100);
    const [, out, status, counter] = await launch(
      client,
      { source, blockSize: [128, 1, 1] },
      tiles * 128,
      [input, new Int32Array(n), new BigUint64Array(tiles), new Uint32Array(1)],
      { n },
    );
    let acc = 0;
    assert.deepEqual(out, input.map((v) => (acc += v)));
    assert.equal(counter[0], tiles);
    // every tile ends with its inclusive prefix published
    const words = status as unknown as BigUint64Array;
    words.forEach((w, t) => {
      assert.equal(w >> 32n, 2n, `tile ${t}`);
      assert.equal(Number(BigInt.asIntN(32, w)), out[Math.min(n, (t + 1) * 128) - 1]);
    });
  },
});
