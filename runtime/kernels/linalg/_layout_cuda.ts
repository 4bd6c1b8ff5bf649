/**
 * The CUDA C of {@linkcode transpose} and {@linkcode gather}: the same tiles, blocks, buffers and
 * params as their WGSL (`_layout_wgsl.ts`), so `transpose.ts` and `gather.ts` launch either the
 * same way.
 *
 * @module
 */

import { C_TYPE, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { TILE } from "./_layout_wgsl.ts";

const U = "unsigned int";

/** The transpose of a `[rows, cols]` array of `type`. Buffers: `x`, `out`. */
export function transposeCuda(type: ElementType): CudaText {
  const t = C_TYPE[type];
  const params = [["rows", "u32"], ["cols", "u32"], ["tiles_c", "u32"]] as const;
  const entry = "transpose_tile";
  return {
    id: `transpose_${type}.cuda`,
    entryPoint: entry,
    blockSize: [TILE, 2, 1],
    params,
    source: `${cudaFrame(entry, [["x", t, true], ["out", t, false]], params)}
  __shared__ ${t} tile[${TILE}][${TILE + 1}];
  const ${U} group = global_block();
  const ${U} r0 = (group / params.tiles_c) * ${TILE}u;
  const ${U} c0 = (group % params.tiles_c) * ${TILE}u;
  for (${U} j = 0u; j < ${TILE}u; j += 2u) {
    const ${U} r = r0 + threadIdx.y + j; const ${U} c = c0 + threadIdx.x;
    if (r < params.rows && c < params.cols) tile[threadIdx.y + j][threadIdx.x] = x[r * params.cols + c];
  }
  __syncthreads();
  for (${U} j = 0u; j < ${TILE}u; j += 2u) {
    const ${U} c = c0 + threadIdx.y + j; const ${U} r = r0 + threadIdx.x;
    if (r < params.rows && c < params.cols) out[c * params.rows + r] = tile[threadIdx.x][threadIdx.y + j];
  }
}
`,
  };
}

/**
 * The gather of `type` elements. Buffers: `x`, `indices`, `out`, and with `checked` `flag`
 * (`[0xffffffff, 0]`, lowered to the first bad position with `atomicMin`); params `n`, `len`.
 */
export function gatherCuda(type: ElementType, checked: boolean): CudaText {
  const t = C_TYPE[type];
  const params = [["n", "u32"], ["len", "u32"]] as const;
  const entry = "gather";
  const buffers = [
    ["x", t, true],
    ["indices", U, true],
    ["out", t, false],
    ...(checked ? [["flag", U, false] as const] : []),
  ] as const;
  return {
    id: `gather_${type}${checked ? "_checked" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [64, 1, 1],
    params,
    source: `${cudaFrame(entry, buffers, params)}
  const ${U} i = global_block() * blockDim.x + threadIdx.x;
  if (i >= params.n) return;
  const ${U} k = indices[i];
  if (k < params.len) { out[i] = x[k]; } else {
    out[i] = (${t})0;
    ${checked ? "atomicMin(&flag[0], i);" : ""}
  }
}
`,
  };
}

/**
 * Copies the index at the first bad position (`flag[0]`, a position of `indices` once set)
 * into `flag[1]`: one thread.
 */
export const BAD_INDEX_CUDA: CudaText = {
  id: "gather_bad_index.cuda",
  entryPoint: "gather_bad_index",
  blockSize: [1, 1, 1],
  params: [],
  source: `${cudaFrame("gather_bad_index", [["indices", U, true], ["flag", U, false]], [])}
  if (flag[0] != 0xffffffffu) flag[1] = indices[flag[0]];
}
`,
};
