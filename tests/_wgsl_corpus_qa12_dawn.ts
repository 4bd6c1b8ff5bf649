/**
 * QA wave 12, Tint's end-to-end test modules for f16 matrices in uniform arrays
 * (google/dawn `test/tint/buffer/uniform/std140/array/`): `array<mat4x4<f16>, 4>` and
 * `array<mat2x3<f16>, 4>` uniforms (columns of 8 bytes, 16- and 32-byte strides) given to the
 * client as params, a bare 2-byte `f16` storage binding, pointers to the uniform indexed through
 * a function with side effects, whole arrays and matrices passed to functions and copied into
 * workgroup memory; see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** Values of `count` matCxR<f16> (exact in f16), as params and as uniform bytes. */
function halfMatrices(count: number, columns: number, rows: number) {
  const columnStride = rows === 2 ? 4 : 8;
  const stride = Math.ceil((columns * columnStride) / 16) * 16;
  const bytes = new Uint8Array(count * stride);
  const params = Array.from(
    { length: count },
    (_, m) =>
      Array.from(
        { length: columns },
        (_, c) => Array.from({ length: rows }, (_, r) => ((m * 16 + c * 4 + r) % 13) * 0.25 - 1),
      ),
  );
  params.forEach((matrix, m) =>
    matrix.forEach((column, c) =>
      bytes.set(
        new Uint8Array(new Float16Array(column).buffer),
        m * stride + c * columnStride,
      )
    )
  );
  // The client takes a matrix as its values in column-major order.
  return { bytes, params: params.map((matrix) => matrix.flat()) };
}

const MAT4X4 = halfMatrices(4, 4, 4);
const MAT2X3 = halfMatrices(4, 2, 3);

export const DAWN12: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/buffer/uniform/std140/array/mat4x4_f16/dynamic_index_via_ptr.wgsl
    // (stored version
    // e856861fedf14ff9a480171e7ac69c78d11ae9ab) verbatim: `let p_a = &(a);`, `&((*(p_a))[i()])`
    // with a `var<private> counter` incremented by `i()`, whole-array and matrix loads.
    name: "Tint std140 mat4x4_f16 dynamic_index_via_ptr (uniform array<mat4x4<f16>, 4>, f16 out)",
    source: /* wgsl */ `enable f16;

@group(0) @binding(0) var<uniform> a : array<mat4x4<f16>, 4>;

@group(0) @binding(1) var<storage, read_write> s : f16;

var<private> counter = 0;

fn i() -> i32 {
  counter++;
  return counter;
}

@compute @workgroup_size(1)
fn f() {
  let p_a = &(a);
  let p_a_i = &((*(p_a))[i()]);
  let p_a_i_i = &((*(p_a_i))[i()]);
  let l_a : array<mat4x4<f16>, 4> = *(p_a);
  let l_a_i : mat4x4<f16> = *(p_a_i);
  let l_a_i_i : vec4<f16> = *(p_a_i_i);
  s = ((((*(p_a_i_i)).x + l_a[0][0].x) + l_a_i[0].x) + l_a_i_i.x);
}
`,
    entryPoint: "f",
    plain: [B(0, 0, MAT4X4.bytes, true), B(0, 1, Float16Array.from([7, 0]))],
    workgroups: [1, 1, 1],
    params: { a: MAT4X4.params },
    features: ["shader-f16"],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/buffer/uniform/std140/array/mat2x3_f16/to_fn.wgsl
    // (stored version e856861fedf14ff9a480171e7ac69c78d11ae9ab)
    // verbatim: the uniform array, a matrix, a swizzled column and a scalar passed to functions,
    // a parameter named like its function (`fn a(a : ...)`).
    name: "Tint std140 mat2x3_f16 to_fn (array<mat2x3<f16>, 4> uniform, fn a(a : ...))",
    source: /* wgsl */ `enable f16;

@group(0) @binding(0) var<uniform> u : array<mat2x3<f16>, 4>;

@group(0) @binding(1) var<storage, read_write> s : f16;

fn a(a : array<mat2x3<f16>, 4>) -> f16 {
  return a[0][0].x;
}

fn b(m : mat2x3<f16>) -> f16 {
  return m[0].x;
}

fn c(v : vec3<f16>) -> f16 {
  return v.x;
}

fn d(f : f16) -> f16 {
  return f;
}

@compute @workgroup_size(1)
fn f() {
  s = (((a(u) + b(u[1])) + c(u[1][0].zxy)) + d(u[1][0].zxy.x));
}
`,
    entryPoint: "f",
    plain: [B(0, 0, MAT2X3.bytes, true), B(0, 1, Float16Array.from([7, 0]))],
    workgroups: [1, 1, 1],
    params: { u: MAT2X3.params },
    features: ["shader-f16"],
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/buffer/uniform/std140/array/mat2x3_f16/to_workgroup.wgsl
    // (stored version
    // e856861fedf14ff9a480171e7ac69c78d11ae9ab) verbatim: the uniform array copied into a
    // workgroup `array<mat2x3<f16>, 4>`, a column and an element assigned.
    name: "Tint std140 mat2x3_f16 to_workgroup (uniform array copied into workgroup memory)",
    source: /* wgsl */ `enable f16;

@group(0) @binding(0) var<uniform> u : array<mat2x3<f16>, 4>;

@group(0) @binding(1) var<storage, read_write> s : f16;

var<workgroup> w : array<mat2x3<f16>, 4>;

@compute @workgroup_size(1)
fn f() {
  w = u;
  w[1] = u[2];
  w[1][0] = u[0][1].zxy;
  w[1][0].x = u[0][1].x;
  s = w[1][0].x;
}
`,
    entryPoint: "f",
    plain: [B(0, 0, MAT2X3.bytes, true), B(0, 1, Float16Array.from([7, 0]))],
    workgroups: [1, 1, 1],
    params: { u: MAT2X3.params },
    features: ["shader-f16"],
  },
];
