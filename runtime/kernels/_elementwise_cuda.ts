/**
 * The CUDA C of an element-wise kernel, from the same specification as its WGSL
 * (`elementwise.ts`): the expression is compiled as CUDA C++ with WGSL's scalar built-ins
 * defined (`CUDA_PRELUDE`), so one expression serves both backends.
 *
 * @module
 */

import {
  C_TYPE,
  cudaConvert,
  cudaExpression,
  cudaFrame,
  type CudaText,
} from "./_backend_kernels.ts";
import type { ElementType } from "./elementwise.ts";

/** Threads per block of the generated element-wise kernels. */
export const ELEMENTWISE_BLOCK = 256;

/**
 * The CUDA C of `out[i] = expression` over `n` elements: `inputs` (raw ones as whole arrays by
 * their name, the others as element `i`), then `out`; params `n` then the user's.
 */
export function elementwiseCuda(
  name: string,
  inputs: readonly (readonly [string, ElementType])[],
  raw: ReadonlySet<string>,
  params: readonly (readonly [string, ElementType])[],
  output: ElementType,
  expression: string,
): CudaText {
  const all: (readonly [string, ElementType])[] = [["n", "u32"], ...params];
  const buffers = [
    ...inputs.map(([input, type]) =>
      [raw.has(input) ? input : `in_${input}`, C_TYPE[type], true] as const
    ),
    ["out", C_TYPE[output], false] as const,
  ];
  const source = `${cudaFrame("elementwise_main", buffers, all)}
  const unsigned int i = global_block() * blockDim.x + threadIdx.x;
  if (i >= params.n) return;
${
    inputs.filter(([input]) => !raw.has(input)).map(([input, type]) =>
      `  const ${C_TYPE[type]} ${input} = in_${input}[i];`
    ).join("\n")
  }
${params.map(([param, type]) => `  const ${C_TYPE[type]} ${param} = params.${param};`).join("\n")}
  out[i] = ${
    cudaConvert(
      output,
      cudaExpression(expression, [["i", "u32"], ...inputs, ...params], `${name}.cuda`, output),
    )
  };
}
`;
  return {
    id: `${name}.cuda`,
    source,
    entryPoint: "elementwise_main",
    blockSize: [ELEMENTWISE_BLOCK, 1, 1],
    params: all,
  };
}
