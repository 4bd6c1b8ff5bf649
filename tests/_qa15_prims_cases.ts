/**
 * Cases shared by tests/qa15_prims_test.ts (WebGPU) and tests/cuda_qa15_prims_test.ts (CUDA):
 * the primitives used as a NumPy / PyTorch user would, against CPU references.
 */
import assert from "node:assert/strict";
import { CompilationError, type ComputeClient, elementwise, random } from "../mod.ts";
import { unit, words } from "./_philox.ts";
import { wgslRemainders } from "./_wgsl_remainder.ts";

/** The f32 below `value` rounded to f32 (finite): below `value` as given and as f32. */
function f32Below(value: number): number {
  const rounded = Math.fround(value);
  if (rounded === 0) return -(2 ** -149);
  const bits = new Uint32Array(Float32Array.of(rounded).buffer);
  bits[0] += rounded > 0 ? -1 : 1;
  return new Float32Array(bits.buffer)[0];
}

/** Number 9320226 of seed 0 is a word whose top 24 bits are all set: u = 1 - 2^-24. */
const TOP = { seed: 0, offset: 9320226 } as const;

/**
 * Uniform numbers stay below `high`: `low + (high - low) u` of the largest u rounded up to `high`
 * in f32 for `[1, 2)` (2), `[0.5, 1.5)`, `[-2, -1)` and `[1e6, 1e6 + 1)`; they are the largest
 * f32 below `high` instead, and every other number is still the docs' formula bit for bit.
 */
export async function checkUniformBelowHigh(client: ComputeClient): Promise<void> {
  assert.equal(words(0n, TOP.offset, 1)[0] >>> 8, 0xffffff);
  const ranges = [[0, 1], [1, 2], [0.5, 1.5], [-2, -1], [0, 0.1], [0, 0.7], [1e6, 1e6 + 1], [
    -0.5,
    0,
  ]];
  for (const [low, high] of ranges) {
    const offset = TOP.offset - 2;
    using h = random(client, 5, { seed: TOP.seed, offset, low, high });
    const got = await client.read(h);
    const span = Math.fround(high - low);
    const expected = Float32Array.from(
      words(0n, offset, 5),
      (w) => Math.min(Math.fround(Math.fround(unit(w) * span) + Math.fround(low)), f32Below(high)),
    );
    assert.deepEqual(got, expected, `[${low}, ${high})`);
    const below = (v: number) => v >= Math.fround(low) && v < high && v < Math.fround(high);
    assert.ok(got.every(below), `[${low}, ${high}): ${got}`);
  }
}

/**
 * A shift by a constant of 32 or more (`x << 33u`) is WGSL's shader-creation error: refused on
 * CUDA too (it ran there, shifting by 33 mod 32), while constant shifts below 32 and shifts by a
 * run-time amount (taken modulo 32) run alike on both backends.
 */
export async function checkConstantShifts(client: ComputeClient): Promise<void> {
  using x = client.createWithData(new Uint32Array([1, 3, 0x80000001]));
  using s = client.createWithData(new Uint32Array([33, 31, 64]));
  const run = (expression: string) =>
    elementwise({ inputs: { x: "u32", s: "u32" }, expression, output: "u32" })
      .run(client, { x, s });
  // Refused at the call (CUDA translates the expression there) or at the read (WebGPU compiles
  // the launch's pipeline asynchronously).
  const refused = ["x << 32u", "x >> 33u", "x << 0x20u", "x >> 32", "(x + 1u) << 40u", "x << 32i"];
  for (const expression of refused) {
    await assert.rejects(
      async () => {
        using out = run(expression);
        await client.read(out);
      },
      CompilationError,
      expression,
    );
  }
  const cases: [string, (x: number, s: number) => number][] = [
    ["x << 31u", (x) => x << 31],
    ["x + u32(f32(1 << 20))", (x) => x + 2 ** 20],
    ["x + (1 << 3)", (x) => x + 8],
    ["x >> 0x1fu", (x) => x >>> 31],
    ["x << s", (x, s) => x << (s % 32)],
    ["x >> (s + 32u)", (x, s) => x >>> ((s + 32) % 32)],
  ];
  const xs = [1, 3, 0x80000001];
  const ss = [33, 31, 64];
  for (const [expression, cpu] of cases) {
    using out = run(expression);
    assert.deepEqual(
      await client.read(out),
      Uint32Array.from(xs, (v, k) => cpu(v, ss[k])),
      expression,
    );
  }
}

