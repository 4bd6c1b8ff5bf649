/**
 * User CUDA C, QA wave 12: NVIDIA cuda-samples kernels not run before, as the samples write them
 * (cooperative groups' block syncs as `__syncthreads()` / `__syncwarp()`, since NVRTC has no
 * `<cooperative_groups.h>` here): threadFenceReduction's single-pass reduction (a `__device__`
 * ticket counter, `__threadfence`, `atomicInc`, dynamic shared memory, a template instance),
 * shfl_scan (`__shfl_up_sync` of widths 32 and 1, default arguments), fastWalshTransform (dynamic
 * shared memory, a 2-D grid), each against a CPU reference (the samples' other kernels:
 * tests/cuda_user_kernels_19_test.ts).
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;

/** A kernel of `source` launched as `entryPoint` in blocks of `block` threads. */
function cuda(
  source: string,
  entryPoint: string,
  block: [number, number, number],
  sharedMemoryBytes?: number,
): CudaKernel {
  return { source, entryPoint, blockSize: block, sharedMemoryBytes };
}

/** `n` deterministic small integers in [-range, range] as floats (sums of them are exact). */
function smallInts(n: number, range: number, seed = 7): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 8) % (2 * range + 1) - range;
  });
}

// Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh
// (NVIDIA/cuda-samples ceab6e8): cg::sync(tile32) as __syncwarp(), cg::sync(cta) as
// __syncthreads(), cta.thread_rank() as threadIdx.x; the host's setRetirementCount dropped.
const THREAD_FENCE = `template <unsigned int blockSize>
__device__ void reduceBlock(volatile float *sdata, float mySum, const unsigned int tid) {
  sdata[tid] = mySum;
  __syncwarp();
  const int VEC = 32;
  const int vid = tid & (VEC - 1);
  float beta = mySum;
  float temp;
  for (int i = VEC / 2; i > 0; i >>= 1) {
    if (vid < i) {
      temp = sdata[tid + i];
      beta += temp;
      sdata[tid] = beta;
    }
    __syncwarp();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    beta = 0;
    for (int i = 0; i < blockDim.x; i += VEC) {
      beta += sdata[i];
    }
    sdata[0] = beta;
  }
  __syncthreads();
}

template <unsigned int blockSize, bool nIsPow2>
__device__ void reduceBlocks(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  float mySum = 0;
  while (i < n) {
    mySum += g_idata[i];
    if (nIsPow2 || i + blockSize < n)
      mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  reduceBlock<blockSize>(sdata, mySum, tid);
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

__device__ unsigned int retirementCount = 0;

template <unsigned int blockSize, bool nIsPow2>
__global__ void reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n) {
  reduceBlocks<blockSize, nIsPow2>(g_idata, g_odata, n);
  if (gridDim.x > 1) {
    const unsigned int tid = threadIdx.x;
    __shared__ bool amLast;
    extern float __shared__ smem[];
    __threadfence();
    if (tid == 0) {
      unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
      amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
      int i = tid;
      float mySum = 0;
      while (i < gridDim.x) {
        mySum += g_odata[i];
        i += blockSize;
      }
      reduceBlock<blockSize>(smem, mySum, tid);
      if (tid == 0) {
        g_odata[0] = smem[0];
        retirementCount = 0;
      }
    }
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples threadFenceReduction reduceSinglePass<128, false> (a __device__ ticket " +
      "counter, __threadfence, atomicInc, dynamic shared memory) twice, exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const kernel: CudaKernel = {
      source: THREAD_FENCE,
      entryPoint: "reduceSinglePass<128, false>",
      blockSize: [128, 1, 1],
      sharedMemoryBytes: 128 * 4,
    };
    for (const [n, blocks] of [[5000, 8], [777, 3]]) {
      const input = smallInts(n, 100, n);
      const want = input.reduce((a, b) => a + b, 0);
      const [, out] = await launch(
        client,
        kernel,
        128 * blocks,
        [input, new Float32Array(blocks)],
        {
          n,
        },
      );
      const partial = (b: number) => {
        let sum = 0;
        for (let t = 0; t < 128; t++) {
          for (let i = b * 256 + t; i < n; i += 256 * blocks) {
            sum += input[i] + (i + 128 < n ? input[i + 128] : 0);
          }
        }
        return sum;
      };
      // the last block to retire writes the total; the others' partial sums stay
      assert.equal(out[0], want, `n = ${n}`);
      for (let b = 1; b < blocks; b++) assert.equal(out[b], partial(b), `n = ${n}, block ${b}`);
    }
  },
});

// Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu (NVIDIA/cuda-samples 306af8d)
const SHFL_SCAN = `__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  int warp_id = threadIdx.x / warpSize;
  int value = data[id];
