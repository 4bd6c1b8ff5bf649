/**
 * The helpers' cases (issue #18), run on every backend: axis reductions of 2-D handles, custom
 * reductions, element-wise kernels with raw inputs, against CPU references. The WebGPU file
 * (tests/webgpu_helpers_test.ts) and the CUDA file (tests/cuda_helpers_test.ts) run them.
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  dot,
  elementwise,
  type Handle,
  reduce,
  type ReduceOp,
  reduction,
} from "../mod.ts";

const FOLD: Record<Exclude<ReduceOp, "mean">, (a: number, b: number) => number> = {
  sum: (a, b) => a + b,
  max: (a, b) => Math.max(a, b),
  min: (a, b) => Math.min(a, b),
};

/** The CPU reference of an axis reduction of a row-major [rows, cols] array. */
export function reference(
  data: ArrayLike<number>,
  [rows, cols]: readonly [number, number],
  axis: 0 | 1,
  op: ReduceOp,
): number[] {
  const outputs = axis === 1 ? rows : cols;
  const count = axis === 1 ? cols : rows;
  return Array.from({ length: outputs }, (_, o) => {
    const values = Array.from(
      { length: count },
      (_, k) => data[axis === 1 ? o * cols + k : k * cols + o],
    );
    if (op === "mean") return values.reduce((a, b) => a + b, 0) / count;
    return values.reduce(FOLD[op], op === "sum" ? 0 : op === "max" ? -Infinity : Infinity);
  });
}

/** Equal within f32 rounding: relative, plus `slack` for sums that cancel. */
const close = (
  actual: ArrayLike<number>,
  expected: readonly number[],
  what: string,
  slack = 0,
) => {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i];
    const error = Math.abs(actual[i] - e);
    assert.ok(
      error <= 1e-4 * Math.max(1, Math.abs(e)) + slack,
      `${what}[${i}]: ${actual[i]} vs ${e}`,
    );
  }
};

/**
 * The shared steps on `client`; `shapes` are the [rows, cols] of the axis reductions (the
 * simulated CUDA device interprets PTX: it gets small ones).
 */
