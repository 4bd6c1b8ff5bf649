/**
 * The CUDA C of argmax and argmin: the same passes, chunks, bindings and params as their WGSL
 * (`_arg_wgsl.ts`), so `argmax.ts` launches either the same way.
 *
 * @module
 */

import { C_TYPE, type CudaBuffer, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { orderKeyCuda } from "../_order_keys.ts";
import { ARG_CHUNK, ARG_WORKGROUP } from "./_arg_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["count", "u32"],
  ["inner", "u32"],
  ["chunks", "u32"],
];

/** One pass (see `argKernel`). */
export function argCuda(
  type: ElementType,
  largest: boolean,
  from: "values" | "partials",
  to: "partials" | "indices",
): CudaText {
  const w = ARG_WORKGROUP;
  const u = "unsigned int";
  const buffers: CudaBuffer[] = from === "values"
    ? [["x", C_TYPE[type], true]]
    : [["in_keys", u, true], ["in_indices", u, true]];
  buffers.push(
    ...(to === "partials"
      ? [["out_keys", u, false], ["out_indices", u, false]] as const
      : [["out", u, false]] as const),
  );
  const key = largest
    ? "order_key(v)"
    : "order_key(v) == 0xffffffffu ? 0xffffffffu : ~order_key(v)";
  const read = from === "values"
    ? `const ${
      C_TYPE[type]
    } v = x[base + k * params.inner]; const ${u} key = ${key}; const ${u} index = k;`
    : `const ${u} key = in_keys[base + k * params.inner]; const ${u} index = in_indices[base + k * params.inner];`;
  const write = to === "partials"
    ? "out_keys[group] = best_keys[0]; out_indices[group] = best_indices[0];"
    : "out[group] = best_indices[0];";
  const entry = "arg_pass";
  return {
    id: `arg${largest ? "max" : "min"}_${type}_${from}_to_${to}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${orderKeyCuda(type)}
__device__ __forceinline__ bool better(unsigned int key, unsigned int index, unsigned int than_key, unsigned int than_index) {
  return key > than_key || (key == than_key && index < than_index);
}
${cudaFrame(entry, buffers, PARAMS)}
  __shared__ ${u} best_keys[${w}];
  __shared__ ${u} best_indices[${w}];
  const ${u} group = global_block();
  const ${u} lid = threadIdx.x;
  const ${u} segment = group / params.chunks;
  const ${u} base = (segment / params.inner) * params.count * params.inner + segment % params.inner;
  const ${u} first = (group % params.chunks) * ${ARG_CHUNK}u;
  const ${u} end = min(first + ${ARG_CHUNK}u, params.count);
  ${u} best_key = 0u;
  ${u} best_index = 0xffffffffu;
  for (${u} k = first + lid; k < end; k += ${w}u) {
    ${read}
    if (better(key, index, best_key, best_index)) { best_key = key; best_index = index; }
  }
  best_keys[lid] = best_key;
  best_indices[lid] = best_index;
  __syncthreads();
  for (${u} stride = ${w / 2}u; stride > 0u; stride /= 2u) {
    if (lid < stride && better(best_keys[lid + stride], best_indices[lid + stride], best_keys[lid], best_indices[lid])) {
      best_keys[lid] = best_keys[lid + stride];
      best_indices[lid] = best_indices[lid + stride];
    }
    __syncthreads();
  }
  if (lid == 0u) { ${write} }
}
`,
  };
}
