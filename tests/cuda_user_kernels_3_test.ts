/**
 * Classic user kernels in CUDA C, in the style of NVIDIA's cuda-samples (reduction, scan,
 * histogram, transpose, matrixMul, sortingNetworks, mergeSort), Mark Harris' reductions, GPU Gems'
 * n-body, and the CuPy / PyTorch custom-kernel tutorials, written as users write them (templates
 * instantiated from `extern "C"` wrappers, `volatile` warp-synchronous code, bank-conflict padding,
 * `#pragma unroll`, inline PTX for `%lanemask_lt`, an atomicCAS loop for a float maximum). Each
 * runs through `client.execute` on the simulated driver against a CPU reference.
 */
import assert from "node:assert/strict";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";
import { hazardCount, hazardReport, resetHazards, withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: Harris' reduce6 templated on the block size, both n parities",
  ),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const source = `
template <unsigned int blockSize>
__device__ void warpReduce(volatile float* sdata, unsigned int tid) {
  if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
  if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
  if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
  if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
  if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
  if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}
template <unsigned int blockSize, bool nIsPow2>
__device__ void reduce6(const float* g_idata, float* g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  float mySum = 0;
  while (i < n) {
    mySum += g_idata[i];
    if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256]; __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128]; __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64]; __syncthreads(); }
  if (tid < 32) warpReduce<blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
extern "C" __global__ void reduce6_128_pow2(const float* in, float* out, unsigned int n) {
  reduce6<128, true>(in, out, n);
}
extern "C" __global__ void reduce6_128(const float* in, float* out, unsigned int n) {
  reduce6<128, false>(in, out, n);
}`;
    for (const [entryPoint, n] of [["reduce6_128_pow2", 4096], ["reduce6_128", 3001]] as const) {
      const x = Float32Array.from({ length: n }, (_, i) => ((i * 37) % 101) / 4 - 12);
      const blocks = 6;
      const [, partial] = await launch(
        client,
        {
          source,
          entryPoint,
          blockSize: [128, 1, 1],
          sharedMemoryBytes: 128 * 4,
        },
        blocks * 128,
        [x, new Float32Array(blocks)],
        { n },
      );
      const got = Array.from(partial).reduce((a, b) => a + b);
      assert.equal(got, x.reduce((a, b) => a + b), entryPoint); // exact: sums of quarters
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: Blelloch work-efficient exclusive scan, bank-conflict-free offsets",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 256;
    const x = Int32Array.from({ length: n }, (_, i) => ((i * 13) % 17) - 5);
    const [, out] = await launch(
      client,
      {
        source: `
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
extern "C" __global__ void prescan(const int* g_idata, int* g_odata, int n) {
  extern __shared__ int temp[];
  int thid = threadIdx.x, offset = 1;
  int ai = thid, bi = thid + (n / 2);
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = g_idata[ai];
  temp[bi + bankOffsetB] = g_idata[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai); bi += CONFLICT_FREE_OFFSET(bi);
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai); bi += CONFLICT_FREE_OFFSET(bi);
      int t = temp[ai]; temp[ai] = temp[bi]; temp[bi] += t;
    }
  }
  __syncthreads();
  g_odata[ai] = temp[ai + bankOffsetA];
  g_odata[bi] = temp[bi + bankOffsetB];
}`,
        blockSize: [n / 2, 1, 1],
        sharedMemoryBytes: (n + n / 32) * 4,
      },
      n / 2,
      [x, new Int32Array(n)],
      { n },
    );
    let acc = 0;
    const want = Array.from(x, (v) => (acc += v) - v);
    assert.equal(mismatch(out, want), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: histogram256 in shared memory (bytes of packed words, atomics)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const words = 1000;
    const data = new Uint32Array(words);
    let s = 12345;
    for (let i = 0; i < words; i++) s = data[i] = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const bytes = new Uint8Array(data.buffer);
    const [, hist] = await launch(
      client,
      {
        source: `
#define BIN_COUNT 256
extern "C" __global__ void histogram256Kernel(const unsigned int* d_Data, unsigned int* d_Histogram,
                                              unsigned int dataCount) {
  __shared__ unsigned int s_Hist[BIN_COUNT];
  for (unsigned int i = threadIdx.x; i < BIN_COUNT; i += blockDim.x) s_Hist[i] = 0;
  __syncthreads();
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x) {
    unsigned int data = d_Data[pos];
    atomicAdd(s_Hist + ((data >> 0) & 0xFFU), 1);
    atomicAdd(s_Hist + ((data >> 8) & 0xFFU), 1);
    atomicAdd(s_Hist + ((data >> 16) & 0xFFU), 1);
    atomicAdd(s_Hist + ((data >> 24) & 0xFFU), 1);
  }
  __syncthreads();
  for (unsigned int bin = threadIdx.x; bin < BIN_COUNT; bin += blockDim.x)
    if (s_Hist[bin]) atomicAdd(d_Histogram + bin, s_Hist[bin]);
}`,
        blockSize: [96, 1, 1],
      },
      3 * 96,
      [data, new Uint32Array(256)],
      { dataCount: words },
    );
    const want = new Array(256).fill(0);
    for (const b of bytes) want[b]++;
    assert.equal(mismatch(hist, want), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: coalesced transpose through a padded shared tile (2-D blocks)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const W = 64, H = 96;
    const idata = Float32Array.from({ length: W * H }, (_, i) => i);
    const [odata] = await launch(
      client,
      {
        source: `
#define TILE_DIM 32
#define BLOCK_ROWS 8
extern "C" __global__ void transposeCoalesced(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + yIndex * width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + yIndex * height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}`,
        blockSize: [32, 8, 1],
      },
      [W, H / 4],
      [new Float32Array(W * H), idata],
      { width: W, height: H },
    );
    // (threads: one per column, a quarter of the rows: each thread moves 4 elements)
    const want = Array.from({ length: W * H }, (_, i) => idata[(i % H) * W + Math.floor(i / H)]);
    assert.equal(mismatch(odata, want), undefined);
  },
});

