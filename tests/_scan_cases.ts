/**
 * The CPU reference of scans and the check the scan tests share (tests/kernels_scan_test.ts on
 * WebGPU, tests/cuda_primitives_test.ts on CUDA).
 */
import { type ComputeClient, scan, type ScanOp } from "../mod.ts";
import { assertSame, type Element, type ElementArray, randomWords, typed } from "./_primitives.ts";

const IDENTITY: Record<Element, Record<ScanOp, number>> = {
  f32: { sum: 0, prod: 1, max: -Infinity, min: Infinity },
  i32: { sum: 0, prod: 1, max: -(2 ** 31), min: 2 ** 31 - 1 },
  u32: { sum: 0, prod: 1, max: 0, min: 2 ** 32 - 1 },
};

/** The op in the type's arithmetic: integers wrap, f32 max/min propagate NaN. */
function fold(op: ScanOp, type: Element): (a: number, b: number) => number {
  const wrap = type === "i32"
    ? (v: number) => v | 0
    : type === "u32"
    ? (v: number) => v >>> 0
    : Math.fround;
  switch (op) {
    case "sum":
      return (a, b) => wrap(a + b);
    case "prod":
      return type === "f32" ? (a, b) => Math.fround(a * b) : (a, b) => wrap(Math.imul(a, b));
    case "max":
      return (a, b) => Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b);
    case "min":
      return (a, b) => Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b);
  }
}

/** CPU scan of a row-major [rows, cols] array along `axis`. */
export function reference(
  data: ElementArray,
  type: Element,
  op: ScanOp,
  exclusive: boolean,
  [rows, cols]: readonly [number, number],
  axis: 0 | 1,
): ElementArray {
  const out = new (data.constructor as new (n: number) => ElementArray)(data.length);
  const f = fold(op, type);
  const [segments, count] = axis === 1 ? [rows, cols] : [cols, rows];
  for (let s = 0; s < segments; s++) {
    let acc = IDENTITY[type][op];
    for (let k = 0; k < count; k++) {
      const i = axis === 1 ? s * cols + k : k * cols + s;
      if (exclusive) {
        out[i] = acc;
        acc = f(acc, data[i]);
      } else {
        acc = f(acc, data[i]);
        out[i] = acc;
      }
    }
  }
  return out;
}

/** Inputs whose scans are exact in any order: small integers (f32 products: ±1 and zeros). */
export function inputFor(type: Element, op: ScanOp, n: number, seed: number): ElementArray {
  const words = randomWords(n, seed);
  if (type !== "f32") return typed(type, words); // integers wrap: any order is exact
  if (op === "prod") {
    return typed("f32", Array.from(words, (w) => (w % 7 === 0 ? 0 : w % 2 ? 1 : -1)));
  }
  if (op === "sum") return typed("f32", Array.from(words, (w) => (w % 33) - 16));
  return typed("f32", Array.from(words, (w) => (w % 1001 === 0 ? NaN : ((w | 0) / 2 ** 20))));
}

export async function check(
  client: ComputeClient,
  type: Element,
  op: ScanOp,
  exclusive: boolean,
  data: ElementArray,
  shape: [number, number],
  axis: 0 | 1,
): Promise<void> {
  using x = client.createWithData(data);
  const given = shape[0] === 1 && axis === 1 ? {} : { shape, axis };
  using y = scan(client, x, { op, exclusive, ...given });
  const what = `${op} ${type} ${exclusive ? "exclusive" : "inclusive"} [${shape}] axis ${axis}`;
  assertSame(
    await client.read(y) as ElementArray,
    reference(data, type, op, exclusive, shape, axis),
    what,
  );
}
