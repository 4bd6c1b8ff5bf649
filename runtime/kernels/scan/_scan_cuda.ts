/**
 * The CUDA C of scans: the same two passes, runs, units, params and bindings as their WGSL
 * (`_scan_wgsl.ts`), so `scan.ts` launches either the same way: each thread folds, then scans, a
 * run of `SCAN_UNITS` units (`float4`/`int4`/`uint4` where a segment is contiguous and
 * whole vectors, else single elements), with no shared memory.
 *
 * @module
 */

import { C_TYPE, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { SCAN_WORKGROUP, scanIdentityBits, type ScanOp, scanRun } from "./_scan_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["count", "u32"],
  ["inner", "u32"],
  ["runs", "u32"],
  ["offsets", "u32"],
  ["threads", "u32"],
];
const U = "unsigned int";
/** The CUDA vector type of 4 elements. */
const VECTOR: Readonly<Record<ElementType, string>> = { f32: "float4", i32: "int4", u32: "uint4" };

/** `combine(a, b)`: f32 max and min propagate NaN and order -0 below +0 (as the WGSL's). */
function combineOf(op: ScanOp, type: ElementType): string {
  if (op === "sum") return "a + b";
  if (op === "prod") return "a * b";
  if (type !== "f32") return `${op}(a, b)`;
  const zero = `__uint_as_float(__float_as_uint(a) ${op === "max" ? "&" : "|"} __float_as_uint(b))`;
  return `(is_nan(a) || is_nan(b)) ? a + b : a == b ? ${zero} : ${op}(a, b)`;
}

/**
 * The `totals` pass (x, partial) or the `scan` pass (x, y, offsets); params and runs as
 * `scanPassKernel`'s.
 */
export function scanPassCuda(
  op: ScanOp,
  type: ElementType,
  pass: "totals" | "scan",
  exclusive: boolean,
  vector: boolean,
): CudaText {
  const t = C_TYPE[type];
  const v4 = VECTOR[type];
  const unit = vector ? v4 : t;
  const loop = vector
    ? `const ${v4}* xs = reinterpret_cast<const ${v4}*>(x);
  for (${U} q = first / 4u; q < end / 4u; q++) { const ${U} i = base / 4u + q;`
    : `for (${U} k = first; k < end; k++) { const ${U} i = base + k * params.inner;`;
  // Each run folds left to right in the totals and the scan alike.
  const body = pass === "totals"
    ? `${t} acc = identity();
  ${loop} acc = ${
      vector
        ? "combine(combine(combine(combine(acc, xs[i].x), xs[i].y), xs[i].z), xs[i].w)"
        : "combine(acc, x[i])"
    }; }
  partial[tid] = acc;`
    : `${t} acc = identity();
  if (params.offsets == 1u) acc = offsets[tid];
  ${vector ? `${v4}* ys = reinterpret_cast<${v4}*>(y);` : ""}
  ${loop}
    const ${unit} v = ${vector ? "xs" : "x"}[i];
    ${
      vector
        ? `const ${t} s0 = combine(acc, v.x);
    const ${t} s1 = combine(s0, v.y);
    const ${t} s2 = combine(s1, v.z);
    const ${t} s3 = combine(s2, v.w);
    ${v4} o;
    o.x = ${exclusive ? "acc" : "s0"}; o.y = ${exclusive ? "s0" : "s1"}; o.z = ${
          exclusive ? "s1" : "s2"
        }; o.w = ${exclusive ? "s2" : "s3"};
    ys[i] = o;
    acc = s3;`
        : exclusive
        ? "y[i] = acc;\n    acc = combine(acc, v);"
        : "acc = combine(acc, v);\n    y[i] = acc;"
    }
  }`;
  const entry = pass === "totals" ? "scan_totals" : "scan_runs";
  const buffers = pass === "totals"
    ? [["x", t, true], ["partial", t, false]] as const
    : [["x", t, true], ["y", t, false], ["offsets", t, true]] as const;
  const name = pass === "totals" ? "totals" : `runs${exclusive ? "_exclusive" : ""}`;
  const run = scanRun(vector);
  return {
    id: `scan_${name}_${op}_${type}${vector ? "_vec4" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [SCAN_WORKGROUP, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  auto is_nan = [](float v) -> bool { return (__float_as_uint(v) & 0x7fffffffu) > 0x7f800000u; };
  (void)is_nan;
  auto identity = []() -> ${t} { return bitcast<${t}>(${scanIdentityBits(op, type) >>> 0}u); };
  auto combine = [&](${t} a, ${t} b) -> ${t} { return ${combineOf(op, type)}; };
  const ${U} tid = global_block() * blockDim.x + threadIdx.x;
  if (tid >= params.threads) return;
  const ${U} segment = tid / params.runs;
  const ${U} base = (segment / params.inner) * params.count * params.inner + segment % params.inner;
  const ${U} first = (tid % params.runs) * ${run}u;
  const ${U} end = min(first + ${run}u, params.count);
  ${body}
}
`,
  };
}
