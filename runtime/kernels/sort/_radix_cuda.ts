/**
 * The CUDA C of the radix sort's passes: the same runs, bindings, params, digit order and
 * constant-digit copies as their WGSL (`_radix_wgsl.ts`), so `_radix.ts` launches either the
 * same way. Keys are read one at a time (the WGSL reads 4: the CPU adapter's loads cost per
 * instruction, not per byte).
 *
 * @module
 */

import { type CudaBuffer, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { type CountRole, type DigitSource, RADIX_DIGITS } from "./_radix_wgsl.ts";

/** Threads per block (a GPU schedules warps of 32). */
const BLOCK = 64;

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["shift", "u32"],
  ["runs", "u32"],
  ["run", "u32"],
  ["cols", "u32"],
];

const U = "unsigned int";

function digitLambda(source: DigitSource): string {
  const of = source === "key" ? "v" : "v / params.cols";
  return `auto digit = [&](${U} v) -> ${U} { return ((${of}) >> params.shift) & ${
    RADIX_DIGITS - 1
  }u; };`;
}

const CONSTANT_DIGIT = `(((bits[0] ^ bits[1]) >> params.shift) & ${RADIX_DIGITS - 1}u) == 0u`;

/** Thread `t`, its run `[first, end)`. */
const RUN = `  const ${U} t = global_block() * blockDim.x + threadIdx.x;
  if (t >= params.runs) return;
  const ${U} first = t * params.run;
  const ${U} end = min(first + params.run, params.n);`;

/** The count pass. Buffers: keys_in or payload_in, counts, bits (key passes). */
export function countCuda(role: CountRole): CudaText {
  const input = role === "row" ? "payload_in" : "keys_in";
  const entry = "radix_count";
  const buffers: CudaBuffer[] = [
    [input, U, true],
    ["counts", U, false],
    ...(role === "row" ? [] : [["bits", U, role === "later"] as const]),
  ];
  const fold = role === "first";
  return {
    id: `radix_count_${role}.cuda`,
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(role === "row" ? "row" : "key")}
${RUN}${role === "later" ? `\n  if (${CONSTANT_DIGIT}) return;` : ""}
  ${U} seen[${RADIX_DIGITS}];
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) seen[g] = 0u;${
      fold ? `\n  ${U} ones = 0u, zeros = 0xffffffffu;` : ""
    }
  for (${U} i = first; i < end; i++) {
    const ${U} v = ${input}[i];
    seen[digit(v)]++;${fold ? "\n    ones |= v;\n    zeros &= v;" : ""}
  }
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) counts[g * params.runs + t] = seen[g];${
      fold ? "\n  atomicOr(&bits[0], ones);\n  atomicAnd(&bits[1], zeros);" : ""
    }
}
`,
  };
}

/**
 * The scatter pass. Buffers: keys_in, payload_in (with a payload), offsets, keys_out,
 * payload_out (with a payload), bits (key passes).
 */
export function scatterCuda(source: DigitSource, payload: boolean): CudaText {
  const entry = "radix_scatter";
  const buffers: CudaBuffer[] = [
    ["keys_in", U, true],
    ...(payload ? [["payload_in", U, true] as const] : []),
    ["offsets", U, true],
    ["keys_out", U, false],
    ...(payload ? [["payload_out", U, false] as const] : []),
    ...(source === "key" ? [["bits", U, true] as const] : []),
  ];
  const move = (to: string) =>
    `keys_out[${to}] = keys_in[i];${payload ? ` payload_out[${to}] = payload_in[i];` : ""}`;
  const copy = source === "key"
    ? `
  if (${CONSTANT_DIGIT}) {
    for (${U} i = first; i < end; i++) { ${move("i")} }
    return;
  }`
    : "";
  return {
    id: `radix_scatter_${source}${payload ? "_payload" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(source)}
${RUN}${copy}
  // pos[d]: where the run's next key of digit d goes.
  ${U} pos[${RADIX_DIGITS}];
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) pos[g] = offsets[g * params.runs + t];
  for (${U} i = first; i < end; i++) {
    const ${U} to = pos[digit(${source === "key" ? "keys_in[i]" : "payload_in[i]"})]++;
    ${move("to")}
  }
}
`,
  };
}

/** The counts' sum per digit (as `totalsKernel`). Buffers: counts, totals. */
export function totalsCuda(): CudaText {
  const entry = "radix_totals";
  const buffers: CudaBuffer[] = [["counts", U, true], ["totals", U, false]];
  return {
    id: "radix_totals.cuda",
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  const ${U} d = global_block() * blockDim.x + threadIdx.x;
  if (d >= ${RADIX_DIGITS}u) return;
  ${U} total = 0u;
  for (${U} t = 0u; t < params.runs; t++) total += counts[d * params.runs + t];
  totals[d] = total;
}
`,
  };
}

/** The exclusive scan of the counts (as `offsetsKernel`). Buffers: counts, totals, offsets. */
export function offsetsCuda(): CudaText {
  const entry = "radix_offsets";
  const buffers: CudaBuffer[] = [["counts", U, true], ["totals", U, true], ["offsets", U, false]];
  return {
    id: "radix_offsets.cuda",
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  const ${U} d = global_block() * blockDim.x + threadIdx.x;
  if (d >= ${RADIX_DIGITS}u) return;
  ${U} running = 0u;
  for (${U} g = 0u; g < d; g++) running += totals[g];
  for (${U} t = 0u; t < params.runs; t++) {
    const ${U} i = d * params.runs + t;
    const ${U} c = counts[i];
    offsets[i] = running;
    running += c;
  }
}
`,
  };
}
