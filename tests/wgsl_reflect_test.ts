/** Reflection of WGSL kernels (no device needed): a corpus of real kernels and every misuse. */
import assert from "node:assert/strict";
import { reflectKernel, widenReadOnlyStorage } from "../runtime/server/webgpu/compile/_reflect.ts";
import { CompilationError, KernelArgumentError } from "../backend.ts";
import type { WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { elementwise } from "../mod.ts";
import { operatorProgram, reductionKernel } from "../runtime/kernels/_reduce_kernels.ts";
import * as demo from "../examples/kernels.ts";
import { CORPUS } from "./fixtures/wgsl_corpus.ts";

const describeBindings = (kernel: WgslKernel) =>
  reflectKernel(kernel).bindings.map((b) =>
    `${b.name} ${b.space} ${b.access} ${b.type.name} ${b.minSize}`
  );

Deno.test("reflection of a corpus of real kernels", async (t) => {
  for (const entry of CORPUS) {
    await t.step(entry.name, () => {
      const reflection = reflectKernel(entry.kernel);
      assert.equal(reflection.entryPoint, entry.entryPoint);
      assert.deepEqual(reflection.workgroupSize, entry.workgroupSize);
      assert.deepEqual(describeBindings(entry.kernel), entry.bindings);
    });
  }
});

Deno.test("reflection of the demo's and the helpers' kernels", () => {
  for (const [name, kernel] of Object.entries(demo)) {
    const reflection = reflectKernel(kernel as WgslKernel);
    assert.ok(reflection.bindings.length > 0, name);
    assert.ok(reflection.workgroupSize[0] >= 1, name);
  }
  const saxpy = elementwise({ inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" });
  assert.deepEqual(describeBindings({ source: saxpy.source }), [
    "in_x storage read array<f32> 4",
    "in_y storage read array<f32> 4",
    "out storage read_write array<f32> 4",
    "params uniform read Params 8",
  ]);
  for (const product of [false, true]) {
    const kernel = reductionKernel(operatorProgram("max", "f32", product), "rows", false, 64);
    assert.deepEqual(reflectKernel(kernel).workgroupSize, [64, 1, 1]);
    assert.equal(reflectKernel(kernel).bindings.length, product ? 4 : 3);
  }
});

const argumentError = (argument: string, pattern: RegExp) => (error: unknown) =>
  error instanceof KernelArgumentError && error.argument === argument &&
  pattern.test(error.message);
const compilationError = (line: number | undefined, pattern: RegExp) => (error: unknown) =>
  error instanceof CompilationError && error.line === line && pattern.test(error.message);

Deno.test("kernel fields that contradict the WGSL are KERNEL_ARGUMENT errors", () => {
  const two = CORPUS[2].kernel;
  assert.throws(
    () => reflectKernel({ source: two.source }),
    argumentError(
      "entryPoint",
      /is required: the WGSL declares @compute entry points 'pass1', 'pass2'/,
    ),
  );
  assert.throws(
    () => reflectKernel({ ...two, entryPoint: "pass3" }),
    argumentError(
      "entryPoint",
      /'pass3' but the WGSL declares @compute entry points 'pass1', 'pass2'/,
    ),
  );
  assert.throws(
    () => reflectKernel({ source: "fn helper() {}" }),
    argumentError("entryPoint", /no @compute entry point/),
  );
  const single = CORPUS[0].kernel;
  assert.throws(
    () => reflectKernel({ ...single, id: "histogram", workgroupSize: [128, 1, 1] }),
    argumentError(
      "workgroupSize",
      /\[128, 1, 1\] but 'histogram' declares @workgroup_size\(256, 1, 1\)/,
    ),
  );
  // Given values that agree are accepted, with or without the trailing 1s.
  assert.equal(reflectKernel({ ...single, workgroupSize: [256] }).entryPoint, "histogram");
  assert.equal(reflectKernel({ ...single, workgroupSize: [256, 1, 1] }).entryPoint, "histogram");
});

Deno.test("WGSL the runtime cannot run correctly is a COMPILATION error with the line", () => {
  assert.throws(
    () => reflectKernel({ source: "@compute @workgroup_size(1)\nfn main( {}" }),
    (e) => e instanceof CompilationError && e.line === 2,
  );
  const stride4 = `struct P { weights: array<f32, 4>, n: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = p.weights[0]; }`;
  assert.throws(
    () => reflectKernel({ id: "stride", source: stride4 }),
    compilationError(
      2,
      /p\.weights: array<f32, 4> has an element stride of 4 bytes; .* multiple of 16/,
    ),
  );
  const nested = `struct Inner { a: f32 }
struct P { x: f32, inner: Inner, y: f32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { _ = p.x; }`;
  assert.throws(
    () => reflectKernel({ source: nested }),
    compilationError(3, /p\.inner: Inner starts at byte 4; .* multiple of 16/),
  );
  const afterStruct = `struct Inner { a: f32 }
struct P { @align(16) inner: Inner, y: f32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { _ = p.y; }`;
  assert.throws(
    () => reflectKernel({ source: afterStruct }),
    compilationError(3, /p\.y starts at byte 4, inside the 16-byte-rounded struct p\.inner/),
  );
  // An override without a default is given at the launch (`overrides`): reflected as required.
  assert.deepEqual(
    reflectKernel({ source: "override WG: u32;\n@compute @workgroup_size(WG) fn main() {}" })
      .overrides.map((o) => [o.name, o.type, o.required]),
    [["WG", "u32", true]],
  );
  assert.throws(
    () => reflectKernel({ source: "@compute @workgroup_size(sqrt(0.7056)) fn main() {}" }),
    compilationError(
      1,
      /@workgroup_size x of 'main' \('sqrt\(0\.7056\)'\) is 0\.84.*positive i32 or u32/,
    ),
  );
  assert.throws(
    () =>
      reflectKernel({
        source: "@compute @workgroup_size(u32(determinant(mat2x2f()))) fn main() {}",
      }),
    compilationError(1, /cannot evaluate @workgroup_size\(u32\(determinant.* of 'main'/),
  );
  // Any @group is reflected (#27): a group-1 binding is no error, the layout has 2 groups.
  const grouped = reflectKernel({
    source: `@group(1) @binding(0) var<storage, read_write> a: array<f32>;
@compute @workgroup_size(1) fn main() { a[0] = 1.0; }`,
  });
  assert.equal(grouped.groups, 2);
  assert.equal(grouped.resources[0].group, 1);
  assert.throws(
    () =>
      reflectKernel({
        source: `@group(1) @binding(0) var<storage, read_write> a: array<f32>;
@group(1) @binding(0) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(1) fn main() { a[0] = b[0]; }`,
      }),
    compilationError(2, /@group\(1\) @binding\(0\) is declared twice/),
  );
});

Deno.test("read-only storage is widened for compilation, lines kept", () => {
  const source = `@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage> b: array<f32>;
@group(0) @binding(2) var<storage,read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> u: f32;`;
  assert.equal(
    widenReadOnlyStorage(source),
    `@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage,read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> u: f32;`,
  );
});

Deno.test("struct layouts follow WGSL's rules, not the parser's; wgpu's @align gap is refused", () => {
  // wgsl_reflect lets an @align on a struct-typed member raise neither the array stride nor
  // the enclosing struct's alignment, and drops a last member's @size from the struct size.
  const source = `struct Inner { @size(12) x: f32, @align(8) y: vec2f }
struct Outer { @align(32) inner: Inner, tail: f32, @size(16) pad: u32 }
struct S { @align(32) a: f32, @align(16) b: f32 }
struct U { head: vec4f, @align(32) s: S, @size(20) last: f32 }
@group(0) @binding(0) var<storage, read_write> outs: array<Outer>;
@group(0) @binding(1) var<uniform> u: U;
@compute @workgroup_size(1) fn main() { outs[0].tail = u.last; }`;
  const [outs, u] = reflectKernel({ source }).bindings;
  assert.equal(outs.stride, 64);
  assert.equal(outs.minSize, 64);
  assert.equal(u.type.kind === "struct" && u.type.members.map((m) => m.offset).join(), "0,32,64");
  assert.equal(u.minSize, 96);
  // `w.wide` is at byte 32 by WGSL's rules (Dawn) but at 16 in naga (gfx-rs/wgpu#4377).
  const gap = `struct Wide { @align(32) x: f32 }
struct W { head: vec4f, wide: Wide }
@group(0) @binding(0) var<uniform> w: W;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = w.wide.x; }`;
  assert.throws(
    () => reflectKernel({ source: gap }),
    compilationError(3, /w\.wide \(Wide\) is at byte 32 .* at byte 16 in wgpu's .*@align\(32\)/),
  );
  const aligned = reflectKernel({ source: gap.replace("wide: Wide", "@align(32) wide: Wide") });
  assert.equal(aligned.uniforms[0].minSize, 64);
});

Deno.test("an entry point's bindings: switch selectors and break-if conditions use, enumerants don't", () => {
  const names = (source: string, entryPoint = "main") =>
    reflectKernel({ source, entryPoint }).bindings.map((b) => b.name);
  const head = `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var<uniform> m: vec4u;
`;
  // wgsl_reflect walks neither a switch selector nor a break-if condition.
  assert.deepEqual(
    names(
      head + `@compute @workgroup_size(1) fn main() {
  var i = 0u;
  loop { i++; continuing { break if i > b[0]; } }
  switch m.x { default: { o[0] = i; } }
}`,
    ),
    ["o", "b", "m"],
  );
  // Attribute arguments and the words of var<...>/ptr<...> name no binding.
  const enumerants = `@group(0) @binding(0) var<storage, read_write> read_write: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@group(0) @binding(2) var<storage, read_write> global_invocation_id: array<u32>;
@group(0) @binding(3) var<storage, read_write> off: array<u32>;
@group(0) @binding(4) var<storage, read_write> function: array<u32>;
fn h(p: ptr<function, u32>) { *p += 1u; }
@diagnostic(off, derivative_uniformity) @compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) { var<function> x = g.x; h(&x); o[0] = x; }
@compute @workgroup_size(1) fn other() {
  read_write[0] = 1u; global_invocation_id[0] = 1u; off[0] = 1u; function[0] = 1u;
}`;
  assert.deepEqual(names(enumerants), ["o"]);
  assert.deepEqual(names(enumerants, "other"), [
    "read_write",
    "global_invocation_id",
    "off",
    "function",
  ]);
});
