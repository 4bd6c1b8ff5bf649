/**
 * The CUDA C of {@linkcode matmul}'s batched products: the same register tiles (4 x 4 outputs
 * per thread, 8 x 8 threads per block), strides, buffers and params as their WGSL
 * (`_matmul_wgsl.ts`), product `z` of the batch on block z.
 *
 * @module
 */

import { cudaFrame, type CudaText } from "../_backend_kernels.ts";
import { registerTile } from "../../tune/sets/_matmul_cuda.ts";
import { BATCH_GROUP, BATCH_TILE } from "./_matmul_wgsl.ts";

/** The batched kernel for the transposes. Buffers: `a`, `b`, `c`; params `M`, `N`, `K`. */
export function batchedMatmulCuda(transposeA: boolean, transposeB: boolean): CudaText {
  const t = BATCH_TILE;
  const params = [["M", "u32"], ["N", "u32"], ["K", "u32"]] as const;
  const buffers = [["a", "float", true], ["b", "float", true], ["c", "float", false]] as const;
  const entry = "matmul_batched";
  const aAt = (r: number) =>
    transposeA ? `a_base + k * M + row0 + ${r}u` : `a_base + (row0 + ${r}u) * K + k`;
  const bAt = (j: number) =>
    transposeB ? `b_base + (col0 + ${j}u) * K + k` : `b_base + k * N + col0 + ${j}u`;
  return {
    id: `matmul_batched_${transposeA ? "t" : "n"}${transposeB ? "t" : "n"}.cuda`,
    entryPoint: entry,
    blockSize: [BATCH_GROUP, BATCH_GROUP, 1],
    params,
    source: `${cudaFrame(entry, buffers, params)}
  const unsigned int M = params.M; const unsigned int N = params.N; const unsigned int K = params.K;
  const unsigned int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int gy = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned int a_base = blockIdx.z * M * K;
  const unsigned int b_base = blockIdx.z * K * N;
  const unsigned int c_base = blockIdx.z * M * N;
${registerTile(t, t, aAt, bAt, "c_base")}
}
`,
  };
}
