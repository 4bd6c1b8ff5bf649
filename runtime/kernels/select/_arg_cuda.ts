/**
 * The CUDA C of argmax and argmin: the same passes, chunks, bindings and params as their WGSL
 * (`_arg_wgsl.ts`): a values pass of {@linkcode VALUE_CHUNK} elements a block (vector loads
 * where a segment is whole 4-element groups), partials passes of {@linkcode PARTIAL_CHUNK}, and
 * short segments one thread each, so `argmax.ts` launches either the same way.
 *
 * @module
 */

import { C_TYPE, type CudaBuffer, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { orderKeyCuda } from "../_order_keys.ts";
import { ARG_ROW_MAX, ARG_WORKGROUP, PARTIAL_CHUNK, VALUE_CHUNK } from "./_arg_wgsl.ts";

const U = "unsigned int";
const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["count", "u32"],
  ["inner", "u32"],
  ["chunks", "u32"],
];
const ROW_PARAMS: readonly (readonly [string, ElementType])[] = [
  ["count", "u32"],
  ["inner", "u32"],
  ["segments", "u32"],
];
/** The CUDA vector type of 4 elements. */
const VECTOR: Readonly<Record<ElementType, string>> = { f32: "float4", i32: "int4", u32: "uint4" };

/**
 * `arg_key(v)`: the key whose highest value wins (NaN highest either way; only f32 has NaN), as
 * the WGSL's.
 */
function argKeyCuda(type: ElementType, largest: boolean): string {
  return `${orderKeyCuda(type)}
__device__ __forceinline__ ${U} arg_key(${C_TYPE[type]} v) {
  const ${U} o = order_key(v);
  return ${largest ? "o" : type === "f32" ? "o == 0xffffffffu ? 0xffffffffu : ~o" : "~o"};
}`;
}

/** One pass (see `argKernel`); `vector`: the values pass reads `x` as 4-element vectors. */
export function argCuda(
  type: ElementType,
  largest: boolean,
  from: "values" | "partials",
  to: "partials" | "indices",
  vector = false,
): CudaText {
  const w = ARG_WORKGROUP;
  const chunk = from === "values" ? VALUE_CHUNK : PARTIAL_CHUNK;
  const vec = from === "values" && vector;
  const buffers: CudaBuffer[] = from === "values"
    ? [["x", C_TYPE[type], true]]
    : [["in_keys", U, true], ["in_indices", U, true]];
  buffers.push(
    ...(to === "partials"
      ? [["out_keys", U, false], ["out_indices", U, false]] as const
      : [["out", U, false]] as const),
  );
  // A thread's run goes up in index: a key takes over only when strictly higher.
  const take = (k: string, index: string) =>
    `if (${k} > best_key || best_index == 0xffffffffu) { best_key = ${k}; best_index = ${index}; }`;
  const loop = vec
    ? `const ${VECTOR[type]}* xv = reinterpret_cast<const ${VECTOR[type]}*>(x) + base / 4u;
  for (${U} q = first / 4u + lid; q < end / 4u; q += ${w}u) {
    const ${VECTOR[type]} v = xv[q];
    const ${U} k = q * 4u;
    ${["x", "y", "z", "w"].map((c, i) => `const ${U} k${i} = arg_key(v.${c});`).join(" ")}
    ${take("k0", "k")}
    ${take("k1", "k + 1u")}
    ${take("k2", "k + 2u")}
    ${take("k3", "k + 3u")}
  }`
    : from === "values"
    ? `for (${U} k = first + lid; k < end; k += ${w}u) {
    const ${U} key = arg_key(x[base + k * params.inner]);
    ${take("key", "k")}
  }`
    : `for (${U} k = first + lid; k < end; k += ${w}u) {
    const ${U} key = in_keys[base + k * params.inner];
    const ${U} index = in_indices[base + k * params.inner];
    if (better(key, index, best_key, best_index)) { best_key = key; best_index = index; }
  }`;
  const write = to === "partials"
    ? "out_keys[group] = best_keys[0]; out_indices[group] = best_indices[0];"
    : "out[group] = best_indices[0];";
  const entry = "arg_pass";
  return {
    id: `arg${largest ? "max" : "min"}_${type}_${from}${vec ? "4" : ""}_to_${to}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${from === "values" ? argKeyCuda(type, largest) : ""}
__device__ __forceinline__ bool better(${U} key, ${U} index, ${U} than_key, ${U} than_index) {
  return key > than_key || (key == than_key && index < than_index);
}
${cudaFrame(entry, buffers, PARAMS)}
  __shared__ ${U} best_keys[${w}];
  __shared__ ${U} best_indices[${w}];
  const ${U} group = global_block();
  const ${U} lid = threadIdx.x;
  const ${U} segment = group / params.chunks;
  const ${U} base = (segment / params.inner) * params.count * params.inner + segment % params.inner;
  const ${U} first = (group % params.chunks) * ${chunk}u;
  const ${U} end = min(first + ${chunk}u, params.count);
  ${U} best_key = 0u;
  ${U} best_index = 0xffffffffu;
  ${loop}
  best_keys[lid] = best_key;
  best_indices[lid] = best_index;
  __syncthreads();
  for (${U} stride = ${w / 2}u; stride > 0u; stride /= 2u) {
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

/** Short segments, one thread each (see `argRowsKernel`): x, out; `{ count, inner, segments }`. */
export function argRowsCuda(type: ElementType, largest: boolean): CudaText {
  const entry = "arg_rows";
  const buffers: CudaBuffer[] = [["x", C_TYPE[type], true], ["out", U, false]];
  return {
    id: `arg${largest ? "max" : "min"}_${type}_rows.cuda`,
    entryPoint: entry,
    blockSize: [ARG_WORKGROUP, 1, 1],
    params: ROW_PARAMS,
    source: `${argKeyCuda(type, largest)}
${cudaFrame(entry, buffers, ROW_PARAMS)}
  const ${U} segment = global_block() * blockDim.x + threadIdx.x;
  if (segment >= params.segments) return;
  const ${U} base = (segment / params.inner) * params.count * params.inner + segment % params.inner;
  ${U} best_key = arg_key(x[base]);
  ${U} best_index = 0u;
  for (${U} k = 1u; k < min(params.count, ${ARG_ROW_MAX}u); k++) {
    const ${U} key = arg_key(x[base + k * params.inner]);
    if (key > best_key) { best_key = key; best_index = k; }
  }
  out[segment] = best_index;
}
`,
  };
}