Deno.test({
  name: nvrtcName("cuda-samples-style: matrixMul templated on BLOCK_SIZE with #pragma unroll"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const hA = 32, wA = 48, wB = 16;
    const A = Float32Array.from({ length: hA * wA }, (_, i) => ((i * 7) % 11) - 5);
    const B = Float32Array.from({ length: wA * wB }, (_, i) => ((i * 5) % 13) / 4 - 1.5);
    const [C] = await launch(
      client,
      {
        source: `
template <int BLOCK_SIZE>
__device__ void MatrixMulCUDA(float* C, const float* A, const float* B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}
extern "C" __global__ void matrixMul16(float* C, const float* A, const float* B, int wA, int wB) {
  MatrixMulCUDA<16>(C, A, B, wA, wB);
}`,
        blockSize: [16, 16, 1],
      },
      [wB, hA],
      [new Float32Array(hA * wB), A, B],
      { wA, wB },
    );
    const want = Array.from({ length: hA * wB }, (_, i) => {
      const r = Math.floor(i / wB), c = i % wB;
      let s = 0;
      for (let k = 0; k < wA; k++) s += A[r * wA + k] * B[k * wB + c];
      return s;
    });
    assert.equal(mismatch(C, want), undefined); // exact: small multiples of quarters
  },
});

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: bitonic sort of key/value pairs in shared memory, both directions",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const L = 256;
    const keys = Uint32Array.from(
      { length: L },
      (_, i) => (Math.imul(i + 1, 2654435761) >>> 0) % 1000,
    );
    const vals = Uint32Array.from({ length: L }, (_, i) => i);
    const source = `
#define SHARED_SIZE_LIMIT 256U
__device__ inline void Comparator(unsigned& keyA, unsigned& valA, unsigned& keyB, unsigned& valB, unsigned dir) {
  unsigned t;
  if ((keyA > keyB) == dir) {
    t = keyA; keyA = keyB; keyB = t;
    t = valA; valA = valB; valB = t;
  }
}
extern "C" __global__ void bitonicSortShared(unsigned* d_DstKey, unsigned* d_DstVal, const unsigned* d_SrcKey,
                                             const unsigned* d_SrcVal, unsigned arrayLength, unsigned dir) {
  __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
  __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
  d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x + 0] = d_SrcKey[0];
  s_val[threadIdx.x + 0] = d_SrcVal[0];
  s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
  s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];
  for (unsigned size = 2; size < arrayLength; size <<= 1) {
    unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);
    }
  }
  for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
  }
  __syncthreads();
  d_DstKey[0] = s_key[threadIdx.x + 0];
  d_DstVal[0] = s_val[threadIdx.x + 0];
  d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
  d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}`;
    for (const dir of [1, 0]) {
      const [k, v] = await launch(client, { source, blockSize: [L / 2, 1, 1] }, L / 2, [
        new Uint32Array(L),
        new Uint32Array(L),
        keys,
        vals,
      ], { arrayLength: L, dir });
      const want = Array.from(keys).sort((a, b) => dir ? a - b : b - a);
      assert.equal(mismatch(k, want), undefined, `dir ${dir}`);
      // every value still travels with its key
      assert.equal(mismatch(Array.from(v, (i) => keys[i]), want), undefined);
      assert.deepEqual(Array.from(v).sort((a, b) => a - b), Array.from(vals));
    }
  },
});

