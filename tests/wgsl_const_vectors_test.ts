/**
 * The const-expression evaluator computes vectors and matrices as WGSL does (QA wave 17): naga
 * evaluates `vec2u(16, 8) / 2u`, `dot`, `length`, `min` of vectors, `atan2`, `saturate` and
 * `mat2x2f(...) * v` in a `@workgroup_size` or an array count, and the runtime refused every one
 * ("'/' of a vector, array or struct", "atan2() is not evaluated by the runtime"); and it
 * computed abstract integers as 32-bit shifts and rounded doubles, a silently wrong size.
 */
import assert from "node:assert/strict";
import { evaluateConst } from "../runtime/server/webgpu/compile/consts/_const_eval.ts";
import type { ConstValue } from "../runtime/server/webgpu/compile/consts/_const_eval.ts";
import { constScope } from "../runtime/server/webgpu/compile/consts/_const_scope.ts";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";
import { CompilationError } from "../backend.ts";

const none = () => undefined;
/** A scalar expression's value. */
const value = (text: string) => evaluateConst(text, none).value;
/** A composite's values, flattened. */
const flat = (v: ConstValue): number[] => v.parts?.flatMap(flat) ?? [v.value];
const values = (text: string) => flat(evaluateConst(text, none, true));

Deno.test("operators and builtins of vectors apply per component, scalars to every one", () => {
  assert.deepEqual(values("vec2u(16, 8) / 2u"), [8, 4]);
  assert.deepEqual(values("vec2u(4) * vec2u(2, 3)"), [8, 12]);
  assert.deepEqual(values("3u - vec3u(1, 2, 3)"), [2, 1, 0]);
  assert.deepEqual(values("vec2u(1, 2) - vec2u(2, 1)"), [0xffffffff, 1]); // u32 wraps
  assert.deepEqual(values("-vec2i(3, -4)"), [-3, 4]);
  assert.deepEqual(values("~vec2u(0xFFFFFFF0u, 0u)"), [15, 0xffffffff]);
  assert.deepEqual(values("vec4u(1, 2, 3, 4) << vec4u(1u)"), [2, 4, 6, 8]);
  assert.deepEqual(values("vec3i(-7, 7, 9) % 4"), [-3, 3, 1]);
  assert.deepEqual(values("vec2u(1, 5) < vec2u(2, 2)"), [1, 0]);
  assert.deepEqual(values("min(vec3u(10, 20, 30), vec3u(25))"), [10, 20, 25]);
  assert.deepEqual(values("clamp(vec2i(-5, 50), vec2i(0), vec2i(20))"), [0, 20]);
  assert.deepEqual(values("countOneBits(vec2u(0xFFu, 0xF0u))"), [8, 4]);
  assert.deepEqual(values("extractBits(vec2u(0xF0u, 0x0Fu), 4u, 4u)"), [15, 0]);
  assert.deepEqual(values("select(vec2u(4, 5), vec2u(6, 7), vec2<bool>(true, false))"), [6, 5]);
  assert.deepEqual(values("select(vec2u(4, 5), vec2u(6, 7), true)"), [6, 7]);
  assert.deepEqual(values("abs(vec2f(-1.5, 2.0))"), [1.5, 2]);
  assert.equal(evaluateConst("vec2u(16, 8) / 2u", none, true).type, "u32");
  // Vectors of different sizes, and arrays, have no arithmetic.
  assert.throws(() => values("vec2u(1) + vec3u(1)"), /two sizes/);
  assert.throws(() => values("array(vec2u(1), vec2u(2)) * 2u"), /vector, array or struct/);
});

