/**
 * The CUDA C of the radix sort's passes: the same runs, bindings, params, digit order and
 * constant-digit copies as their WGSL (`_radix_wgsl.ts`), so `_radix.ts` launches either the
 * same way. Keys are read one at a time (the WGSL reads 4: the CPU adapter's loads cost per
 * instruction, not per byte).
 *
 * @module
 */

import { C_TYPE, type CudaBuffer, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { fromOrderKeyCuda, orderKeyCuda } from "../_order_keys.ts";
import {
  type CountRole,
  type DigitSource,
  type Encoding,
  encodingId,
  RADIX_DIGITS,
} from "./_radix_wgsl.ts";

/** Threads per block (a GPU schedules warps of 32). */
const BLOCK = 64;

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["shift", "u32"],
  ["runs", "u32"],
  ["run", "u32"],
  ["cols", "u32"],
  ["flags", "u32"],
];

const U = "unsigned int";

function digitLambda(source: DigitSource): string {
  const of = source === "key" ? "v" : "v / params.cols";
  return `auto digit = [&](${U} v) -> ${U} { return ((${of}) >> params.shift) & ${
    RADIX_DIGITS - 1
  }u; };`;
}

const CONSTANT_DIGIT = `(((bits[0] ^ bits[1]) >> params.shift) & ${RADIX_DIGITS - 1}u) == 0u`;

/**
 * The input buffers and the device functions before the kernel, and the lambdas `key_at(i)`,
 * `payload_at(i)` in it (as `inputs` of the WGSL).
 */
export function inputs(
  encoding: Encoding | undefined,
  keys: boolean,
  payload: boolean,
): { buffers: CudaBuffer[]; functions: string; lambdas: string } {
  const lambda = (name: string, of: string) =>
    `auto ${name} = [&](${U} i) -> ${U} { (void)i; return ${of}; };`;
  if (encoding === undefined) {
    return {
      buffers: [
        ...(keys ? [["keys_in", U, true] as const] : []),
        ...(payload ? [["payload_in", U, true] as const] : []),
      ],
      functions: "",
      lambdas: [
        keys ? lambda("key_at", "keys_in[i]") : "",
        payload ? lambda("payload_at", "payload_in[i]") : "",
      ].join("\n  "),
    };
  }
  const { type, payload: kind } = encoding;
  const values = payload && kind !== "index" && kind !== "bits";
  const payloadOf = kind === "index" ? "i" : `bitcast<u32>(${kind === "bits" ? "x" : "v"}[i])`;
  return {
    buffers: [
      ["x", C_TYPE[type], true],
      ...(values ? [["v", C_TYPE[kind as ElementType], true] as const] : []),
    ],
    functions: orderKeyCuda(type),
    lambdas: [
      lambda("key_at", "order_key(x[i]) ^ params.flags"),
      payload ? lambda("payload_at", payloadOf) : "",
    ].join("\n  "),
  };
}

/** Thread `t`, its run `[first, end)`. */
const RUN = `  const ${U} t = global_block() * blockDim.x + threadIdx.x;
  if (t >= params.runs) return;
  const ${U} first = t * params.run;
  const ${U} end = min(first + params.run, params.n);`;

/** The count pass. Buffers: the input (as `inputs`), counts, bits (key passes). */
export function countCuda(role: CountRole, encoding?: Encoding): CudaText {
  const row = role === "row";
  const input = inputs(encoding, !row, row);
  const entry = "radix_count";
  const buffers: CudaBuffer[] = [
    ...input.buffers,
    ["counts", U, false],
    ...(row ? [] : [["bits", U, role === "later"] as const]),
  ];
  const fold = role === "first";
  const inexact = fold && encoding?.type === "f32";
  return {
    id: `radix_count_${role}${encodingId(encoding, false)}.cuda`,
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${input.functions}
${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(row ? "row" : "key")}
  ${input.lambdas}
${RUN}${role === "later" ? `\n  if (${CONSTANT_DIGIT}) return;` : ""}
  ${U} seen[${RADIX_DIGITS}];
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) seen[g] = 0u;${
      fold ? `\n  ${U} ones = 0u, zeros = 0xffffffffu;` : ""
    }${inexact ? `\n  ${U} inexact = 0u;` : ""}
  for (${U} i = first; i < end; i++) {
    const ${U} v = ${row ? "payload_at" : "key_at"}(i);
    seen[digit(v)]++;${fold ? "\n    ones |= v;\n    zeros &= v;" : ""}${
      inexact
        ? `\n    const ${U} b = __float_as_uint(x[i]);\n    inexact |= (b == 0x80000000u || ((b & 0x7fffffffu) > 0x7f800000u && b != 0x7fc00000u)) ? 1u : 0u;`
        : ""
    }
  }
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) counts[g * params.runs + t] = seen[g];${
      fold ? "\n  atomicOr(&bits[0], ones);\n  atomicAnd(&bits[1], zeros);" : ""
    }${inexact ? "\n  if (inexact != 0u) atomicOr(&bits[2], 1u);" : ""}
}
`,
  };
}

/**
 * The scatter pass. Buffers: the input (as `inputs`), offsets, keys_out, payload_out (with a
 * payload), bits (key passes).
 */
export function scatterCuda(
  source: DigitSource,
  payload: boolean,
  encoding?: Encoding,
  decode?: ElementType,
  optional = false,
): CudaText {
  const input = inputs(encoding, true, payload);
  const last = optional && decode !== undefined;
  const store = decode === undefined
    ? `auto store_key = [&](${U} k) -> ${U} { return k; };`
    : `auto store_key = [&](${U} k) -> ${U} { return bitcast<u32>(from_order_key(k ^ params.flags)); };`;
  const entry = "radix_scatter";
  const buffers: CudaBuffer[] = [
    ...input.buffers,
    ["offsets", U, true],
    ["keys_out", U, false],
    ...(payload && !(optional && decode !== undefined) ? [["payload_out", U, false] as const] : []),
    ...(source === "key" ? [["bits", U, true] as const] : []),
  ];
  const move = (to: string) =>
    `keys_out[${to}] = ${
      last ? "carry ? payload_at(i) : store_key(key_at(i))" : "store_key(key_at(i))"
    };${
      !payload || last
        ? ""
        : optional
        ? ` if (carry) payload_out[${to}] = payload_at(i);`
        : ` payload_out[${to}] = payload_at(i);`
    }`;
  const copy = source === "key"
    ? `
  if (${CONSTANT_DIGIT}) {
    for (${U} i = first; i < end; i++) { ${move("i")} }
    return;
  }`
    : "";
  return {
    id: `radix_scatter_${source}${payload ? optional ? "_optional" : "_payload" : ""}${
      encodingId(encoding)
    }${decode === undefined ? "" : `_to_${decode}`}.cuda`,
    entryPoint: entry,
    blockSize: [BLOCK, 1, 1],
    params: PARAMS,
    source: `${input.functions}
${decode === undefined ? "" : fromOrderKeyCuda(decode)}
${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(source)}
  ${input.lambdas}
  ${store}
${RUN}${optional ? "\n  const bool carry = bits[2] != 0u;" : ""}${copy}
  // pos[d]: where the run's next key of digit d goes.
  ${U} pos[${RADIX_DIGITS}];
  for (${U} g = 0u; g < ${RADIX_DIGITS}u; g++) pos[g] = offsets[g * params.runs + t];
  for (${U} i = first; i < end; i++) {
    const ${U} to = pos[digit(${source === "key" ? "key_at(i)" : "payload_at(i)"})]++;
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
