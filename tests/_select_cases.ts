/**
 * The CPU references of argmax/argmin and topk, their inputs and checks, shared by
 * tests/kernels_select_test.ts (WebGPU) and tests/cuda_primitives_test.ts,
 * tests/cuda_primitives2_test.ts (CUDA).
 */
import assert from "node:assert/strict";
import { argmax, argmin, type ComputeClient, topk } from "../mod.ts";
import {
  assertBits,
  compareKeys,
  cpuArgsort,
  type Element,
  type ElementArray,
  randomWords,
  typed,
} from "./_primitives.ts";

/** CPU argmax/argmin of a row-major [rows, cols] array along `axis` (first of ties and NaN). */
export function argReference(
  data: ArrayLike<number>,
  [rows, cols]: readonly [number, number],
  axis: 0 | 1,
  largest: boolean,
): number[] {
  const [segments, count] = axis === 1 ? [rows, cols] : [cols, rows];
  return Array.from({ length: segments }, (_, s) => {
    const at = (k: number) => data[axis === 1 ? s * cols + k : k * cols + s];
    let best = 0;
    for (let k = 1; k < count; k++) {
      const v = at(k);
      const b = at(best);
      if (Number.isNaN(b)) break;
      if (Number.isNaN(v) || (largest ? compareKeys(v, b) > 0 : compareKeys(v, b) < 0)) best = k;
    }
    return best;
  });
}

/** Values with many ties, -0 and +0, infinities and (f32) some NaN. */
export function valuesFor(type: Element, n: number, seed: number, nan = true): ElementArray {
  const words = randomWords(n, seed);
  if (type !== "f32") {
    return typed(
      type,
      Array.from(words, (w) => type === "u32" ? w % 50 : (w % 50) - 25),
    );
  }
  const special = [-0, 0, Infinity, -Infinity, ...(nan ? [NaN] : [])];
  return typed(
    "f32",
    Array.from(words, (w) => (w % 97 === 0 ? special[(w >>> 8) % special.length] : (w % 50) - 25)),
  );
}

export async function checkArg(
  client: ComputeClient,
  data: ElementArray,
  shape: [number, number] | undefined,
  axis: 0 | 1,
): Promise<void> {
  using x = client.createWithData(data);
  const options = shape === undefined ? {} : { shape, axis };
  using hi = argmax(client, x, options);
  using lo = argmin(client, x, options);
  const [a, b] = await client.readMany([hi, lo]);
  const s = shape ?? [1, data.length];
  const what = `${data.constructor.name} [${s}] axis ${axis}`;
  assert.deepEqual(Array.from(a), argReference(data, s, axis, true), `argmax ${what}`);
  assert.deepEqual(Array.from(b), argReference(data, s, axis, false), `argmin ${what}`);
}

/** topk of `data` as `[rows, cols]` against the first k of a stable CPU sort of each row. */
export async function checkTopk(
  client: ComputeClient,
  data: ElementArray,
  k: number,
  shape: [number, number] | undefined,
  largest: boolean,
): Promise<void> {
  const [rows, cols] = shape ?? [1, data.length];
  const expectedIndices: number[] = [];
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * cols, (r + 1) * cols);
    const order = cpuArgsort(row, largest).subarray(0, k);
    expectedIndices.push(...order);
  }
  using x = client.createWithData(data);
  const result = topk(client, x, k, shape === undefined ? { largest } : { shape, largest });
  using values = result.values;
  using indices = result.indices;
  const [v, i] = await client.readMany([values, indices]);
  const what = `topk ${data.constructor.name} k=${k} [${rows}, ${cols}] largest ${largest}`;
  assertBits(i, Uint32Array.from(expectedIndices), `${what} indices`);
  // Values are the input's elements at those indices, bit for bit (-0 and NaN kept).
  assertBits(
    v as ElementArray,
    permuteRows(data, expectedIndices, rows, cols, k),
    `${what} values`,
  );
}

/** The elements of `data` at the per-row indices. */
function permuteRows(
  data: ElementArray,
  indices: number[],
  rows: number,
  cols: number,
  k: number,
): ElementArray {
  const out = new (data.constructor as new (n: number) => ElementArray)(rows * k);
  for (let m = 0; m < rows * k; m++) out[m] = data[Math.floor(m / k) * cols + indices[m]];
  return out;
}
