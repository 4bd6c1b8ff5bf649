/**
 * QA wave 4, real-world WGSL that plain WebGPU refuses (old syntax, rules the code breaks): the
 * client must refuse each with a typed error and stay usable; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

export const REFUSED4: readonly CorpusCase[] = [
  {
    // The first version of the keyword-named case in `_wgsl_corpus_qa4_lang.ts`: an alias
    // named `storage` and one named `read` shadow the enumerants `var<storage, read>` needs.
    name: "aliases named storage and read shadowing var<storage, read>",
    source: /* wgsl */ `
alias storage = array<f32>;
alias read = vec2<f32>;
@group(0) @binding(0) var<storage, read> ins: array<read>;
@group(0) @binding(1) var<storage, read_write> outs: storage;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) { outs[g.x] = ins[g.x].x; }`,
    plain: [B(0, 0, new Float32Array(32)), B(0, 1, new Float32Array(16))],
    workgroups: [1, 1, 1],
  },
  {
    // Skia's tests/sksl/compute/Workgroup.wgsl output
    // (https://github.com/google/skia/tree/main/tests/sksl/compute): `@workgroup_size(12, 34,
    // 56)`, 22,848 invocations, past WebGPU's limit of 256.
    name: "Skia SkSL compute output with @workgroup_size(12, 34, 56)",
    source: /* wgsl */ `diagnostic(off, derivative_uniformity);
diagnostic(off, chromium.unreachable_code);
struct Outputs {
  result: i32,
};
@group(0) @binding(0) var<storage, read_write> _storage0 : Outputs;
fn _skslMain() {
  {
    _storage0.result = 1;
  }
}
@compute @workgroup_size(12, 34, 56) fn main() {
  _skslMain();
}
`,
    plain: [B(0, 0, new Int32Array(1))],
    workgroups: [1, 1, 1],
  },
];
