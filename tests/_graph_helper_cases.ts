/**
 * Captured helper launches replayed with new params, the same on every backend
 * (tests/webgpu_graph_test.ts, tests/cuda_graph_test.ts): a replay changes the params the caller
 * gave (an `elementwise` or `reduction` spec's) and refuses, with a `KernelArgumentError` naming
 * it, a param the helper set itself (`n`), which the caller never gave; so does the helper's own
 * run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type ComputeClient, elementwise, KernelArgumentError, reduce, reduction } from "../mod.ts";

const affine = elementwise({
  name: "graph_affine",
  inputs: ["x"],
  params: { a: "f32", b: "i32" },
  expression: "a * x + f32(b)",
});
/** Per row of 8: the largest `w * x`. */
const scaledMax = reduction({
  name: "graph_scaled_max",
  inputs: ["x"],
  params: { w: "f32" },
  map: "w * x",
  combine: "max(a, b)",
  identity: "neg_inf()",
});

const names = (param: string) => (error: unknown) =>
  error instanceof KernelArgumentError && error.message.includes(`params.${param}`);

/** The cases, on `client`. */
export async function helperReplayCases(client: ComputeClient): Promise<void> {
  const rows = 16, cols = 8, n = rows * cols;
  const data = Float32Array.from({ length: n }, (_, i) => (i % 11) - 5);
  using x = client.createWithData(data);
  using y = client.zeros(n);
  using m = client.zeros(rows);
  using top = client.zeros(rows);
  using graph = await client.capture(() => {
    affine.run(client, { x }, { params: { a: 2, b: 1 }, out: y });
    scaledMax.run(client, { x: y }, { shape: [rows, cols], axis: 1, params: { w: 1 }, out: m });
    reduce(client, x, { op: "max", shape: [rows, cols], axis: 1, out: top });
  }, { label: "helpers" });
  const expect = (a: number, b: number, w: number) => {
    const ys = data.map((v) => Math.fround(a * v + b));
    const maxes = Array.from({ length: rows }, (_, r) => {
      let best = -Infinity;
      for (let c = 0; c < cols; c++) best = Math.max(best, Math.fround(w * ys[r * cols + c]));
      return best;
    });
    return { ys: [...ys], maxes };
  };
  graph.replay();
  let want = expect(2, 1, 1);
  assert.deepEqual([...await client.read(y)], want.ys);
  assert.deepEqual([...await client.read(m)], want.maxes);
  // New values of the caller's params, in both helpers; they stay for later replays.
  graph.replay({ params: { a: -3, w: 0.5 } });
  graph.replay();
  want = expect(-3, 1, 0.5);
  assert.deepEqual([...await client.read(y)], want.ys);
  assert.deepEqual([...await client.read(m)], want.maxes);
  graph.replay({ params: { b: -4 } });
  want = expect(-3, -4, 0.5);
  assert.deepEqual([...await client.read(y)], want.ys);
  assert.deepEqual([...await client.read(m)], want.maxes);
  // The helpers' own params: `n` (elementwise, reduction), `cols` (both reductions), `chunks`.
  for (const own of ["n", "cols", "chunks", "per_group"]) {
    assert.throws(() => graph.replay({ params: { [own]: 1 } }), names(own), own);
  }
  assert.throws(() => graph.replay({ params: { a: 1, n: 1 } }), names("n")); // nothing changes
  assert.throws(() => graph.replay({ params: { nope: 1 } }), names("nope"));
  assert.throws(() => graph.replay({ params: { a: [1, 2] } }), names("a"));
  await client.write(y, new Float32Array(n));
  graph.replay();
  assert.deepEqual([...await client.read(y)], want.ys); // a and b as before the refusals
  const tops = Array.from(
    { length: rows },
    (_, r) => Math.max(...data.subarray(r * cols, r * cols + cols)),
  );
  assert.deepEqual([...await client.read(top)], tops);
  // A bigint for an i32 param is its number on both backends (CUDA refused it once its params
  // were packed by signature).
  affine.run(client, { x }, { params: { a: 1, b: -2n }, out: y });
  assert.deepEqual([...await client.read(y)], [...data].map((v) => v - 2));
  // The helper's own run refuses its own params too (an `n` was silently replaced before).
  assert.throws(
    () => affine.run(client, { x }, { params: { a: 1, b: 0, n: 3 }, out: y }),
    names("n"),
  );
  assert.throws(
    () => scaledMax.run(client, { x }, { shape: [rows, cols], axis: 1, params: { w: 1, rows: 1 } }),
    names("rows"),
  );
}