/** The inputs of {@linkcode checkFloatRemainder}: random f32 pairs of every size and specials. */
export function remainderInputs(): { x: Float32Array; y: Float32Array } {
  let state = 3;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const specials = [0, -0, Infinity, -Infinity, NaN, 1e-40, -1e-40, 3.4e38];
  const pick = (scale: number, shift: number) =>
    next() < 0.05
      ? specials[Math.floor(next() * specials.length)]
      : (next() - 0.5) * 10 ** Math.floor(next() * scale - shift);
  const x = Float32Array.from({ length: 512 }, () => pick(20, 5));
  const y = Float32Array.from({ length: 512 }, () => pick(12, 5));
  x.set([1e10, 7.3, -7.5, 5, 0.5, 1.5, -0, 93.30409240722656], 0);
  y.set([3, 0.1, 2, 0, -Infinity, -1e-40, 0.1, -0.3914840817451477], 0);
  return { x, y };
}

/**
 * An f32 `%` in a helper's expression is WGSL's `x - y * trunc(x / y)`, on both backends: CUDA
 * computed C's exact `fmodf` (`93.30409 % -0.39148` differed in the 5th digit, `1e10 % 3` was 1
 * rather than 0, `0.5 % -Infinity` 0.5 rather than NaN).
 *
 * `exact` (CUDA, whose translation the runtime defines): each step rounded to nearest, bit for
 * bit. Otherwise (WebGPU): any result WGSL's accuracy allows (tests/_wgsl_remainder.ts): the
 * quotient within 2.5 ULP, the product and difference either neighbour or fused, flushes, zero
 * signs, anything where a step is infinite or NaN. An H100 through Vulkan gave `1e10 % 3` = -512:
 * the quotient 1 ULP up (3333333504) and `x - y * t` fused. C's `fmodf` (1) is still refused.
 */
export async function checkFloatRemainder(client: ComputeClient, exact = true): Promise<void> {
  const { x, y } = remainderInputs();
  using hx = client.createWithData(x);
  using hy = client.createWithData(y);
  const rem = elementwise({ inputs: ["x", "y"], expression: "x % y" });
  using out = rem.run(client, { x: hx, y: hy });
  const f = Math.fround;
  const expected = x.map((a, i) => f(a - f(y[i] * Math.trunc(f(a / y[i])))));
  const got = await client.read(out);
  for (let i = 0; i < x.length; i++) {
    if (exact) {
      const same = Object.is(got[i], expected[i]) || (isNaN(got[i]) && isNaN(expected[i]));
      assert.ok(same, `${x[i]} % ${y[i]}: ${got[i]}, WGSL's ${expected[i]}`);
    } else {
      const allowed = wgslRemainders(x[i], y[i]);
      assert.ok(
        allowed === undefined || allowed.some((r) => r === got[i]),
        `${x[i]} % ${y[i]}: ${got[i]}, WGSL allows ${allowed?.join(", ")}`,
      );
    }
  }
}

/**
 * Abstract int literals fold in 64 bits, as WGSL's: on CUDA they were C's 32-bit ints
 * (`f32(65536 * 65536)` was 0, so `x / f32(65536 * 65536)` Infinity; `f32(2147483647 + 1)`
 * -2^31; `100000 * 100000 / 100000` 14100), and a literal an i32 or u32 operand cannot hold
 * (`u32(x) + 4294967296`, `u32(x) + -1`) is refused on both backends.
 */
export async function checkAbstractInts(client: ComputeClient): Promise<void> {
  const xs = [1, 3, -2.5];
  using x = client.createWithData(new Float32Array(xs));
  const run = (expression: string) => elementwise({ inputs: ["x"], expression }).run(client, { x });
  const f = Math.fround;
  const cases: [string, (v: number) => number][] = [
    ["x / f32(65536 * 65536)", (v) => f(v / 2 ** 32)],
    ["x + f32(2147483647 + 1)", (v) => f(v + 2 ** 31)],
    ["x + f32(1 << 40)", (v) => f(v + 2 ** 40)],
    ["x + f32(100000 * 100000 / 100000)", (v) => f(v + 100000)],
    ["x + f32(-7 / 2) + f32(-7 % 3) * 10.0 + f32(-16 >> 2) * 100.0", (v) => f(f(v - 3) - 10) - 400],
    ["x * f32((1 << 33) - 3 * 1024 * 1024 * 1024)", (v) => f(v * 5 * 2 ** 30)],
  ];
  for (const [expression, cpu] of cases) {
    using out = run(expression);
    assert.deepEqual(await client.read(out), Float32Array.from(xs, (v) => f(cpu(v))), expression);
  }
  for (
    const expression of ["f32(u32(x) + 4294967296)", "f32(u32(x) + -1)", "f32(i32(x) * 3000000000)"]
  ) {
    await assert.rejects(
      async () => {
        using out = run(expression);
        await client.read(out);
      },
      CompilationError,
      expression,
    );
  }
}
