/**
 * The CUDA translation of the helpers' WGSL expressions refuses what WGSL refuses but C++ would
 * compile with its own meaning (implicit conversions, numbers as bools, C syntax and names), and
 * still translates the WGSL it must take. Pure TypeScript: runs without NVRTC or a GPU (the
 * differential test, tests/cuda_qa8_mistakes_test.ts, runs the same expressions on both).
 */
import assert from "node:assert/strict";
import {
  translateWgslExpression,
  WgslExpressionError,
} from "../runtime/kernels/wgsl/_wgsl_expression.ts";

const TYPES = { x: "f32", y: "f32", a: "i32", i: "u32", n: "u32" } as const;

Deno.test("expressions WGSL refuses are refused, naming what WGSL wants", () => {
  const refused: [string, RegExp][] = [
    ["x * i", /f32 \* u32: WGSL's operands have one type/],
    ["x + 1u", /f32 \+ u32/],
    ["a + i", /i32 \+ u32/],
    ["x < i", /f32 < u32/],
    ["x + true", /f32 \+ bool: a bool is not a number/],
    ["!x", /!f32: ! takes a bool/],
    ["x > 0.0 && i", /bool && u32: && takes bools/],
    ["a * 0.5", /i32 \* f32/],
    ["-i", /-u32: a u32 has no negation/],
    ["i << a", /the shift amount is a u32/],
    ["x << 1u", /a shift takes an integer/],
    ["sqrt(i)", /sqrt takes floats/],
    ["min(x, i)", /min\(f32, u32\): WGSL's arguments have one type/],
    ["select(x, 0.0, i)", /its condition is a bool/],
    ["select(x, i, x > 0.0)", /select\(f32, u32, bool\)/],
    ["x > 0.0 ? x : 0.0", /WGSL has no \?:/],
    ["(int)x", /WGSL has no C cast/],
    ["x, 1.0", /no comma operator/],
    ["sqrtf(x)", /sqrtf is CUDA's/],
    ["__float2int_rn(x)", /__float2int_rn is CUDA's/],
    ["f32(threadIdx.x)", /threadIdx is CUDA's/],
    ["f32(int(x) + 1)", /int is CUDA's/],
    ["float(x) * 2.0", /float is CUDA's/],
    ["f32(unsigned(x))", /unsigned is CUDA's/],
    ["log10(x)", /log10 is CUDA's/],
    ["log1p(x) + expm1(x)", /log1p is CUDA's/],
    // Constant sub-expressions are folded as naga folds them, with its refusals.
    ["x * f32(i << (1u << 5u))", /a shift by the constant 32 \(32 or more\)/],
    ["x + f32(1i << 31u)", /1 << 31: the << overflows/],
    ["x + f32(5i / 0i)", /a division by zero/],
    ["x * (3e38f * 10.0f)", /not finite/],
    ["x * (1.0 / 0.0)", /not finite/],
    ["x * 1e39", /out of f32's range/],
    ["x * clamp(2.0, 1.0, 0.5)", /its low is above its high/],
    ["x + f32(select(0u, ~2, x > 0.0))", /-3 is not a u32/],
  ];
  for (const [expression, message] of refused) {
    assert.throws(
      () => translateWgslExpression(expression, TYPES),
      (e) => e instanceof WgslExpressionError && message.test(e.message),
      expression,
    );
  }
});

Deno.test("the WGSL the helpers take still translates", () => {
  const taken = [
    "x * 2",
    "x * f32(i)",
    "u32(x) + i",
    "i % 2u == 0u",
    "select(0u, 1u, x > 0.0)",
    "(x > 0.0) & (y < 1.0)",
    "x > 0.0 && y > 0.0",
    "!(x > 0.0)",
    "-a",
    "~i",
    "i << 2",
    "i >> 1u",
    "a << 3u",
    "min(x, 0)",
    "max(a, -1)",
    "clamp(x, 0.0, 1.0)",
    "extractBits(a, 1u, 3u)",
    "bitcast<u32>(x) + i",
    "abs(x - y)",
    "sqrt(x * x + y * y)",
    "f32(x > 0.0)",
    "select(nan(), x / f32(n), n > 0u)",
    "x + 1e3",
    "x == 0",
    "true",
  ];
  for (const expression of taken) {
    assert.equal(typeof translateWgslExpression(expression, TYPES), "string", expression);
  }
});

Deno.test("constant sub-expressions are folded as WGSL's compiler does, emitted as exact literals", () => {
  const folded: [string, string][] = [
    // Abstract floats in f64, then once to f32: 1e-8 survives `(1.0 + 1e-8) - 1.0`.
    ["x * ((1.0 + 1e-8) - 1.0)", `(x * (${hexF32(Math.fround(1 + 1e-8 - 1))}))`],
    ["x * (1.0 / 3.0)", `(x * (${hexF32(Math.fround(1 / 3))}))`],
    ["x + (0.1 + 0.2)", `(x + (${hexF32(Math.fround(0.1 + 0.2))}))`],
    ["x * (sqrt(2.0) * sqrt(2.0))", "(x * (2.0f))"],
    // An abstract int by a call in 64 bits; i32 constants wrap as naga's.
    ["f32(max(1, 2) << 40)", "0x800000p18f"], // 2^41,
    ["a + (2147483647i + 1i)", "((int)((unsigned int)(a) + (unsigned int)(((int)0x80000000))))"],
    ["i + (0u - 1u)", "(i + (4294967295u))"],
    // Below f32's least subnormal: 0, where C refused `1e-50f`; a subnormal exactly.
    ["x * 1e-50", "(x * 0.0f)"],
    ["x * 1e-45", "(x * 0x1p-149f)"],
    // An f32 literal is rounded once from its decimal (through f64 it would be 1.0 here).
    ["x * 1.0000000596046447753906251f", "(x * 0x800001p-23f)"],
    ["x * 1.0000001788139343261718750f", "(x * 0x800002p-23f)"], // a tie: to even
    // An abstract int's f32 rounded once (2^53 + 2^29 + 1 is above the midpoint of 2^53 and
    // 2^53 + 2^30), an abstract float's through f64 (there it is the midpoint: to even), as naga's.
    ["x * f32(9007199791611905)", "(x * 0x800001p30f)"],
    // Hex floats (`0x1.8f` is 1 + 0x8f / 256: no suffix without an exponent).
    ["x * 0x1.8p1", "(x * 3.0f)"],
    ["x * 0x1.8f", "(x * 0xc78000p-23f)"],
    ["x * ((0x1p-30 + 1.0) - 1.0)", "(x * (0x800000p-53f))"],
    ["x * (9007199791611905 + 0.0)", "(x * (0x800000p30f))"],
    ["i32(1.5e10) + a", "((int)((unsigned int)(2147483647) + (unsigned int)(a)))"],
  ];
  for (const [expression, code] of folded) {
    assert.equal(translateWgslExpression(expression, TYPES), code, expression);
  }
});

/** C's hex float of an f32 (as the folder writes it). */
function hexF32(value: number): string {
  let e = Math.floor(Math.log2(value)) - 23;
  while (value >= 2 ** (e + 24)) e++;
  while (value < 2 ** (e + 23)) e--;
  return `0x${(value / 2 ** e).toString(16)}p${e}f`;
}
