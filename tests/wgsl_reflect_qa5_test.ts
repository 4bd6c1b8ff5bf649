/**
 * Reflection defects the fifth QA wave's WGSL corpus (`_wgsl_corpus_qa5.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";

Deno.test("a binding, local or parameter named `immediate` (an address space) is read", () => {
  // `immediate` is WGSL's newest address space (`var<immediate>`), an ordinary name elsewhere;
  // wgsl_reflect takes it for a keyword anywhere: "cannot read line 2" for valid WGSL.
  const source = `@group(0) @binding(0) var<storage, read_write> immediate: array<f32>;
fn scale(immediate: f32) -> f32 { return immediate * 2.0; }
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
  let immediate_ = 1.0;
  immediate[i] = scale(f32(i)) + immediate_;
}`;
  const reflected = reflectKernel({ source });
  assert.deepEqual(reflected.bindings.map((b) => b.name), ["immediate"]);
  assert.deepEqual(reflected.workgroupSize, [4, 1, 1]);
});

Deno.test("a module-scope f16 const or private var of an abstract float is read", () => {
  // `const EPS: f16 = 1e-3;` used anywhere made wgsl_reflect throw "Invalid cast from f32 to
  // f16" (a `vec2<f16>` const of `vec2(1.0, 2.0)`, a `var<private>` likewise): valid WGSL that
  // f16 kernels write was refused as unreadable.
  const source = `enable f16;
const EPS: f16 = 1e-3;
const HALF: vec2<f16> = vec2(0.5, 0.25);
const ROWS: mat2x2h = mat2x2h(1.0, 0.0, 0.0, 1.0);
var<private> bias: f16 = 0.125;
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
  o[i] = o[i] * HALF.x + EPS + bias * ROWS[1].y;
}`;
  const reflected = reflectKernel({ source });
  assert.deepEqual(reflected.bindings.map((b) => [b.name, b.scalar, b.stride]), [["o", "f16", 2]]);
  // Through an alias of f16 likewise.
  const aliased = `enable f16;
alias half = f16;
const EPS: half = 1e-3;
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { o[i] += EPS; }`;
  assert.deepEqual(reflectKernel({ source: aliased }).bindings.map((b) => b.name), ["o"]);
});
