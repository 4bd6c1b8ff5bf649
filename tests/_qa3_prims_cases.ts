/**
 * Cases shared by tests/qa3_prims_zero_sign_test.ts (WebGPU) and
 * tests/cuda_qa3_prims_zero_sign_test.ts (CUDA): the sign of a zero that f32 max and min of
 * `reduce` and `scan` return (-0 below +0 on every backend, as the docs say).
 */
import assert from "node:assert/strict";
import { type ComputeClient, reduce, scan } from "../mod.ts";

/** `v` as text that tells -0 from +0. */
const show = (v: number) => Object.is(v, -0) ? "-0" : String(v);

/** The CPU max / min with -0 below +0 (JavaScript's `Math.max` and `Math.min` order them so). */
const FOLD = { max: Math.max, min: Math.min } as const;

/**
 * Zeros of both signs, at lengths and layouts that reach each kernel path: short rows (one
 * invocation each on WebGPU), runs of single elements and of vec4s, several run levels, columns.
 */
export function zeroCases(): { data: Float32Array; shape?: [number, number]; axis?: 0 | 1 }[] {
  const pattern = (n: number, seed: number) =>
    Float32Array.from(
      { length: n },
      (_, i) => ((i * 7 + seed) % 5 < 2 ? -0 : (i + seed) % 3 ? 0 : -0),
    );
  return [
    { data: new Float32Array([-0, 0]) },
    { data: new Float32Array([0, -0]) },
    { data: new Float32Array([-0, -0, 0, -0]) },
    { data: pattern(3, 1) },
    { data: pattern(17, 2) },
    { data: pattern(64, 3) },
    { data: pattern(257, 4) },
    { data: pattern(4100, 5) },
    { data: pattern(24, 6), shape: [4, 6], axis: 1 },
    { data: pattern(24, 7), shape: [4, 6], axis: 0 },
    { data: pattern(600, 8), shape: [3, 200], axis: 1 },
    { data: pattern(600, 9), shape: [200, 3], axis: 0 },
    // Subnormals: a device that flushes them in max, min and == (NVIDIA's Vulkan driver) made the
    // maximum of one subnormal 0 on an H200; picked by their bits, they come back exact.
    { data: new Float32Array([1e-40]) },
    { data: new Float32Array([-1e-40, -3e-45, 0, -0, 2e-45]) },
    { data: subnormals(257, 10) },
    { data: subnormals(4100, 11) },
    { data: subnormals(600, 12), shape: [200, 3], axis: 0 },
  ];
}

/** Subnormals of both signs (multiples of 2^-149), zeros among them. */
function subnormals(n: number, seed: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => {
    const k = (i * 2654435761 + seed * 40503) % 1000003; // spread over [0, 2^23)
    return (k % 7 === 0 ? 0 : (k % 2 ? -1 : 1) * k * 2 ** -149);
  });
}

/** f32 `reduce` and `scan` max and min of zeros of both signs against the CPU, bit for bit. */
export async function checkZeroSigns(client: ComputeClient): Promise<void> {
  for (const { data, shape, axis } of zeroCases()) {
    using x = client.createWithData(data);
    const [rows, cols] = shape ?? [1, data.length];
    const along = axis ?? 1;
    const [outer, count] = along === 1 ? [rows, cols] : [cols, rows];
    const at = (o: number, k: number) => along === 1 ? o * cols + k : k * cols + o;
    for (const op of ["max", "min"] as const) {
      const what = `${op} of [${Array.from(data.slice(0, 6), show)}${
        data.length > 6 ? ", ..." : ""
      }] (${data.length}${shape ? ` as [${shape}] axis ${along}` : ""})`;
      const folded: number[] = [];
      const running = new Array<number>(data.length);
      for (let o = 0; o < outer; o++) {
        let acc = op === "max" ? -Infinity : Infinity;
        for (let k = 0; k < count; k++) running[at(o, k)] = acc = FOLD[op](acc, data[at(o, k)]);
        folded.push(acc);
      }
      using r = reduce(client, x, { op, shape, axis });
      using s = scan(client, x, { op, shape, axis });
      const [gotR, gotS] = await client.readMany([r, s]);
      assert.deepEqual(Array.from(gotR, show), folded.map(show), `reduce ${what}`);
      assert.deepEqual(Array.from(gotS, show), running.map(show), `scan ${what}`);
    }
  }
}
