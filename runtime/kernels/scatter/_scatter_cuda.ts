/**
 * The CUDA C of scatterAdd and segmentReduce: the same launches, params and keys as their WGSL
 * (`_scatter_wgsl.ts`); f32 sums use CUDA's float `atomicAdd` (no compare-and-swap loop), f32
 * max/min the same order keys with `atomicMax`/`atomicMin`.
 *
 * @module
 */

import { C_TYPE, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import type { SegmentOp } from "./_scatter_wgsl.ts";

const ONE: readonly (readonly [string, ElementType])[] = [["n", "u32"]];
const block = [64, 1, 1] as const;

/** The scatter kernel (bindings dest, index, values; params n, len). */
export function scatterCuda(op: SegmentOp, type: ElementType, index: "u32" | "i32"): CudaText {
  const float = type === "f32";
  const dest = float && op !== "sum" ? "unsigned int" : C_TYPE[type];
  const params = [["n", "u32"], ["len", "u32"]] as const;
  const name = op === "sum" ? "atomicAdd" : op === "max" ? "atomicMax" : "atomicMin";
  const update = float && op !== "sum" ? `${name}(&dest[k], key_of(v));` : `${name}(&dest[k], v);`;
  const k = index === "u32" ? "index[i]" : "index[i] >= 0 ? (unsigned int)index[i] : 0xffffffffu";
  const entry = "scatter_update";
  return {
    id: `scatter_${op}_${type}_${index}.cuda`,
    entryPoint: entry,
    blockSize: block,
    params,
    source: `__device__ __forceinline__ unsigned int key_of(float x) {
  const unsigned int b = __float_as_uint(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return ${op === "min" ? "0u" : "0xffffffffu"}; // NaN
  return (b >> 31u) == 1u ? ~b : (b ^ 0x80000000u);
}
${
      cudaFrame(entry, [
        ["dest", dest, false],
        ["index", C_TYPE[index], true],
        ["values", C_TYPE[type], true],
      ], params)
    }
  const unsigned int i = global_block() * blockDim.x + threadIdx.x;
  if (i >= params.n) return;
  const unsigned int k = ${k};
  if (k >= params.len) return;
  const ${C_TYPE[type]} v = values[i];
  ${update}
}
`,
  };
}

/** `out[i] = value` over u32 words (params n, value). */
export const FILL_CUDA: CudaText = {
  id: "scatter_fill.cuda",
  entryPoint: "scatter_fill",
  blockSize: block,
  params: [["n", "u32"], ["value", "u32"]],
  source: `${
    cudaFrame("scatter_fill", [["out", "unsigned int", false]], [["n", "u32"], [
      "value",
      "u32",
    ]])
  }
  const unsigned int i = global_block() * blockDim.x + threadIdx.x;
  if (i < params.n) out[i] = params.value;
}
`,
};

/** Order keys back to f32 bits in place (params n). */
export const DECODE_CUDA: CudaText = {
  id: "scatter_decode_keys.cuda",
  entryPoint: "scatter_decode",
  blockSize: block,
  params: ONE,
  source: `${cudaFrame("scatter_decode", [["out", "unsigned int", false]], ONE)}
  const unsigned int i = global_block() * blockDim.x + threadIdx.x;
  if (i >= params.n) return;
  const unsigned int k = out[i];
  out[i] = (k >> 31u) == 1u ? (k ^ 0x80000000u) : ~k;
}
`,
};
