/**
 * The CPU reference of argmax/argmin, their inputs and check, shared by tests/kernels_select_test.ts
 * (WebGPU) and tests/cuda_primitives_test.ts (CUDA).
 */
import assert from "node:assert/strict";
import { argmax, argmin, type ComputeClient } from "../mod.ts";
import { compareKeys, type Element, type ElementArray, randomWords, typed } from "./_primitives.ts";

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
