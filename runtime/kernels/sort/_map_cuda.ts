/**
 * The CUDA C of the one-thread-per-element kernels around the radix sort (`_map_wgsl.ts`): the
 * same bindings, params (`n, cols, k, flags`) and body. A body is written once, in the scalar
 * syntax WGSL and CUDA C++ share (`bitcast<u32>(x)`, `1u`, calls, operators, and `let name = ...`,
 * which becomes `const auto name = ...` here).
 *
 * @module
 */

import { C_TYPE, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import type { MapBinding } from "./_map_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["cols", "u32"],
  ["k", "u32"],
  ["flags", "u32"],
];

/** Threads per block of the map kernels (as the WGSL's workgroup). */
export const MAP_BLOCK = 64;

/** A map kernel (see `mapKernel`): `functions` are CUDA C device functions. */
export function mapCuda(
  id: string,
  bindings: readonly MapBinding[],
  body: string,
  functions = "",
  run = 1,
): CudaText {
  const entry = "map_main";
  const buffers = bindings.map(([name, type, written]) => [name, C_TYPE[type], !written] as const);
  return {
    id: `${id}.cuda`,
    entryPoint: entry,
    blockSize: [MAP_BLOCK, 1, 1],
    params: PARAMS,
    source: `${functions}
${cudaFrame(entry, buffers, PARAMS)}
  const unsigned int g = global_block() * blockDim.x + threadIdx.x;
  for (unsigned int r = 0u; r < ${run}u; r++) {
    const unsigned int i = g * ${run}u + r;
    if (i >= params.n) return;
    ${body.replace(/\blet (\w+) =/g, "const auto $1 =")}
  }
}
`,
  };
}
