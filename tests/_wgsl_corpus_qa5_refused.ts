/**
 * QA wave 5: real-world WGSL plain WebGPU refuses on this adapter, which the client must refuse
 * with a typed error; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { BOUNDING_INFO } from "./_wgsl_corpus_qa5_babylon.ts";

export const REFUSED5: readonly CorpusCase[] = [
  // wgpu's naga refuses `ptr<storage, atomic<i32>, read_write>` function parameters without
  // the unrestricted_pointer_parameters language feature ("Function 'atomicMinFloat' is invalid").
  BOUNDING_INFO,
  {
    // A uniform struct holding a struct at offset 8 (WGSL: a uniform member of struct type is
    // 16-byte aligned; needs `@align(16)`), as in hand-written params blocks that work in
    // storage but not as `var<uniform>` (https://www.w3.org/TR/WGSL/#address-space-layout-constraints).
    name: "uniform struct member of struct type at an offset not a multiple of 16",
    source: /* wgsl */ `struct Inner { x: f32, y: vec2f }
struct U { a: f32, inner: Inner, b: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = u.a + u.inner.y.x + u.b; }`,
    plain: [B(0, 0, new Float32Array(12), true), B(0, 1, f(1))],
    workgroups: [1, 1, 1],
  },
];