Deno.test({
  name: nvrtcName(
    "cuda-samples-style: merge of sorted runs by binary-search ranks (mergeSort's merge step)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const run = 64, runs = 6;
    const src = new Uint32Array(run * runs);
    for (let r = 0; r < runs; r++) {
      const part = Array.from({ length: run }, (_, i) => ((i * 31 + r * 7) % 50) * 3).sort((a, b) =>
        a - b
      );
      src.set(part, r * run);
    }
    const [, dst] = await launch(
      client,
      {
        source: `
static __device__ __forceinline__ unsigned binarySearchInclusive(unsigned val, const unsigned* data, unsigned L, unsigned stride) {
  if (L == 0) return 0;
  unsigned pos = 0;
  for (; stride > 0; stride >>= 1) {
    unsigned newPos = umin(pos + stride, L);
    if (data[newPos - 1] <= val) pos = newPos;
  }
  return pos;
}
static __device__ __forceinline__ unsigned binarySearchExclusive(unsigned val, const unsigned* data, unsigned L, unsigned stride) {
  if (L == 0) return 0;
  unsigned pos = 0;
  for (; stride > 0; stride >>= 1) {
    unsigned newPos = umin(pos + stride, L);
    if (data[newPos - 1] < val) pos = newPos;
  }
  return pos;
}
static __device__ __forceinline__ unsigned nextPowerOfTwo(unsigned x) { return 1U << (32 - __clz(x - 1)); }
// each pair of sorted runs of runLength merges into one: every element finds its rank in the other run
extern "C" __global__ void mergeRuns(const unsigned* d_Src, unsigned* d_Dst, unsigned runLength, unsigned N) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  unsigned pair = i / (2 * runLength), pos = i % (2 * runLength);
  const unsigned* a = d_Src + pair * 2 * runLength;
  unsigned lenA = min(runLength, N - pair * 2 * runLength);
  unsigned lenB = min(runLength, N - pair * 2 * runLength - lenA);
  const unsigned* b = a + lenA;
  unsigned stride = nextPowerOfTwo(runLength);
  unsigned dst;
  if (pos < lenA) dst = pos + binarySearchExclusive(a[pos], b, lenB, stride);
  else dst = (pos - lenA) + binarySearchInclusive(b[pos - lenA], a, lenA, stride);
  d_Dst[pair * 2 * runLength + dst] = pos < lenA ? a[pos] : b[pos - lenA];
}`,
        blockSize: [128, 1, 1],
      },
      run * runs,
      [src, new Uint32Array(run * runs)],
      { runLength: run, N: run * runs },
    );
    const want: number[] = [];
    for (let p = 0; p < runs / 2; p++) {
      want.push(...Array.from(src.subarray(p * 2 * run, (p + 1) * 2 * run)).sort((a, b) => a - b));
    }
    assert.equal(mismatch(dst, want), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "GPU Gems-style: n-body accelerations with float4 bodies in shared tiles, rsqrtf",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 96, p = 32;
    const pos = Float32Array.from(
      { length: n * 4 },
      (_, i) => i % 4 === 3 ? 1 + (i % 7) / 7 : ((i * 17) % 23) / 5 - 2,
    );
    const eps2 = 0.01;
    const [acc] = await launch(
      client,
      {
        source: `
__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai, float softeningSquared) {
  float3 r;
  r.x = bj.x - bi.x; r.y = bj.y - bi.y; r.z = bj.z - bi.z;
  float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + softeningSquared;
  float invDist = rsqrtf(distSqr);
  float invDistCube = invDist * invDist * invDist;
  float s = bj.w * invDistCube;
  ai.x += r.x * s; ai.y += r.y * s; ai.z += r.z * s;
  return ai;
}
extern "C" __global__ void calculate_forces(float4* accel, const float4* devX, int N, float softeningSquared) {
  extern __shared__ float4 shPosition[];
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  float4 myPosition = devX[gtid];
  float3 acc = {0.0f, 0.0f, 0.0f};
  for (int i = 0, tile = 0; i < N; i += blockDim.x, tile++) {
    shPosition[threadIdx.x] = devX[tile * blockDim.x + threadIdx.x];
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < blockDim.x; j++) acc = bodyBodyInteraction(myPosition, shPosition[j], acc, softeningSquared);
    __syncthreads();
  }
  accel[gtid] = make_float4(acc.x, acc.y, acc.z, 0.0f);
}`,
        blockSize: [p, 1, 1],
        sharedMemoryBytes: p * 16,
      },
      n,
      [new Float32Array(n * 4), pos],
      { N: n, softeningSquared: eps2 },
    );
    const want = Array.from({ length: n * 4 }, (_, e) => {
      const i = Math.floor(e / 4), c = e % 4;
      if (c === 3) return 0;
      let a = 0;
      for (let j = 0; j < n; j++) {
        const r = [0, 1, 2].map((k) => pos[j * 4 + k] - pos[i * 4 + k]);
        const d2 = r[0] ** 2 + r[1] ** 2 + r[2] ** 2 + eps2;
        a += r[c] * pos[j * 4 + 3] / d2 ** 1.5;
      }
      return a;
    });
    assert.equal(mismatch(acc, want, 2e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "user kernels: stream compaction with __ballot_sync, inline-PTX %lanemask_lt and a warp's atomicAdd",
  ),
  ignore,
  async fn() {
    const n = 300;
    // distinct values (7919 is prime to n: a permutation of -150..149), so each warp's run is
    // found by its first value: with values repeating every 200, as before an H200 run, the run
    // found for warp 0 was warp 6's (i and i + 200 held the same values), placed first there
    const x = Int32Array.from({ length: n }, (_, i) => ((i * 7919) % n) - 150);
    const kept = Array.from(x).filter((v) => v > 0);
    assert.equal(new Set(x).size, n);
    // a GPU serves the warps' atomicAdds in any order: run with the simulator's blocks in order
    // and last to first (what the kernel guarantees: each warp's kept values as one run, in lane
    // order, at the offset its atomicAdd returned; all of them once)
    for (const reversed of ["0", "1"]) {
      await withSimEnv({ CUDA_SIM_BLOCKS_REVERSED: reversed }, async () => {
        using client = await simulatedCudaClient();
        const [, out, count] = await launch(
          client,
          {
            source: `
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
extern "C" __global__ void compact_positive(const int* in, int* out, unsigned* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  bool keep = i < n && v > 0;
  unsigned ballot = __ballot_sync(0xffffffff, keep);
  int lane = threadIdx.x & 31;
  unsigned base = 0;
  if (lane == 0) base = atomicAdd(count, __popc(ballot));
  base = __shfl_sync(0xffffffff, base, 0);
  if (keep) out[base + __popc(ballot & lanemask_lt())] = v;
}`,
            blockSize: [64, 1, 1],
          },
          320,
          [x, new Int32Array(n), new Uint32Array(1)],
          { n },
        );
        assert.equal(count[0], kept.length);
        // warps reserve their ranges in any order; within a warp the order is kept
        const got = Array.from(out.subarray(0, kept.length));
        assert.deepEqual([...got].sort((a, b) => a - b), [...kept].sort((a, b) => a - b));
        for (let w = 0; w < 10; w++) {
          const mine = Array.from(x.subarray(w * 32, w * 32 + 32)).filter((v) => v > 0);
          if (mine.length === 0) continue;
          const at = got.indexOf(mine[0]);
          assert.deepEqual(
            got.slice(at, at + mine.length),
            mine,
            `warp ${w}, reversed ${reversed}`,
          );
        }
      });
    }
  },
});

Deno.test({
  name: nvrtcName(
    "user kernels: Sobel edges on an 8-bit image (uchar pointers, clamped borders, 2-D)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const w = 21, h = 13;
    const img = Uint8Array.from(
      { length: w * h },
      (_, i) => ((i % w) * 11 + Math.floor(i / w) * 29) % 256,
    );
    const [, edges] = await launch(
      client,
      {
        source: `
__device__ unsigned char at(const unsigned char* img, int x, int y, int w, int h) {
  x = min(max(x, 0), w - 1); y = min(max(y, 0), h - 1);
  return img[y * w + x];
}
extern "C" __global__ void sobel(const unsigned char* img, unsigned char* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int gx = -at(img, x - 1, y - 1, w, h) - 2 * at(img, x - 1, y, w, h) - at(img, x - 1, y + 1, w, h)
         + at(img, x + 1, y - 1, w, h) + 2 * at(img, x + 1, y, w, h) + at(img, x + 1, y + 1, w, h);
  int gy = -at(img, x - 1, y - 1, w, h) - 2 * at(img, x, y - 1, w, h) - at(img, x + 1, y - 1, w, h)
         + at(img, x - 1, y + 1, w, h) + 2 * at(img, x, y + 1, w, h) + at(img, x + 1, y + 1, w, h);
  float mag = sqrtf((float)(gx * gx + gy * gy));
  out[y * w + x] = (unsigned char)min(255, __float2int_rn(mag));
}`,
        blockSize: [8, 8, 1],
      },
      [24, 16],
      [img, new Uint8Array(w * h)],
      { w, h },
    );
    const px = (x: number, y: number) =>
      img[Math.min(Math.max(y, 0), h - 1) * w + Math.min(Math.max(x, 0), w - 1)];
    const want = Array.from({ length: w * h }, (_, i) => {
      const x = i % w, y = Math.floor(i / w);
      const gx = -px(x - 1, y - 1) - 2 * px(x - 1, y) - px(x - 1, y + 1) + px(x + 1, y - 1) +
        2 * px(x + 1, y) + px(x + 1, y + 1);
      const gy = -px(x - 1, y - 1) - 2 * px(x, y - 1) - px(x + 1, y - 1) + px(x - 1, y + 1) +
        2 * px(x, y + 1) + px(x + 1, y + 1);
      const m = Math.fround(Math.sqrt(gx * gx + gy * gy));
      const r = Math.abs(m % 1) === 0.5 ? 2 * Math.round(m / 2) : Math.round(m);
      return Math.min(255, r);
    });
    assert.equal(mismatch(edges, want), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "user kernels: Mandelbrot escape counts, a float maximum by an atomicCAS loop, a PyTorch-style muladd",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const w = 40, h = 24, maxIter = 60;
    const [iters] = await launch(
      client,
      {
        source: `
extern "C" __global__ void mandelbrot(int* out, int w, int h, int maxIter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cx = -2.0f + 2.5f * px / w, cy = -1.0f + 2.0f * py / h;
  float x = 0.0f, y = 0.0f;
  int i = 0;
  while (x * x + y * y <= 4.0f && i < maxIter) {
    float xt = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = xt;
    ++i;
  }
  out[py * w + px] = i;
}`,
        blockSize: [16, 8, 1],
      },
      [48, 24],
      [new Int32Array(w * h)],
      { w, h, maxIter },
    );
    const f = Math.fround;
    const want = Array.from({ length: w * h }, (_, k) => {
      const px = k % w, py = Math.floor(k / w);
      const cx = f(-2 + f(f(2.5 * px) / w)), cy = f(-1 + f(f(2 * py) / h));
      let x = 0, y = 0, i = 0;
      while (f(f(x * x) + f(y * y)) <= 4 && i < maxIter) {
        const xt = f(f(f(x * x) - f(y * y)) + cx);
        y = f(f(f(2 * x) * y) + cy);
        x = xt;
        i++;
      }
      return i;
    });
    // (nvcc may contract x * x - y * y + cx into fmas: NVRTC's default --fmad=true does)
    const close = Array.from(iters).filter((v, i) => Math.abs(v - want[i]) > 2).length;
    assert.ok(close <= 2, `${close} pixels differ by more than 2 iterations`);
    assert.equal(iters[0], want[0]);

    const xs = Float32Array.from(randoms(500, 61), (v) => v * 100);
    const [, mx] = await launch(
      client,
      {
        source: `
__device__ float atomicMaxFloat(float* addr, float value) {
  int* address_as_i = (int*)addr;
  int old = *address_as_i, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_i, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
extern "C" __global__ void max_kernel(const float* x, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMaxFloat(result, x[i]);
}`,
        blockSize: [128, 1, 1],
      },
      500,
      [xs, new Float32Array([-Infinity])],
      { n: 500 },
    );
    assert.equal(mx[0], Math.max(...xs));

    const a = randoms(200, 62), b = randoms(200, 63);
    const [, , result] = await launch(
      client,
      {
        source: `
extern "C" __global__ void muladd_kernel(const float* a, const float* b, float* result, float c, int numel) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < numel) result[idx] = a[idx] * b[idx] + c;
}`,
      },
      200,
      [a, b, new Float32Array(200)],
      { c: 0.5, numel: 200 },
    );
    // NVRTC contracts a * b + c into one fma (--fmad=true): one rounding (the product is exact in
    // a double)
    assert.equal(mismatch(result, Array.from(a, (v, i) => Math.fround(v * b[i] + 0.5))), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "user kernels: int8 dot products (__dp4a, __dp2a_lo/hi, as quantized inference uses) and __fns " +
      "(a base past 31 runs, as on an H200)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 96;
    const a = Int32Array.from({ length: n }, (_, i) => Math.imul(i + 3, 0x9E3779B1));
    const b = Int32Array.from({ length: n }, (_, i) => Math.imul(i + 7, 0x85EBCA77));
    const [, , out] = await launch(
      client,
      {
        source: `
extern "C" __global__ void k(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  out[8 * i] = __dp4a(x, y, i);
  out[8 * i + 1] = (int)__dp4a((unsigned)x, (unsigned)y, (unsigned)i);
  out[8 * i + 2] = __dp2a_lo(x, y, -i);
  out[8 * i + 3] = __dp2a_hi(x, y, 5);
  out[8 * i + 4] = (int)__dp2a_hi((unsigned)x, (unsigned)y, 1u);
  out[8 * i + 5] = (int)__fns((unsigned)x, i % 32, 1 + i % 3);
  out[8 * i + 6] = (int)__fns((unsigned)x, i % 32, -1 - i % 2);
  out[8 * i + 7] = (int)__fns((unsigned)y, i % 32, 0);
}`,
        blockSize: [32, 1, 1],
      },
      n,
      [a, b, new Int32Array(8 * n)],
      { n },
    );
    const part = (v: number, k: number, width: number, signed: boolean) => {
      const u = (v >>> (width * k)) & (2 ** width - 1);
      return signed && u >= 2 ** (width - 1) ? u - 2 ** width : u;
    };
    const dot = (
      x: number,
      y: number,
      c: number,
      signed: boolean,
      parts: number,
      first: number,
    ) => {
      let s = c;
      for (let k = 0; k < parts; k++) {
        s += part(x, k, parts === 4 ? 8 : 16, signed) * part(y, first + k, 8, signed);
      }
      return s | 0;
    };
    const fns = (mask: number, base: number, offset: number) => {
      if (offset === 0) return (mask >>> base) & 1 ? base : -1;
      let count = Math.abs(offset) - 1;
      for (let pos = base; pos >= 0 && pos < 32; pos += Math.sign(offset)) {
        if ((mask >>> pos) & 1 && count-- === 0) return pos;
      }
      return -1; // 0xffffffff
    };
    const want = Array.from({ length: n }, (_, i) => [
      dot(a[i], b[i], i, true, 4, 0),
      dot(a[i], b[i], i, false, 4, 0),
      dot(a[i], b[i], -i, true, 2, 0),
      dot(a[i], b[i], 5, true, 2, 2),
      dot(a[i], b[i], 1, false, 2, 2),
      fns(a[i], i % 32, 1 + i % 3),
      fns(a[i], i % 32, -1 - i % 2),
      fns(b[i], i % 32, 0),
    ]).flat();
    assert.equal(mismatch(out, want), undefined);
    // a base past bit 31 is undefined in the PTX ISA, yet no fault: NVIDIA's driver (580, H200)
    // ran it. Its value is the device's own; the simulator gives the ISA pseudocode's (no bit)
    using y = client.createWithData(Int32Array.of(7, 7, 7));
    const fnsPast31: CudaKernel = {
      source: `extern "C" __global__ void k(int* y, int base) {
  y[threadIdx.x] = __fns(0xffu, base, (int)threadIdx.x - 1);
}`,
    };
    client.execute(fnsPast31, { threads: 3, buffers: [y], params: { base: 40 } });
    const past31 = (await client.read(y)) as Int32Array;
    if (onSimulator) assert.deepEqual(Array.from(past31), [-1, -1, -1]);
  },
});

Deno.test({
  name: nvrtcName(
    "user kernels on an sm_86 device: __reduce_*_sync warp reductions (redux.sync), whole and half warps",
  ),
  ignore,
  async fn() {
    // NVRTC compiles for the device's compute capability: __reduce_*_sync needs sm_80 or newer
    await withSimEnv({ CUDA_SIM_CC: "86" }, async () => {
      using client = await simulatedCudaClient();
      const x = Int32Array.from({ length: 96 }, (_, i) => Math.imul(i + 1, 0x2545F491) >> 7);
      const [, out] = await launch(
        client,
        {
          source: `
extern "C" __global__ void k(const int* x, int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = x[i];
  out[8 * i] = __reduce_add_sync(0xffffffff, v);
  out[8 * i + 1] = __reduce_min_sync(0xffffffff, v);
  out[8 * i + 2] = __reduce_max_sync(0xffffffff, v);
  out[8 * i + 3] = (int)__reduce_max_sync(0xffffffff, (unsigned)v);
  out[8 * i + 4] = (int)__reduce_and_sync(0xffffffff, (unsigned)v);
  out[8 * i + 5] = (int)__reduce_or_sync(0xffffffff, (unsigned)v);
  out[8 * i + 6] = (int)__reduce_xor_sync(0xffffffff, (unsigned)v);
  out[8 * i + 7] = lane < 16 ? (int)__reduce_add_sync(0x0000ffff, (unsigned)v) : -1;
}`,
          blockSize: [32, 1, 1],
        },
        96,
        [x, new Int32Array(8 * 96)],
      );
      const want = Array.from(x, (_, i) => {
        const w = Array.from(x.subarray(i - (i % 32), i - (i % 32) + 32));
        const lo = w.slice(0, 16);
        return [
          w.reduce((a, b) => (a + b) | 0),
          Math.min(...w),
          Math.max(...w),
          Math.max(...w.map((v) => v >>> 0)) | 0,
          w.reduce((a, b) => a & b),
          w.reduce((a, b) => a | b),
          w.reduce((a, b) => a ^ b),
          i % 32 < 16 ? lo.reduce((a, b) => (a + b) | 0) : -1,
        ];
      }).flat();
      assert.equal(mismatch(out, want), undefined);
    });
  },
});

Deno.test({
  name: nvrtcName(
    "CuPy RawModule-style templates: instances launched by name (test_sum<float>, my_func<double>, reduce<64>)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // as CuPy's RawModule docs write it, with name_expressions: the runtime asks NVRTC for the
    // instance the entryPoint names and launches its mangled name
    const source = `
template<typename T>
__global__ void test_sum(const T* x1, const T* x2, T* y, unsigned int N) {
  unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < N) y[tid] = x1[tid] + x2[tid];
}
__device__ float my_sqrt(float x) { return sqrtf(x); }
__device__ double my_sqrt(double x) { return sqrt(x); }
template<typename T>
__global__ void my_func(const T* in, T* out, unsigned int N) {
  unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < N) out[tid] = my_sqrt(in[tid]);
}
template <unsigned int blockSize>
__global__ void reduce(const int* in, int* out) {
  __shared__ int s[blockSize];
  s[threadIdx.x] = in[blockIdx.x * blockSize + threadIdx.x];
  __syncthreads();
  for (unsigned int o = blockSize / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}`;
    const N = 100;
    const a = Float32Array.from({ length: N }, (_, i) => i * 0.5);
    const b = Float32Array.from({ length: N }, (_, i) => 100 - i);
    const [, , y] = await launch(client, { source, entryPoint: "test_sum<float>" }, N, [
      a,
      b,
      new Float32Array(N),
    ], { N });
    assert.equal(mismatch(y, Array.from(a, (v, i) => v + b[i])), undefined);
    const ia = Int32Array.from(a, (v) => v * 4), ib = Int32Array.from(b);
    const [, , iy] = await launch(client, { source, entryPoint: "test_sum<int>" }, N, [
      ia,
      ib,
      new Int32Array(N),
    ], { N });
    assert.equal(mismatch(iy, Array.from(ia, (v, i) => v + ib[i])), undefined);
    const [, roots] = await launch(client, { source, entryPoint: "my_func<double>" }, N, [
      Float64Array.from(a),
      new Float64Array(N),
    ], { N });
    assert.equal(mismatch(roots, Array.from(a, Math.sqrt)), undefined);
    const [, sums] = await launch(
      client,
      {
        source,
        entryPoint: "reduce<64>",
        blockSize: [64, 1, 1],
      },
      128,
      [Int32Array.from({ length: 128 }, (_, i) => i * i), new Int32Array(2)],
    );
    assert.deepEqual(
      Array.from(sums),
      [0, 1].map((k) => {
        let s = 0;
        for (let i = k * 64; i < k * 64 + 64; i++) s += i * i;
        return s;
      }),
    );
    // an instance NVRTC cannot make is its compile error, naming the expression
    await assert.rejects(
      launch(client, { source, entryPoint: "reduce<float>" }, 64, [
        new Int32Array(64),
        new Int32Array(1),
      ]),
      (error: Error) =>
        error.name === "CompilationError" &&
        /cannot determine which instance of function template "reduce"/.test(error.message),
    );
    await assert.rejects(
      launch(client, { source, entryPoint: "nope<1>" }, 64, [new Int32Array(64)]),
      /entryPoint is 'nope<1>', but the source declares no template __global__ function 'nope'/,
    );
  },
});
