/**
 * User CUDA C, QA wave 12 (continued from tests/cuda_user_kernels_16_test.ts): NVIDIA cuda-samples'
 * simpleAtomicIntrinsics (every integer atomic), simpleVoteIntrinsics (`__any_sync`,
 * `__all_sync`, bool stores), clock (`clock()` into `clock_t`), convolutionSeparable
 * (`__constant__` taps, 2-D blocks) and simpleTemplates (dynamic shared memory through a
 * template's specializations), each against a CPU reference.
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

// Samples/0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh
// (NVIDIA/cuda-samples 2e41896), verbatim
const ATOMICS = `__global__ void testKernel(int *g_odata) {
  const unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  atomicAdd(&g_odata[0], 10);
  atomicSub(&g_odata[1], 10);
  atomicExch(&g_odata[2], tid);
  atomicMax(&g_odata[3], tid);
  atomicMin(&g_odata[4], tid);
  atomicInc((unsigned int *)&g_odata[5], 17);
  atomicDec((unsigned int *)&g_odata[6], 137);
  atomicCAS(&g_odata[7], tid - 1, tid);
  atomicAnd(&g_odata[8], 2 * tid + 7);
  atomicOr(&g_odata[9], 1 << tid);
  atomicXor(&g_odata[10], tid);
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples simpleAtomicIntrinsics testKernel: every integer atomic of global memory, " +
      "against the sample's gold rules",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 64 * 4;
    const init = new Int32Array(11);
    init[8] = init[10] = 0xff; // as the sample starts them
    const [got] = await launch(client, cuda(ATOMICS, "testKernel", [64, 1, 1]), n, [init]);
    let inc = 0, dec = 0, and = 0xff, or = 0, xor = 0xff;
    for (let t = 0; t < n; t++) {
      inc = inc >= 17 ? 0 : inc + 1;
      dec = dec === 0 || dec > 137 ? 137 : dec - 1;
      and &= 2 * t + 7;
      or |= t < 32 ? 1 << t : 0; // shl.b32 by 32 or more is 0
      xor ^= t;
    }
    assert.deepEqual([...got].filter((_, i) => i !== 2 && i !== 7), [
      10 * n,
      -10 * n,
      n - 1,
      0,
      inc,
      dec,
      and,
      or,
      xor,
    ]);
    // the exchange keeps some thread's id; the compare-and-swap chain from 0 got at least to 1
    // (thread 1 finds 0 whatever the order) and at most to n - 1
    assert.ok(got[2] >= 0 && got[2] < n, `exch ${got[2]}`);
    assert.ok(got[7] >= 1 && got[7] < n, `cas ${got[7]}`);
  },
});

// Samples/0_Introduction/simpleVoteIntrinsics/simpleVote_kernel.cuh (NVIDIA/cuda-samples
// ca37378), verbatim
const VOTE = `__global__ void VoteAnyKernel1(unsigned int *input, unsigned int *result, int size) {
  int tx = threadIdx.x;
  int mask = 0xffffffff;
  result[tx] = __any_sync(mask, input[tx]);
}
__global__ void VoteAllKernel2(unsigned int *input, unsigned int *result, int size) {
  int tx = threadIdx.x;
  int mask = 0xffffffff;
  result[tx] = __all_sync(mask, input[tx]);
}
__global__ void VoteAnyKernel3(bool *info, int warp_size) {
  int tx = threadIdx.x;
  unsigned int mask = 0xffffffff;
  bool *offs = info + (tx * 3);
  *offs = __any_sync(mask, (tx >= (warp_size * 3) / 2));
  *(offs + 1) = (tx >= (warp_size * 3) / 2 ? true : false);
  if (__all_sync(mask, (tx >= (warp_size * 3) / 2))) {
    *(offs + 2) = true;
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples simpleVoteIntrinsics: VoteAnyKernel1, VoteAllKernel2 and VoteAnyKernel3 " +
      "(bool stores) over warps of zeros, ones and mixtures",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const warps = 4, n = 32 * warps;
    // warp 0 all zero, warp 1 all set, warp 2 one lane set, warp 3 one lane clear
    const input = Uint32Array.from(
      { length: n },
      (_, t) => [0, 7, t === 64 + 17 ? 1 : 0, t === 96 + 5 ? 0 : 0x80000000][t >> 5],
    );
    const any = [0, 1, 1, 1], all = [0, 1, 0, 0];
    for (const [name, want] of [["VoteAnyKernel1", any], ["VoteAllKernel2", all]] as const) {
      const [, result] = await launch(client, cuda(VOTE, name, [n, 1, 1]), n, [
        input,
        new Uint32Array(n),
      ], { size: n });
      assert.deepEqual([...result], Array.from({ length: n }, (_, t) => want[t >> 5]), name);
    }
    const [info] = await launch(client, cuda(VOTE, "VoteAnyKernel3", [96, 1, 1]), 96, [
      new Uint8Array(96 * 3),
    ], { warp_size: 32 });
    const want = Array.from(
      { length: 96 },
      (_, t) => [t >= 32 ? 1 : 0, t >= 48 ? 1 : 0, t >= 64 ? 1 : 0],
    )
      .flat();
    assert.deepEqual([...info], want);
  },
});

// Samples/0_Introduction/clock/clock.cu (NVIDIA/cuda-samples 306af8d), verbatim
const CLOCK = `__global__ static void timedReduction(const float *input, float *output,
                                      clock_t *timer) {
  extern __shared__ float shared[];
  const int tid = threadIdx.x;
  const int bid = blockIdx.x;
  if (tid == 0) timer[bid] = clock();
  shared[tid] = input[tid];
  shared[tid + blockDim.x] = input[tid + blockDim.x];
  for (int d = blockDim.x; d > 0; d /= 2) {
    __syncthreads();
    if (tid < d) {
      float f0 = shared[tid];
      float f1 = shared[tid + d];
      if (f1 < f0) {
        shared[tid] = f1;
      }
    }
  }
  if (tid == 0) output[bid] = shared[0];
  __syncthreads();
  if (tid == 0) timer[bid + gridDim.x] = clock();
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples clock: timedReduction (a static kernel, clock() into clock_t, dynamic shared " +
      "memory) finds each block's minimum, its clocks never run backwards",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const blocks = 4, threads = 256;
    const input = smallInts(2 * threads, 1000, 5);
    const [, output, timer] = await launch(
      client,
      cuda(CLOCK, "timedReduction", [threads, 1, 1], 2 * threads * 4),
      blocks * threads,
      [input, new Float32Array(blocks), new BigInt64Array(2 * blocks)],
    );
    const min = input.reduce((a, b) => Math.min(a, b));
    assert.deepEqual([...output], new Array(blocks).fill(min));
    const clocks = timer as unknown as BigInt64Array;
    for (let b = 0; b < blocks; b++) {
      assert.ok(
        clocks[b + blocks] >= clocks[b],
        `block ${b}: ${clocks[b]} .. ${clocks[b + blocks]}`,
      );
    }
  },
});

// Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu
// (NVIDIA/cuda-samples ca37378), cg::sync(cta) as __syncthreads(); without a
// cudaMemcpyToSymbol here, c_Kernel is initialized in the source (convolutionSeparable_common.h:
// KERNEL_RADIUS 8).
const TAPS = Array.from({ length: 17 }, (_, k) => (k * 5) % 9 - 4).map((t) => t / 16);
const CONVOLUTION = `#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
__constant__ float c_Kernel[KERNEL_LENGTH] = {${TAPS.map((t) => t.toFixed(4) + "f").join(", ")}};

#define ROWS_BLOCKDIM_X 16
#define ROWS_BLOCKDIM_Y 4
#define ROWS_RESULT_STEPS 8
#define ROWS_HALO_STEPS 1

__global__ void convolutionRowsKernel(float *d_Dst, float *d_Src, int imageW,
                                      int imageH, int pitch) {
  __shared__ float
      s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) *
                              ROWS_BLOCKDIM_X];
  const int baseX =
      (blockIdx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X +
      threadIdx.x;
  const int baseY = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;
  d_Src += baseY * pitch + baseX;
  d_Dst += baseY * pitch + baseX;
#pragma unroll
  for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
    s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
        d_Src[i * ROWS_BLOCKDIM_X];
  }
#pragma unroll
  for (int i = 0; i < ROWS_HALO_STEPS; i++) {
    s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
        (baseX >= -i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
  }
#pragma unroll
  for (int i = ROWS_HALO_STEPS + ROWS_RESULT_STEPS;
       i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS; i++) {
    s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
        (imageW - baseX > i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
  }
  __syncthreads();
#pragma unroll
  for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
      sum += c_Kernel[KERNEL_RADIUS - j] *
             s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X + j];
    }
    d_Dst[i * ROWS_BLOCKDIM_X] = sum;
  }
}

#define COLUMNS_BLOCKDIM_X 16
#define COLUMNS_BLOCKDIM_Y 8
#define COLUMNS_RESULT_STEPS 8
#define COLUMNS_HALO_STEPS 1

__global__ void convolutionColumnsKernel(float *d_Dst, float *d_Src, int imageW,
                                         int imageH, int pitch) {
  __shared__ float s_Data[COLUMNS_BLOCKDIM_X][(COLUMNS_RESULT_STEPS +
                                               2 * COLUMNS_HALO_STEPS) *
                                                  COLUMNS_BLOCKDIM_Y +
                                              1];
  const int baseX = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
  const int baseY = (blockIdx.y * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) *
                        COLUMNS_BLOCKDIM_Y +
                    threadIdx.y;
  d_Src += baseY * pitch + baseX;
  d_Dst += baseY * pitch + baseX;
#pragma unroll
  for (int i = COLUMNS_HALO_STEPS;
       i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
    s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
        d_Src[i * COLUMNS_BLOCKDIM_Y * pitch];
  }
#pragma unroll
  for (int i = 0; i < COLUMNS_HALO_STEPS; i++) {
    s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
        (baseY >= -i * COLUMNS_BLOCKDIM_Y)
            ? d_Src[i * COLUMNS_BLOCKDIM_Y * pitch]
            : 0;
  }
#pragma unroll
  for (int i = COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS;
       i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS + COLUMNS_HALO_STEPS;
       i++) {
    s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
        (imageH - baseY > i * COLUMNS_BLOCKDIM_Y)
            ? d_Src[i * COLUMNS_BLOCKDIM_Y * pitch]
            : 0;
  }
  __syncthreads();
#pragma unroll
  for (int i = COLUMNS_HALO_STEPS;
       i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
      sum += c_Kernel[KERNEL_RADIUS - j] *
             s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y + j];
    }
    d_Dst[i * COLUMNS_BLOCKDIM_Y * pitch] = sum;
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples convolutionSeparable: row and column kernels (__constant__ taps, 2-D blocks, " +
      "halos past the image edge), exact on small integers",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const W = 128, H = 64;
    const image = smallInts(W * H, 8, 21);
    const params = { imageW: W, imageH: H, pitch: W };
    const src = client.createWithData(image);
    const rows = client.createWithData(new Float32Array(W * H));
    const cols = client.createWithData(new Float32Array(W * H));
    try {
      // the sample's convolutionRowsGPU / convolutionColumnsGPU grids, as threads
      client.execute(cuda(CONVOLUTION, "convolutionRowsKernel", [16, 4, 1]), {
        threads: [W / 128 * 16, H / 4 * 4],
        buffers: [rows, src],
        params,
      });
      client.execute(cuda(CONVOLUTION, "convolutionColumnsKernel", [16, 8, 1]), {
        threads: [W / 16 * 16, H / 64 * 8],
        buffers: [cols, rows],
        params,
      });
      const [gotRows, gotCols] = (await client.readMany([rows, cols])) as Float32Array[];
      // the sample's convolutionRowCPU / convolutionColumnCPU: taps past the edge are skipped
      const conv = (src: ArrayLike<number>, dx: number, dy: number) =>
        Float32Array.from({ length: W * H }, (_, i) => {
          const x = i % W, y = Math.floor(i / W);
          let sum = 0;
          for (let k = -8; k <= 8; k++) {
            const xx = x + k * dx, yy = y + k * dy;
            if (xx >= 0 && xx < W && yy >= 0 && yy < H) sum += src[yy * W + xx] * TAPS[8 - k];
          }
          return sum;
        });
      const wantRows = conv(image, 1, 0);
      assert.deepEqual(gotRows, wantRows); // sixteenths of small integers: every sum is exact
      assert.deepEqual(gotCols, conv(wantRows, 0, 1));
    } finally {
      src.dispose(), rows.dispose(), cols.dispose();
    }
  },
});

// Samples/0_Introduction/simpleTemplates/simpleTemplates.cu (NVIDIA/cuda-samples ceab6e8) and
// its sharedmem.cuh (306af8d), verbatim but for the specializations of types not run here
const TEMPLATES = `template <typename T>
struct SharedMemory {
  __device__ T *getPointer() {
    extern __device__ void error(void);
    error();
    return NULL;
  }
};
template <>
struct SharedMemory<int> {
  __device__ int *getPointer() {
    extern __shared__ int s_int[];
    return s_int;
  }
};
template <>
struct SharedMemory<unsigned int> {
  __device__ unsigned int *getPointer() {
    extern __shared__ unsigned int s_uint[];
    return s_uint;
  }
};
template <>
struct SharedMemory<float> {
  __device__ float *getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};
template <>
struct SharedMemory<double> {
  __device__ double *getPointer() {
    extern __shared__ double s_double[];
    return s_double;
  }
};

template <class T> __global__ void testKernel(T *g_idata, T *g_odata)
{
    SharedMemory<T> smem;
    T              *sdata = smem.getPointer();
    const unsigned int tid = threadIdx.x;
    const unsigned int num_threads = blockDim.x;
    sdata[tid] = g_idata[tid];
    __syncthreads();
    sdata[tid] = (T)num_threads * sdata[tid];
    __syncthreads();
    g_odata[tid] = sdata[tid];
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples simpleTemplates testKernel<float>, <int>, <unsigned int> and <double> " +
      "(extern __shared__ arrays of a template's specializations), as computeGold",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const ramp = (len: number, step: number) => Array.from({ length: len }, (_, i) => i * step);
    const runs: [string, Float32Array | Int32Array | Uint32Array | Float64Array][] = [
      ["float", Float32Array.from(ramp(32, 1))], // the sample's two runs
      ["int", Int32Array.from(ramp(64, 1))],
      ["unsigned int", Uint32Array.from(ramp(128, 3))],
      ["double", Float64Array.from(ramp(96, 0.5))],
    ];
    for (const [type, input] of runs) {
      const len = input.length;
      const [, got] = await launch(
        client,
        cuda(TEMPLATES, `testKernel<${type}>`, [len, 1, 1], input.byteLength),
        len,
        [input, input.map(() => 0)],
      );
      assert.deepEqual(got, input.map((x) => x * len), type);
    }
  },
});