export async function helperSteps(
  t: Deno.TestContext,
  client: ComputeClient,
  shapes: readonly [number, number][],
): Promise<void> {
  await t.step("sum, max, min and mean over rows and columns (f32)", async () => {
    for (const shape of shapes) {
      const data = Float32Array.from({ length: shape[0] * shape[1] }, (_, i) => Math.sin(i) * 9);
      using x = client.createWithData(data);
      for (const axis of [0, 1] as const) {
        for (const op of ["sum", "max", "min", "mean"] as const) {
          using out = reduce(client, x, { op, shape, axis });
          close(
            await client.read(out),
            reference(data, shape, axis, op),
            `${op} ${shape} ${axis}`,
          );
        }
      }
    }
  });

  await t.step("integer reductions keep their type; means need f32", async () => {
    const data = Int32Array.from({ length: 12 }, (_, i) => (i % 5) - 2);
    using x = client.createWithData(data);
    using sums = reduce(client, x, { shape: [3, 4] });
    assert.deepEqual([...await client.read(sums)], reference(data, [3, 4], 1, "sum"));
    using u = client.arange(10, "u32", { start: 5 });
    using top = reduce(client, u, { op: "max" });
    using low = reduce(client, u, { op: "min" });
    assert.deepEqual((await client.readMany([top, low])).map((v) => v[0]), [14, 5]);
    assert.throws(() => reduce(client, x, { op: "mean" }), RangeError);
    assert.throws(() => reduce(client, x, { shape: [5, 4] }), RangeError);
    using empty = client.empty(0);
    using nothing = reduce(client, empty, { op: "mean" });
    assert.ok(Number.isNaN((await client.read(nothing))[0]), "the mean of no element is NaN");
  });

  await t.step("a value that is not a handle is a TypeError naming the argument", () => {
    // Not "handle.describe is not a function" from inside the helper.
    const array = new Float32Array(4) as unknown as Handle<"f32">;
    using x = client.createWithData(new Float32Array(4));
    const names = (argument: string) => (e: unknown) =>
      e instanceof TypeError && e.message.includes(argument) && /must be a handle/.test(e.message);
    assert.throws(() => reduce(client, array), names("x"));
    assert.throws(() => dot(client, [array, x]), names("a"));
    assert.throws(() => dot(client, [x, array]), names("b"));
    const double = elementwise({ inputs: ["v"], expression: "v * 2.0" });
    assert.throws(() => double.run(client, { v: array }), names('"v"'));
    const total = reduction({ inputs: ["v"], combine: "a + b", identity: "0.0" });
    assert.throws(() => total.run(client, { v: array }), names('"v"'));
  });

  await t.step("f32 max and min propagate NaN, as NumPy's and scan's", async () => {
    // WGSL's max/min (and CUDA's fmaxf) may drop a NaN: [1, NaN, 3] gave 3 and 1.
    for (const at of [0, 1, 2, 4999]) {
      const data = Float32Array.from({ length: 5000 }, (_, i) => (i % 7) - 3);
      data[at] = NaN;
      using x = client.createWithData(data);
      for (const op of ["max", "min"] as const) {
        using whole = reduce(client, x, { op });
        assert.ok(Number.isNaN((await client.read(whole))[0]), `${op} with NaN at ${at}`);
        for (const axis of [0, 1] as const) {
          using part = reduce(client, x, { op, shape: [50, 100], axis });
          const expected = reference(data, [50, 100], axis, op); // Math.max/min propagate NaN
          assert.deepEqual(Array.from(await client.read(part)), expected, `${op} axis ${axis}`);
        }
      }
    }
  });

  await t.step("custom reductions: a norm, and two inputs with params", async () => {
    const norm = reduction({
      inputs: ["x"],
      map: "x * x",
      combine: "a + b",
      identity: "0.0",
      finish: "sqrt(r)",
    });
    const data = Float32Array.from({ length: 5000 }, (_, i) => (i % 7) - 3);
    using x = client.createWithData(data);
    using n = norm.run(client, { x });
    close(await client.read(n), [Math.hypot(...data)], "norm");
    const distance = reduction({
      name: "weighted_distance",
      inputs: { a: "f32", b: "f32" },
      params: { w: "f32" },
      map: "w * abs(a - b)",
      combine: "max(a, b)",
      identity: "0.0",
    });
    using y = client.createWithData(data.map((v, i) => v + (i === 1234 ? 5 : 0.5)));
    using d = distance.run(client, { a: x, b: y }, { params: { w: 2 } });
    close(await client.read(d), [10], "largest weighted difference");
    using rows = distance.run(client, { a: x, b: y }, { params: { w: 1 }, shape: [50, 100] });
    const perRow = Array.from({ length: 50 }, (_, r) => r === 12 ? 5 : 0.5);
    close(await client.read(rows), perRow, "per row");
    assert.throws(() => distance.run(client, { a: x }), RangeError);
    using ints = client.createWithData(new Int32Array(5000));
    assert.throws(() => distance.run(client, { a: x, b: ints }), TypeError);
  });

  await t.step("softmax of rows from helpers (raw inputs index the row values)", async () => {
    const [rows, cols] = [6, 10];
    const data = Float32Array.from({ length: rows * cols }, (_, i) => Math.cos(i) * 4);
    using x = client.createWithData(data);
    using m = reduce(client, x, { op: "max", shape: [rows, cols] });
    const shifted = elementwise({
      inputs: { x: "f32", m: "raw f32" },
      params: { cols: "u32" },
      expression: "exp(x - m[i / cols])",
    });
    using e = shifted.run(client, { x, m }, { params: { cols } });
    using s = reduce(client, e, { shape: [rows, cols] });
    const divide = elementwise({
      inputs: { e: "f32", s: "raw f32" },
      params: { cols: "u32" },
      expression: "e / s[i / cols]",
    });
    using y = divide.run(client, { e, s }, { params: { cols } });
    const expected = Array.from(data, (v, i) => {
      const row = data.slice(i - (i % cols), i - (i % cols) + cols);
      const top = Math.max(...row);
      return Math.exp(v - top) / row.reduce((a, b) => a + Math.exp(b - top), 0);
    });
    close(await client.read(y), expected, "softmax");
  });

  await t.step("dot along an axis", async () => {
    using a = client.arange(6);
    using b = client.full(6, 2);
    using d = dot(client, [a, b], { shape: [2, 3], axis: 1 });
    assert.deepEqual([...await client.read(d)], [6, 24]);
  });

  await t.step("an out of another element type is a TypeError; nothing is written", async () => {
    using x = client.arange(6);
    using ints = client.full(6, 7, { dtype: "i32" });
    using one = client.full(1, 7, { dtype: "u32" });
    using floats = client.full(1, 7);
    const twice = elementwise({ inputs: ["a"], expression: "a * 2.0" });
    const total = reduction({ inputs: { v: "f32" }, map: "v", combine: "a + b", identity: "0.0" });
    assert.throws(() => twice.run(client, { a: x }, { out: ints }), /output "out".*not f32/);
    assert.throws(() => total.run(client, { v: x }, { out: one }), TypeError);
    assert.throws(() => reduce(client, x, { out: one }), TypeError);
    using sums = client.createWithData(new Int32Array([1, 2]));
    assert.throws(() => reduce(client, sums, { out: floats }), TypeError);
    const [i, u, f] = await client.readMany([ints, one, floats]);
    assert.deepEqual([...i, ...u, ...f], [7, 7, 7, 7, 7, 7, 7, 7]);
    reduce(client, x, { out: floats }); // the out given is the result (floats disposes it)
    assert.deepEqual([...await client.read(floats)], [15]);
  });
}
