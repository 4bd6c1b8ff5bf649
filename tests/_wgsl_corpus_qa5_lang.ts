/**
 * QA wave 5, language constructs its defects were found with, each after the WGSL specification
 * section that allows it: a name `immediate`, f16 consts of abstract floats, a float const read
 * into `@workgroup_size`; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

export const LANG5: readonly CorpusCase[] = [
  {
    // https://www.w3.org/TR/WGSL/#address-space: `immediate` is an enumerant (predeclared), so
    // an ordinary name for a binding, a parameter, a function (wgsl_reflect took it for a keyword).
    name: "a binding and a parameter named immediate (an address-space enumerant)",
    source: /* wgsl */ `@group(0) @binding(0) var<storage, read_write> immediate: array<f32>;
fn scaled(immediate: f32) -> f32 { return immediate * 2.0; }
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
  immediate[i] = scaled(immediate[i]) + 1.0;
}`,
    plain: [B(0, 0, f(8, 0.5))],
    workgroups: [1, 1, 1],
  },
  {
    // https://www.w3.org/TR/WGSL/#const-decls with https://www.w3.org/TR/WGSL/#extension-f16:
    // an abstract float initializer converted to the declared f16 type (`const EPS: f16 = 1e-3;`,
    // a `vec2<f16>` of `vec2(...)`, a `var<private>` f16), which wgsl_reflect refused.
    name: "f16 module consts and a private var of abstract floats",
    source: /* wgsl */ `enable f16;
const EPS: f16 = 1e-3;
const HALF: vec2<f16> = vec2(0.5, 0.25);
var<private> bias: f16 = 0.125;
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
  o[i] = o[i] * HALF.x + EPS + bias * HALF.y;
}`,
    plain: [B(0, 0, new Float16Array([1, 2, 3, 4, 5, 6, 7, 8]) as never)],
    workgroups: [1, 1, 1],
    features: ["shader-f16"],
  },
  {
    // https://www.w3.org/TR/WGSL/#attribute-workgroup_size (any const-expression of i32/u32) and
    // https://www.w3.org/TR/WGSL/#floating-point-conversion: `u32(W)` of `const W: f32 =
    // 2.9999999` is 3 (the f32 is 3.0); the runtime read 2 and launched `threads` wrongly.
    name: "a typed f32 const (rounded to 3.0) read into @workgroup_size by u32()",
    source: /* wgsl */ `const W: f32 = 2.9999999;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(u32(W))
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (g.x < arrayLength(&o)) { o[g.x] = n.x * 100u + g.x; }
}`,
    plain: [B(0, 0, new Uint32Array(9))],
    workgroups: [2, 1, 1],
    threads: 6,
  },
];