Deno.test("the geometric builtins of vectors, trigonometry and saturate", () => {
  assert.equal(value("dot(vec2u(2, 3), vec2u(4, 5))"), 23);
  assert.equal(value("dot(vec3i(1, -2, 3), vec3i(4, 5, -6))"), -24);
  assert.equal(value("length(vec2f(3, 4))"), 5);
  assert.equal(value("length(-2.5)"), 2.5);
  assert.equal(value("distance(vec2f(0), vec2f(6, 8))"), 10);
  assert.deepEqual(values("normalize(vec2f(3, 4))"), [Math.fround(0.6), Math.fround(0.8)]);
  assert.deepEqual(values("cross(vec3f(1, 0, 0), vec3f(0, 1, 0))"), [0, 0, 1]);
  assert.equal(value("all(vec2u(1) < vec2u(2))"), 1);
  assert.equal(value("any(vec3u(1, 2, 3) == vec3u(0, 5, 0))"), 0);
  assert.equal(value("saturate(1.5) + saturate(-2.0)"), 1);
  // The math library's functions of abstract floats: exact values only (naga's are glibc's,
  // one ulp from V8's for some arguments: exp(17.494), sin(15.976)).
  assert.equal(value("atan2(0.0, 1.0) + cos(0.0) + exp2(4.0) + pow(2.0, 5.0) + log2(256.0)"), 57);
  assert.equal(value("pow(-1.5, 3.0) + pow(2.0, -3.0) + exp(0.0) + log(1.0)"), -2.25);
  assert.throws(() => value("atan2(1.0, 1.0)"), /platform's math library/);
  assert.throws(() => value("u32(sin(1.0) * 20)"), /platform's math library/);
  assert.throws(() => value("exp(17.494)"), /platform's math library/);
  assert.throws(() => value("pow(1.1, 3.0)"), /platform's math library/); // 1.331 is not exact
  assert.throws(() => value("dot(1.0, 2.0)"), /two vectors/);
  assert.throws(() => value("cross(vec2f(1), vec2f(2))"), /vec3/);
  assert.throws(() => value("acos(2.0)"), /math library/); // naga refuses it too
  assert.throws(() => value("sqrt(-1.0)"), /no finite value/);
});

Deno.test("matrices: constructors, columns, and the products and sums WGSL defines", () => {
  assert.deepEqual(values("mat2x2f(1, 2, 3, 4)"), [1, 2, 3, 4]);
  assert.deepEqual(values("mat2x2<f32>(vec2f(1, 2), vec2f(3, 4))[1]"), [3, 4]);
  assert.deepEqual(values("mat2x2f(1, 2, 3, 4) * vec2f(1, 1)"), [4, 6]);
  assert.deepEqual(values("vec2f(1, 1) * mat2x2f(1, 2, 3, 4)"), [3, 7]);
  assert.deepEqual(values("mat2x2f(1, 2, 3, 4) * mat2x2f(0, 1, 1, 0)"), [3, 4, 1, 2]);
  assert.deepEqual(values("mat2x3f(1, 2, 3, 4, 5, 6) * vec2f(1, 2)"), [9, 12, 15]);
  assert.deepEqual(values("vec3f(1, 1, 1) * mat2x3f(1, 2, 3, 4, 5, 6)"), [6, 15]);
  assert.deepEqual(values("2.0 * mat2x2f(1, 2, 3, 4) - mat2x2f(1, 1, 1, 1)"), [1, 3, 5, 7]);
  assert.throws(() => values("mat2x2f(1, 2, 3)"), /mat2x2\(\) takes/);
  assert.throws(() => values("mat2x2f(1, 2, 3, 4) * vec3f(1)"), /mismatched/);
  assert.throws(() => values("mat2x2f(1, 2, 3, 4) / 2.0"), /'\/' of a matrix/);
});

Deno.test("a @workgroup_size and an array count of vector and matrix consts are reflected", () => {
  const source = `const TILE = vec2u(16, 8);
const HALF = TILE / 2u;
const M = mat2x2f(1, 2, 3, 4);
struct S { a: array<f32, dot(HALF, vec2u(1, 1))>, b: array<u32, u32((M * vec2f(1, 1)).y)> }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@compute @workgroup_size(HALF.x, HALF.y, u32(length(vec2f(3, 4))))
fn main() { s[0].b[0] = 1u; }`;
  const r = reflectKernel({ source });
  assert.deepEqual(r.workgroupSize, [8, 4, 5]);
  assert.equal(r.storage[0].stride, (12 + 6) * 4);
  // What it still cannot evaluate is refused, never guessed.
  assert.throws(
    () =>
      reflectKernel({
        source: "@compute @workgroup_size(u32(transpose(mat2x2f())[0].x)) fn main() {}",
      }),
    (e) => e instanceof CompilationError && /cannot evaluate/.test(e.message),
  );
});

Deno.test("abstract integers are exact as WGSL's i64, or refused; zero values; packed dots", () => {
  // Before: `1 << 33` shifted by 33 & 31 = 1 (2), and products past 2^53 were rounded, so a
  // @workgroup_size came out other than the device's (a launch of `threads` too few workgroups).
  assert.equal(value("((1 << 33) + 16) % 40"), 8);
  assert.equal(value("(1 << 34) >> 30"), 16);
  assert.equal(value("(0x300000000 & 0x100000000) / 0x10000000"), 16);
  assert.equal(value("-(1 << 40) / 3"), -366503875925); // truncated toward zero
  assert.equal(value("0x1FFFFFFFFFFFFF - 1"), 2 ** 53 - 2);
  // `~` of an abstract integer is its i64 complement (it was ToInt32's: ~0x100000000 read -1).
  assert.equal(value("~0x100000000"), -4294967297);
  assert.equal(value("u32(-((~0x100000000) >> 32)) * 8"), 16); // naga: 16
  assert.equal(value("~5u"), 4294967290);
  assert.throws(() => value("(0x7FFFFFFF * 0x7FFFFFFF) % 100"), /beyond 2\^53/);
  assert.throws(() => value("9007199254740993"), /beyond 2\^53/);
  assert.throws(() => value("1 << 64"), /shift of an abstract integer/);
  assert.throws(() => value("0x1FFFFFFFFFFFFF * 0x1FFFFFFFFFFFFF"), /overflows i64|beyond 2\^53/);
  // Zero values.
  assert.equal(value("u32() + 8u"), 8);
  assert.deepEqual(values("vec3u()"), [0, 0, 0]);
  assert.deepEqual(values("mat2x2f()"), [0, 0, 0, 0]);
  assert.deepEqual(values("array<u32, 1 + 2>()"), [0, 0, 0]);
  // WGSL's packed integer dot products.
  assert.equal(value("dot4U8Packed(0x01010101u, 0x02020202u)"), 8);
  assert.equal(value("dot4I8Packed(0xFF010101u, 0x02020202u)"), 4);
});

Deno.test("f16 and f32 literals and arithmetic round to their type as the device's do", () => {
  // Before: f16 values were kept unrounded, so `u32(2047.9h)` read 2047 (naga: the f16 2048).
  assert.equal(value("0.1h"), 0.0999755859375);
  assert.equal(value("u32(2047.9h)"), 2048);
  assert.equal(value("u32(f16(2047.9))"), 2048);
  assert.equal(value("1.0h / 3.0h"), 0.333251953125);
  assert.equal(value("0.1f"), Math.fround(0.1));
  assert.throws(() => value("f16(70000.0)"), /past f16's range/);
  // An abstract operand is converted to the other's type before the operation.
  const T = (name: string) =>
    name === "T" ? { value: Math.fround(0.7), type: "f32" as const } : undefined;
  assert.equal(evaluateConst("T == 0.7", T).value, 1); // it compared with the double 0.7: 0
  assert.equal(evaluateConst("0.7h == f16(0.7)", none).value, 1);
  // f32 trigonometry is naga's platform libm's: refused by name rather than a last-bit guess.
  assert.throws(() => evaluateConst("atan2(T, 0.7)", T), /platform's math library/);
  assert.throws(() => value("1e39f"), /past f32's range/);
  // Typed literals and shifts their type does not hold are errors in WGSL (naga refuses each).
  assert.throws(() => value("3000000000i"), /past i32's range/);
  assert.throws(() => value("0x100000000u"), /past u32's range/);
  assert.throws(() => value("1u << 32u"), /a shift by 32/);
  assert.equal(value("1u << 31u"), 2 ** 31);
});

Deno.test("an override's default is concrete: f32 or i32 when the declaration has no type", () => {
  const scope = constScope(
    new Map(
      [
        ["K", { kind: "override", type: undefined, init: "0.29" }],
        ["C", { kind: "const", type: undefined, init: "0.29" }],
        ["N", { kind: "override", type: undefined, init: "7" }],
      ] as const,
    ),
    new Map(),
  );
  // `override K = 0.29;` is the f32 0.29: K * 100.0 is the f32 29 (it was the double 28.99...).
  assert.equal(evaluateConst("u32(K * 100.0)", scope).value, 29);
  assert.equal(evaluateConst("u32(C * 100.0)", scope).value, 28); // a const stays abstract
  assert.equal(evaluateConst("N", scope).type, "i32");
});

Deno.test("an alias called as a constructor is its type in sizes and counts", () => {
  // `uint2(8, 4)` of `alias uint2 = vec2<u32>;` was refused: "uint2() is not evaluated".
  const source = `alias uint2 = vec2<u32>;
alias count_t = u32;
alias u2 = uint2;
const GROUP = u2(8, 4);
struct S { a: array<f32, count_t(3)>, b: u32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@compute @workgroup_size(GROUP.x, uint2(GROUP).y, count_t(2))
fn main() { s[0].b = 1u; }`;
  const r = reflectKernel({ source });
  assert.deepEqual(r.workgroupSize, [8, 4, 2]);
  assert.equal(r.storage[0].stride, 16);
});
