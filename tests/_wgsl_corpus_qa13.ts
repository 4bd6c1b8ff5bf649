/**
 * The QA corpus, thirteenth wave: a bulk differential sweep of Tint's end-to-end WGSL tests
 * (google/dawn `test/tint/**`) and naga's WGSL inputs (gfx-rs/wgpu `naga/tests/in/`) through the
 * client and plain WebGPU; the cases here are the constructs the sweep found the client misread or
 * refused, each crediting its source; run by `webgpu_wgsl_corpus_qa13_test.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** A Tint increment/decrement test module, `op` `++` or `--`. */
function forInit(op: "++" | "--"): string {
  const idx = (n: number, value: number) =>
    `fn idx${n}() -> i32 {
  v${op};
  return ${value};
}
`;
  return `struct S {
  a : array<vec4<i32>, 4>
}

@group(0) @binding(0) var<storage, read_write>  buffer : array<S>;

var<private> v : u32;

${[1, 2, 3, 4, 0, 2].map((value, i) => idx(i + 1, value)).join("\n")}
@compute @workgroup_size(1)
fn main() {
  for (buffer[idx1()].a[idx2()][idx3()]${op};
       v < 10u;
       buffer[idx4()].a[idx5()][idx6()]${op}) {
  }
}
`;
}

export const CORPUS_QA13: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/increment/for_loop_initializer.wgsl
    // (stored version fac341a1b54d015b2660717bff745d09e61df969) verbatim: an increment as a `for`
    // initializer, which the reflection's parser cannot read (the client refused the kernel).
    name: "Tint statements/increment/for_loop_initializer (`for (i++; i < 10u;) {}`)",
    source: `@group(0) @binding(0) var<storage, read_write> i : u32;

@compute @workgroup_size(1)
fn main() {
  for (i++; i < 10u;) {
  }
}
`,
    plain: [B(0, 0, new Uint32Array([3]))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/decrement/for_loop_initializer.wgsl
    // verbatim: the same with `i--`.
    name: "Tint statements/decrement/for_loop_initializer (`for (i--; i < 10u; ) {}`)",
    source: `@group(0) @binding(0) var<storage, read_write> i : u32;

@compute @workgroup_size(1)
fn main() {
  for (i--; i < 10u; ) {
  }
}
`,
    plain: [B(0, 0, new Uint32Array([7]))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/increment/complex.wgsl verbatim:
    // `buffer[idx1()].a[idx2()][idx3()]++` as the initializer, the calls' side effects ordering
    // the loop.
    name: "Tint statements/increment/complex (an indexed `++` with calls as a `for` initializer)",
    source: forInit("++"),
    plain: [B(0, 0, Int32Array.from({ length: 5 * 16 }, (_, i) => (i * 7) % 23 - 11))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/decrement/complex.wgsl verbatim:
    // the same with `--`.
    name: "Tint statements/decrement/complex (an indexed `--` with calls as a `for` initializer)",
    source: forInit("--"),
    plain: [B(0, 0, Int32Array.from({ length: 5 * 16 }, (_, i) => (i * 5) % 19 - 9))],
    workgroups: [1, 1, 1],
  },
];

/** Modules plain WebGPU refuses, which the client must refuse with a typed error. */
export const REFUSED13: readonly CorpusCase[] = [];