#pragma unroll
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);
    if (lane_id >= i) value += n;
  }
  if (threadIdx.x % warpSize == warpSize - 1) {
    sums[warp_id] = value;
  }
  __syncthreads();
  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];
    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
      if (lane_id >= i) warp_sum += n;
    }
    sums[lane_id] = warp_sum;
  }
  __syncthreads();
  int blockSum = 0;
  if (warp_id > 0) {
    blockSum = sums[warp_id - 1];
  }
  value += blockSum;
  data[id] = value;
  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
    partial_sums[blockIdx.x] = value;
  }
}

__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  if (id > len) return;
  if (threadIdx.x == 0) {
    buf = partial_sums[blockIdx.x];
  }
  __syncthreads();
  data[id] += buf;
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples shfl_scan: shfl_scan_test (__shfl_up_sync of widths 32 and 1, a default " +
      "argument) over blocks and their sums, then uniform_add, exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const blockSize = 256, n = blockSize * 32; // 32 partial sums: one warp scans them
    const scan = (bs: number): CudaKernel => ({
      source: SHFL_SCAN,
      entryPoint: "shfl_scan_test",
      blockSize: [bs, 1, 1],
      sharedMemoryBytes: (blockSize / 32) * 4,
    });
    let s = 3;
    const input = Int32Array.from({ length: n }, () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return (s >>> 16) % 2001 - 1000;
    });
    const data = client.createWithData(input);
    const partial = client.createWithData(new Int32Array(32));
    const unused = client.createWithData(new Int32Array(1));
    const shifted = client.createWithData(new Int32Array(32));
    try {
      client.execute(scan(blockSize), {
        threads: n,
        buffers: [data, partial],
        params: { width: 32 },
      });
      client.execute(scan(32), { threads: 32, buffers: [partial, unused], params: { width: 32 } });
      // The sample adds partial_sums[b] to the block after b (d_data + blockSize); a buffer
      // cannot start inside another here, so the sums move one place up instead.
      const sums = (await client.read(partial)) as Int32Array;
      client.write(shifted, Int32Array.from({ length: 32 }, (_, b) => b === 0 ? 0 : sums[b - 1]));
      client.execute(cuda(SHFL_SCAN, "uniform_add", [blockSize, 1, 1]), {
        threads: n,
        buffers: [data, shifted],
        params: { len: n },
      });
      const got = (await client.read(data)) as Int32Array;
      const want = new Int32Array(n);
      for (let i = 0, acc = 0; i < n; i++) want[i] = acc += input[i];
      assert.deepEqual(got, want);
      assert.deepEqual(sums, Int32Array.from({ length: 32 }, (_, b) => want[256 * b + 255]));
    } finally {
      data.dispose(), partial.dispose(), unused.dispose(), shifted.dispose();
    }
  },
});

