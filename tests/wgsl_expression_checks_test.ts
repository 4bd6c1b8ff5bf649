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
