/**
 * The CUDA C of reductions, from the same {@linkcode ReductionProgram} and in the same two shapes
 * as their WGSL (`_reduce_kernels.ts`): the same block widths, chunks and params, so the launch
 * plan in `reduction.ts` serves both backends. `map`, `combine`, `identity` and `finish` are
 * compiled as CUDA C++ with WGSL's scalar built-ins defined (`CUDA_PRELUDE`).
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
import {
  COLUMN_CHUNK,
  COLUMN_WORKGROUP,
  REDUCE_WORKGROUP,
  type ReductionProgram,
  type ReductionShape,
} from "./_reduce_kernels.ts";

/** The kernel params of both shapes before the program's own (as the WGSL's uniform). */
const PLAN_PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["per_group", "u32"],
  ["cols", "u32"],
  ["rows", "u32"],
  ["count", "u32"],
  ["chunks", "u32"],
];

/** The CUDA C kernel of one shape (see `reductionKernel`, whose launches it shares). */
export function reductionCuda(
  program: ReductionProgram,
  shape: ReductionShape,
  finishes: boolean,
  workgroup: number = REDUCE_WORKGROUP,
): CudaText {
  const { inputs, type } = program;
  const t = C_TYPE[type];
  const params = [...PLAN_PARAMS, ...program.params];
  const buffers = [
    ...inputs.map(([name, it]) => [`in_${name}`, C_TYPE[it], true] as const),
    ["out", t, false] as const,
  ];
  const entry = `reduce_${shape}`;
  const lambdas = `
  auto value = [&](unsigned int i) -> ${t} {
${
    inputs.map(([name, it]) => `    const ${C_TYPE[it]} ${name} = in_${name}[i]; (void)${name};`)
      .join("\n")
  }
${
    program.params.map(([name, pt]) =>
      `    const ${C_TYPE[pt]} ${name} = params.${name}; (void)${name};`
    )
      .join("\n")
  }
    return ${
    cudaConvert(
      type,
      cudaExpression(
        program.map,
        [["i", "u32"], ...inputs, ...program.params],
        program.name,
        type,
      ),
    )
  };
  };
  auto combine = [&](${t} a, ${t} b) -> ${t} { return ${
    cudaExpression(program.combine, [["a", type], ["b", type]], program.name)
  }; };
  auto finish = [&](${t} r, unsigned int count) -> ${t} {
    (void)count; return ${
    finishes ? cudaExpression(program.finish, [["r", type], ["count", "u32"]], program.name) : "r"
  };
  };`;
  const identity = cudaExpression(program.identity, [["identity", type]], program.name);
  const wide = workgroup === REDUCE_WORKGROUP ? "" : `_wg${workgroup}`;
  const id = `${program.name}_${shape}${finishes ? "" : "_partial"}${wide}.cuda`;
  if (shape === "columns") {
    return {
      id,
      entryPoint: entry,
      blockSize: [COLUMN_WORKGROUP, 1, 1],
      params,
      source: `${cudaFrame(entry, buffers, params)}${lambdas}
  const unsigned int g = global_block() * blockDim.x + threadIdx.x;
  if (g >= params.cols * params.chunks) return;
  const unsigned int col = g % params.cols;
  const unsigned int first = (g / params.cols) * ${COLUMN_CHUNK}u;
  const unsigned int last = min(first + ${COLUMN_CHUNK}u, params.rows);
  ${t} acc = ${identity};
  for (unsigned int row = first; row < last; row++) acc = combine(acc, value(row * params.cols + col));
  out[g] = finish(acc, params.count);
}
`,
    };
  }
  const w = workgroup; // a power of two
  return {
    id,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params,
    source: `${cudaFrame(entry, buffers, params)}${lambdas}
  __shared__ ${t} folded[${w}];
  const unsigned int group = global_block();
  const unsigned int lid = threadIdx.x;
  const unsigned int row = group / params.chunks;
  const unsigned int part = group % params.chunks;
  const unsigned int start = row * params.cols + part * params.per_group;
  const unsigned int end = row * params.cols + min(params.cols, (part + 1u) * params.per_group);
  ${t} acc = ${identity};
  for (unsigned int i = start + lid; i < end; i += ${w}u) acc = combine(acc, value(i));
  folded[lid] = acc;
  __syncthreads();
  for (unsigned int stride = ${w / 2}u; stride > 0u; stride /= 2u) {
    if (lid < stride) folded[lid] = combine(folded[lid], folded[lid + stride]);
    __syncthreads();
  }
  if (lid == 0u) out[group] = finish(folded[0], params.count);
}
`,
  };
}