// Samples/5_Domain_Specific/fastWalshTransform/fastWalshTransform_kernel.cuh (NVIDIA/cuda-samples
// 306af8d), cg::sync(cta) as __syncthreads()
const FWT = `#define ELEMENTARY_LOG2SIZE 11
__global__ void fwtBatch1Kernel(float *d_Output, float *d_Input, int log2N) {
  const int N = 1 << log2N;
  const int base = blockIdx.x << log2N;
  extern __shared__ float s_data[];
  float *d_Src = d_Input + base;
  float *d_Dst = d_Output + base;
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) {
    s_data[pos] = d_Src[pos];
  }
  const int pos = threadIdx.x;
  for (int stride = N >> 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride;
    int i2 = i1 + stride;
    int i3 = i2 + stride;
    __syncthreads();
    float D0 = s_data[i0];
    float D1 = s_data[i1];
    float D2 = s_data[i2];
    float D3 = s_data[i3];
    float T;
    T = D0;
    D0 = D0 + D2;
    D2 = T - D2;
    T = D1;
    D1 = D1 + D3;
    D3 = T - D3;
    T = D0;
    s_data[i0] = D0 + D1;
    s_data[i1] = T - D1;
    T = D2;
    s_data[i2] = D2 + D3;
    s_data[i3] = T - D3;
  }
  if (log2N & 1) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
      int i0 = pos << 1;
      int i1 = i0 + 1;
      float D0 = s_data[i0];
      float D1 = s_data[i1];
      s_data[i0] = D0 + D1;
      s_data[i1] = D0 - D1;
    }
  }
  __syncthreads();
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) {
    d_Dst[pos] = s_data[pos];
  }
}

__global__ void fwtBatch2Kernel(float *d_Output, float *d_Input, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int N = blockDim.x * gridDim.x * 4;
  float *d_Src = d_Input + blockIdx.y * N;
  float *d_Dst = d_Output + blockIdx.y * N;
  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride;
  int i2 = i1 + stride;
  int i3 = i2 + stride;
  float D0 = d_Src[i0];
  float D1 = d_Src[i1];
  float D2 = d_Src[i2];
  float D3 = d_Src[i3];
  float T;
  T = D0;
  D0 = D0 + D2;
  D2 = T - D2;
  T = D1;
  D1 = D1 + D3;
  D3 = T - D3;
  T = D0;
  d_Dst[i0] = D0 + D1;
  d_Dst[i1] = T - D1;
  T = D2;
  d_Dst[i2] = D2 + D3;
  d_Dst[i3] = T - D3;
}

__global__ void modulateKernel(float *d_A, float *d_B, int N) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int numThreads = blockDim.x * gridDim.x;
  float rcpN = 1.0f / (float)N;
  for (int pos = tid; pos < N; pos += numThreads) {
    d_A[pos] *= d_B[pos] * rcpN;
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples fastWalshTransform: fwtBatch2Kernel (a [x, M] grid) and fwtBatch1Kernel " +
      "(8 KiB of dynamic shared memory) as fwtBatchGPU runs them, then a dyadic convolution",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const log2N = 13, N = 1 << log2N, M = 2;
    // fwtBatchGPU(d, M, log2N): one global radix-4 pass, then the shared-memory kernel
    const fwt = (d: ReturnType<typeof client.createWithData>, m: number) => {
      client.execute(cuda(FWT, "fwtBatch2Kernel", [256, 1, 1]), {
        threads: [N / 4, m],
        buffers: [d, d],
        params: { stride: N / 4 },
      });
      client.execute(cuda(FWT, "fwtBatch1Kernel", [512, 1, 1], 2048 * 4), {
        threads: 512 * m * 4,
        buffers: [d, d],
        params: { log2N: log2N - 2 },
      });
    };
    const input = smallInts(N * M, 4, 11);
    const taps = new Float32Array(N);
    for (let k = 0; k < 16; k++) taps[(k * 977) % N] = (k % 7) - 3;
    const data = client.createWithData(input);
    const kernel = client.createWithData(taps);
    try {
      fwt(data, M);
      const spectrum = (await client.read(data)) as Float32Array;
      const cpu = Float64Array.from(input);
      for (let b = 0; b < M; b++) {
        for (let h = 1; h < N; h <<= 1) {
          for (let i = 0; i < N; i += h << 1) {
            for (let j = i; j < i + h; j++) {
              const x = cpu[b * N + j], y = cpu[b * N + j + h];
              cpu[b * N + j] = x + y, cpu[b * N + j + h] = x - y;
            }
          }
        }
      }
      assert.deepEqual(spectrum, Float32Array.from(cpu)); // integers below 2^24: exact
      // the sample's dyadic convolution of batch 0 with the taps
      fwt(kernel, 1);
      client.execute(cuda(FWT, "modulateKernel", [256, 1, 1]), {
        threads: 128 * 256,
        buffers: [data, kernel],
        params: { N },
      });
      fwt(data, 1);
      const got = (await client.read(data)) as Float32Array;
      let worst = 0;
      for (let i = 0; i < N; i++) {
        let want = 0;
        for (let k = 0; k < 16; k++) {
          const j = (k * 977) % N;
          want += input[i ^ j] * taps[j];
        }
        worst = Math.max(worst, Math.abs(got[i] - want));
      }
      assert.ok(worst < 1e-2, `dyadic convolution off by ${worst}`);
    } finally {
      data.dispose(), kernel.dispose();
    }
  },
});
