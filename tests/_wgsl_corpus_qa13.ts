/**
 * The QA corpus, thirteenth wave: a bulk differential sweep of Tint's end-to-end WGSL tests
 * (google/dawn `test/tint/**`), the WGSL of Dawn's end2end tests, naga's WGSL inputs and outputs
 * (gfx-rs/wgpu `naga/tests/{in,out}/`) and semantics-keeping rewrites of them (comments, blanks,
 * CRLF, declaration order, aliases...) through the client and plain WebGPU. The cases here are
 * the constructs the sweep found the client refusing where plain WebGPU runs them, each crediting
 * its source; run by `webgpu_wgsl_corpus_qa13_test.ts`.
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

/** Tint's textureGather/49b07f (literal arguments), below its license header. */
export const GATHER_U32 = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<u32>;

@group(1) @binding(1) var arg_1: texture_2d<u32>;
@group(1) @binding(2) var arg_2: sampler;

// fn textureGather(@const component: i32, texture: texture_2d<u32>, sampler: sampler, coords: vec2<f32>, @const offset: vec2<i32>) -> vec4<u32>
fn textureGather_49b07f() -> vec4<u32>{
  var res: vec4<u32> = textureGather(1i, arg_1, arg_2, vec2<f32>(1.f), vec2<i32>(1i));
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureGather_49b07f();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureGather_49b07f();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<u32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureGather_49b07f();
  return out;
}
`;

/** Tint's textureGather/7c3828 (arguments in declarations), below its license header. */
const GATHER_I32 = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<i32>;

@group(1) @binding(1) var arg_1: texture_2d<i32>;
@group(1) @binding(2) var arg_2: sampler;

// fn textureGather(@const component: i32, texture: texture_2d<i32>, sampler: sampler, coords: vec2<f32>, @const offset: vec2<i32>) -> vec4<i32>
fn textureGather_7c3828() -> vec4<i32>{
  const arg_0 = 1i;
  var arg_3 = vec2<f32>(1.f);
  const arg_4 = vec2<i32>(1i);
  var res: vec4<i32> = textureGather(arg_0, arg_1, arg_2, arg_3, arg_4);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureGather_7c3828();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureGather_7c3828();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<i32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureGather_7c3828();
  return out;
}
`;

/** 8x8 rgba8uint texels, each different. */
const TEXELS = Uint8Array.from({ length: 8 * 8 * 4 }, (_, i) => (i * 29) % 251);

export const CORPUS_QA13: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/increment/for_loop_initializer.wgsl
    // (stored version fac341a1b54d015b2660717bff745d09e61df969) verbatim: an increment as a `for`
    // initializer, which the reflection's parser cannot read (the client refused the kernel).
    // The loop has no body and no update: it ends only if the initializer leaves `i` at 10 or
    // more, so `i` starts at 9 (from 3, the loop never ended: lavapipe's LLVM deleted the empty
    // loop and the case passed, a real GPU ran it and the file timed out on an H100).
    name: "Tint statements/increment/for_loop_initializer (`for (i++; i < 10u;) {}`)",
    source: `@group(0) @binding(0) var<storage, read_write> i : u32;

@compute @workgroup_size(1)
fn main() {
  for (i++; i < 10u;) {
  }
}
`,
    plain: [B(0, 0, new Uint32Array([9]))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/statements/decrement/for_loop_initializer.wgsl
    // verbatim: the same with `i--`; `i` starts at 0 and wraps to 0xffffffff, which ends the
    // loop (from 7 it never ended; see the increment).
    name: "Tint statements/decrement/for_loop_initializer (`for (i--; i < 10u; ) {}`)",
    source: `@group(0) @binding(0) var<storage, read_write> i : u32;

@compute @workgroup_size(1)
fn main() {
  for (i--; i < 10u; ) {
  }
}
`,
    plain: [B(0, 0, new Uint32Array([0]))],
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
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/literal/textureGather/49b07f.wgsl
    // (stored version 6ee6330c3d87845f11e53d85638dfb2baa4dfc69) verbatim below its license header:
    // `textureGather(1i, arg_1, arg_2, ...)` of a `texture_2d<u32>` with a `sampler`. The client
    // laid the sampler out `filtering`, which WebGPU refuses beside an integer texture (wgpu's
    // "auto" layout does not check the pair): the client refused what plain WebGPU runs.
    name: "Tint textureGather/49b07f (gathers a texture_2d<u32> with a sampler)",
    source: GATHER_U32,
    plain: [
      B(0, 0, new Uint32Array(4)),
      { group: 1, binding: 1, texture: { width: 8, height: 8, format: "rgba8uint", data: TEXELS } },
      { group: 1, binding: 2, sampler: {} },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_2: {} },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureGather/7c3828.wgsl
    // (same version) verbatim below its license header: the `texture_2d<i32>` variant, its
    // arguments in `const` and `var` declarations.
    name: "Tint textureGather/7c3828 (gathers a texture_2d<i32> with a sampler)",
    source: GATHER_I32,
    plain: [
      B(0, 0, new Int32Array(4)),
      {
        group: 1,
        binding: 1,
        texture: {
          width: 8,
          height: 8,
          format: "r32sint",
          data: Int32Array.from({ length: 64 }, (_, i) => (i * 37) % 61 - 30),
        },
      },
      { group: 1, binding: 2, sampler: {} },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_2: {} },
  },
  {
    // https://github.com/google/dawn/blob/main/src/dawn/tests/end2end/ShaderTests.cpp
    // (OverridableConstantsNumericIdentifiers, stored version
    // be48eb7b30388a2669b2e44ff4ace66161606d14) with a blank after each `@` of `@id(...)`, which
    // WGSL allows (the sweep's rewrite of every module so): the reflection did not read the ids,
    // so the client refused `overrides: { "1001": ... }` as no override of the WGSL.
    name: "Dawn OverridableConstantsNumericIdentifiers written `@ id(1001) override c1: u32;`",
    source: `
@ id(1001) override c1: u32;            // some big numeric id
@ id(1) override c2: u32 = 0u;          // id == 1 might collide with some generated constant id
@ id(1003) override c3: u32 = 3u;       // default
@ id(1004) override c4: u32;            // default unspecified

struct Buf {
    data : array<u32, 4>
}

@group(0) @binding(0) var<storage, read_write> buf : Buf;

@compute @workgroup_size(1) fn main() {
    buf.data[0] = c1;
    buf.data[1] = c2;
    buf.data[2] = c3;
    buf.data[3] = c4;
}`,
    plain: [B(0, 0, new Uint32Array(4))],
    workgroups: [1, 1, 1],
    constants: { "1001": 11, "1": 12, "1004": 14 },
  },
];

/** Modules plain WebGPU refuses, which the client must refuse with a typed error. */
export const REFUSED13: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/extensions/immediates/struct.wgsl
    // (stored version ea7f96fc628ed541d905a7e073de251d1cf9ec14) verbatim: `var<immediate>`, which
    // a device without `immediates` refuses (the client does not request it, and Deno's compute
    // pass cannot set immediate data); the client refuses it with a typed error.
    name: "Tint extensions/immediates/struct (`var<immediate> data: Immediate`)",
    source: `struct Immediate {
  color: vec3<f32>,
  count: u32,
}

var<immediate> data: Immediate;

@group(0) @binding(0)
var<storage, read_write> output: vec4<f32>;

@compute @workgroup_size(1)
fn main() {
  output = vec4<f32>(data.color, f32(data.count));
}
`,
    plain: [B(0, 0, new Float32Array(4))],
    workgroups: [1, 1, 1],
  },
];
