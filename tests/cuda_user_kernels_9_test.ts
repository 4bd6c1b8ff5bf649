/**
 * User CUDA C, QA wave 5 (continued): ggml-cuda's get_rows over a 3-D grid (block comments in
 * its parameter list) and its bitonic argsort (an enum template parameter); siboehm's SGEMM
 * kernels; llm.c's and PyTorch's training kernels; the classic CUDA teaching kernels (shared
 * atomics histogram, CSR SpMV, heat stencil, block scan, BFS frontier), each against a CPU
 * reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

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
