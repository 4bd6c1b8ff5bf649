/**
 * The CPU reference of segmentReduce, shared by tests/kernels_scatter_test.ts (WebGPU) and
 * tests/cuda_primitives_test.ts (CUDA).
 */

export type Op = "sum" | "max" | "min";
type Typed = Float32Array | Int32Array | Uint32Array;

/** The CPU segment reduction, in the output type (f32 sums in f64, then rounded). */
export function cpuSegments<A extends Typed>(
  values: A,
  ids: ArrayLike<number>,
  segments: number,
  op: Op,
): A {
  const Ctor = values.constructor as new (n: number) => A;
  const init = values instanceof Float32Array
    ? { sum: 0, max: -Infinity, min: Infinity }[op]
    : values instanceof Int32Array
    ? { sum: 0, max: -(2 ** 31), min: 2 ** 31 - 1 }[op]
    : { sum: 0, max: 0, min: 2 ** 32 - 1 }[op];
  const acc = new Float64Array(segments).fill(init);
  for (let i = 0; i < values.length; i++) {
    const s = ids[i];
    if (s < 0 || s >= segments) continue;
    const v = values[i];
    acc[s] = op === "sum"
      ? acc[s] + v
      : Number.isNaN(v) || Number.isNaN(acc[s])
      ? NaN
      : op === "max"
      ? Math.max(acc[s], v)
      : Math.min(acc[s], v);
  }
  const out = new Ctor(segments);
  for (let s = 0; s < segments; s++) {
    out[s] = values instanceof Float32Array ? acc[s] : acc[s] % 2 ** 32;
  }
  return out;
}
