/**
 * Reflection defects the fourth QA wave's WGSL corpus (`_wgsl_corpus_qa4.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";
import { CompilationError, UnsupportedError } from "../backend.ts";

Deno.test("an override derived from an override without a default has the derived type", () => {
  // After Dawn's overridable-constant tests: `override OFFSET = SCALE * f32(TWICE);` with
  // `override SCALE: f32;` was refused ("override 'OFFSET' has no type the runtime can tell"):
  // the type was read by evaluating the default, which has no value until SCALE is given.
  const source = `override SCALE: f32;
override LANES: u32;
override OFFSET = SCALE * f32(LANES * 2u);
override HALF = LANES / 2u;
override SIGN = -i32(LANES);
override ON = SCALE > 1.0;
@group(0) @binding(0) var<storage, read_write> io: array<f32>;
@compute @workgroup_size(HALF)
fn main(@builtin(local_invocation_index) l: u32) {
  io[l] = select(OFFSET, f32(SIGN), ON);
}`;
  const types = Object.fromEntries(
    reflectKernel({ source }).overrides.map((o) => [o.name, [o.type, o.required]]),
  );
  assert.deepEqual(types, {
    SCALE: ["f32", true],
    LANES: ["u32", true],
    OFFSET: ["f32", false],
    HALF: ["u32", false],
    SIGN: ["i32", false],
    ON: ["bool", false],
  });
});

Deno.test("array counts of const builtins are the runtime's values, never the parser's guess", () => {
  // The runtime evaluated `+ - * / min max abs clamp select` and left any other count to
  // wgsl_reflect, which reads `round(2.5)` as 3 (WGSL: 2, to even), `extractBits(0xF0u, 4u, 2u)`
  // as 1 (3) and `SIZES[2]` as 1 (8): a binding's size, and a runtime array's stride, wrong.
  const size = (count: string) => {
    const source = `const SIZES = array(2u, 4u, 8u);
struct S { a: array<u32, ${count}>, b: u32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@compute @workgroup_size(1) fn main() { s[0].b = 1u; }`;
    return reflectKernel({ source }).storage[0].stride / 4 - 1;
  };
  assert.equal(size("u32(round(2.5))"), 2);
  assert.equal(size("u32(round(3.5)) + u32(round(-2.5) + 4.0)"), 6);
  assert.equal(size("extractBits(0xF0u, 4u, 2u)"), 3);
  assert.equal(size("u32(sqrt(64.0)) + countOneBits(0xF0u) + firstTrailingBit(16u)"), 16);
  assert.equal(size("reverseBits(0x40000000u) + firstLeadingBit(9u)"), 5);
  assert.equal(size("SIZES[2]"), 8);
  // A function-scope const's count is no binding's: left to the parser, not refused.
  const local = `@group(0) @binding(0) var<storage, read_write> o: array<f32>;
fn f() -> f32 { const N = 4u; var a: array<f32, N * 2u>; a[1] = 2.0; return a[1]; }
@compute @workgroup_size(1) fn main() { const M = 3; var b: array<u32, M>; o[0] = f(); }`;
  assert.deepEqual(reflectKernel({ source: local }).bindings.map((b) => b.name), ["o"]);
  // What it cannot evaluate is refused (the device's verdict decides the error's kind).
  assert.throws(
    () => size("(0x7FFFFFFF * 0x7FFFFFFF) % 100"),
    (e) => e instanceof CompilationError && /array count '\(0x7FFFFFFF/.test(e.message),
  );
});

Deno.test("vector and array consts are read by member and index in sizes and counts", () => {
  // \`const workgroup_size = vec3<u32>(64u, 1u, 1u); @workgroup_size(workgroup_size.x, ...)\`
  // (a WebGPU reduction tutorial) was refused: the runtime evaluated scalars only.
  const source = `const workgroup_size = vec3<u32>(16u, 2u, 1u);
const TILE = vec2i(3, 5);
const SIZES = array<u32, 3>(2, 4, 8);
struct S { a: array<f32, SIZES[1] * u32(TILE.y)>, b: array<u32, workgroup_size.y>, c: f32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@compute @workgroup_size(workgroup_size.x, workgroup_size.y, workgroup_size.z)
fn main() { s[0].c = 1.0; }`;
  const r = reflectKernel({ source });
  assert.deepEqual(r.workgroupSize, [16, 2, 1]);
  assert.equal(r.storage[0].stride, (20 + 2 + 1) * 4);
  // A vector where a number is needed is not read as one.
  assert.throws(
    () =>
      reflectKernel({
        source: `const W = vec3u(8u, 1u, 1u);
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(W) fn main() { o[0] = 1.0; }`,
      }),
    CompilationError,
  );
});

Deno.test("a storage texture of a format the runtime makes no textures of is unsupported", () => {
  // After Tint's builtins/gen textureDimensions/fbb15a.wgsl: `texture_storage_2d<bgra8unorm,
  // write>` compiled (plain WebGPU refuses it without 'bgra8unorm-storage'), and no launch could
  // bind it. Refused then, naming the format and what the runtime offers; since wave 15 the
  // runtime makes bgra8unorm textures (the kernel needs 'bgra8unorm-storage': the pipeline
  // cache refuses it on a device without), and r16float is such a format.
  const source = `@group(1) @binding(0) var arg_0 : texture_storage_2d<r16float, write>;
@group(0) @binding(0) var<storage, read_write> prevent_dce : vec2<u32>;
@compute @workgroup_size(1) fn compute_main() { prevent_dce = textureDimensions(arg_0); }`;
  assert.throws(
    () => reflectKernel({ source }),
    (e) =>
      e instanceof UnsupportedError && /arg_0: texture_storage_2d<r16float>/.test(e.message) &&
      /rgba8unorm/.test(e.message),
  );
  // The formats it makes still reflect.
  for (const format of ["rgba8unorm", "bgra8unorm"]) {
    const ok = source.replace("r16float", format);
    assert.equal(reflectKernel({ source: ok }).resources[1].texture?.format, format);
  }
});

Deno.test("WGSL's rarer blankspace and line breaks are read as blankspace", () => {
  // A form feed, vertical tab, NEL, U+200E/U+200F or U+2028/U+2029 (all WGSL blankspace; the
  // line breaks among them end a `//` comment) hid the entry point: "the WGSL declares no
  // @compute entry point" (a KernelArgumentError) for WGSL the device compiles.
  for (const blank of ["\v", "\f", "\u0085", "\u200e", "\u200f", "\u2028", "\u2029"]) {
    const source = `@group(0) @binding(0) var<storage, read_write>${blank}d: array<u32>;
// a comment${blank === "\u200e" || blank === "\u200f" ? "\n" : blank}@compute${blank}` +
      `@workgroup_size(4)${blank}fn${blank}main() { d[0] = 1u; }`;
    const r = reflectKernel({ source });
    assert.deepEqual([r.entryPoint, r.workgroupSize, r.storage[0].name], ["main", [4, 1, 1], "d"]);
  }
});

Deno.test("names of Object.prototype's members are ordinary WGSL names", () => {
  // wgsl_reflect looks names up in a plain object: a binding, parameter or function named
  // `constructor`, `toString`, `valueOf`... made the module unreadable ("Expected ';'"), and
  // the device's verdict then an UnsupportedError for valid WGSL.
  for (
    const n of [
      "constructor",
      "toString",
      "valueOf",
      "hasOwnProperty",
      "isPrototypeOf",
      "propertyIsEnumerable",
      "toLocaleString",
    ]
  ) {
    const source = `struct S { ${n}: f32 }
@group(0) @binding(0) var<uniform> ${n}: f32;
@group(0) @binding(1) var<storage, read_write> o: array<S>;
fn f(${n}: f32) -> f32 { let q = ${n}; return q; }
@compute @workgroup_size(1) fn main() { o[0].${n} = f(${n}); }`;
    const r = reflectKernel({ source });
    assert.deepEqual(r.bindings.map((b) => b.name), [n, "o"]);
    const type = r.storage[0].type;
    assert.ok(type.kind === "array" && type.element.kind === "struct");
    assert.equal(type.element.members[0].name, n);
  }
});
