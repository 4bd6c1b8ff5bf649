/**
 * The QA corpus, second wave, part 1: language features in the shape the WGSL spec, naga's test
 * inputs (gfx-rs/wgpu naga/tests/in/wgsl), Dawn's end2end tests and the WebGPU CTS write them:
 * atomics in structs, control flow, pointers of every address space, overrides of every type,
 * abstract const expressions, f16, `diagnostic`/`requires`, bitcasts and packing. Each case is
 * written after the credited file (not copied): the constructs are theirs, sized to run fast.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

/** A LightStorage: the count, then `n` lights of two vec3f (32 bytes each). */
function lights(n: number): Float32Array<ArrayBuffer> {
  const data = new Float32Array(4 + 8 * n);
  data.set(f(8 * n, 0.25, -3), 4);
  new Uint32Array(data.buffer)[0] = n;
  return data;
}

/** The bytes of the layout case's uniform `U` (96 bytes: head, padded at 16, last at 64, end). */
function layoutU(): Float32Array<ArrayBuffer> {
  const data = new Float32Array(24);
  data.set([1, 2, 3, 4, 0.5, 0.25, 2, 9]);
  new Uint32Array(data.buffer)[16] = 7;
  data[17] = 0.75;
  return data;
}

export const LANG: readonly CorpusCase[] = [
  {
    // After naga tests/in/wgsl/atomicOps.wgsl: atomics as a scalar binding, a fixed array and
    // struct fields; a workgroup struct of atomics; compare-exchange's result struct. The
    // storageBarrier makes the loop's 10x come after both adds ((5 + 1 + 2) * 10 = 80).
    name: "naga atomicOps (atomic scalar/array/struct bindings, compare-exchange result fields)",
    source: /* wgsl */ `
struct Struct { atomic_scalar: atomic<u32>, atomic_arr: array<atomic<i32>, 2>, }
@group(0) @binding(0) var<storage, read_write> storage_atomic_scalar: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> storage_atomic_arr: array<atomic<i32>, 2>;
@group(0) @binding(2) var<storage, read_write> storage_struct: Struct;
var<workgroup> workgroup_struct: Struct;
@compute @workgroup_size(2)
fn cs_main(@builtin(local_invocation_id) id: vec3<u32>) {
  atomicAdd(&storage_atomic_scalar, 1u + id.x);
  atomicMax(&storage_atomic_arr[1], i32(id.x) * 7 - 3);
  atomicMin(&storage_atomic_arr[0], -i32(id.x));
  atomicOr(&storage_struct.atomic_scalar, 1u << (id.x + 4u));
  atomicXor(&storage_struct.atomic_arr[0], 0x55 << id.x);
  atomicAnd(&storage_struct.atomic_arr[1], ~(1 << id.x));
  atomicAdd(&workgroup_struct.atomic_arr[id.x], 3);
  workgroupBarrier();
  // workgroupBarrier orders workgroup memory only: without this, invocation 1's add may follow
  // the loop's 10x in the WGSL memory model ((5 + 1) * 10 + 2 = 62)
  storageBarrier();
  if (id.x == 0u) {
    // a compare-exchange loop: the result does not depend on the order of the invocations
    var old = atomicLoad(&storage_atomic_scalar);
    loop {
      let r = atomicCompareExchangeWeak(&storage_atomic_scalar, old, old * 10u);
      if (r.exchanged) { break; }
      old = r.old_value;
    }
    atomicAdd(&storage_struct.atomic_scalar, u32(atomicLoad(&workgroup_struct.atomic_arr[1])) << 16u);
  }
}`,
    plain: [
      B(0, 0, new Uint32Array([5])),
      B(0, 1, new Int32Array([1, 2])),
      B(0, 2, new Int32Array([1, 0xf0, -1])),
    ],
    workgroups: [1, 1, 1],
    threads: 2,
  },
  {
    // After naga tests/in/wgsl/control-flow.wgsl and the CTS's flow_control tests: switch with
    // case lists and `case 3, default`, loop/continuing/break if, while, a labelled-looking for.
    name: "naga control-flow (switch case lists, default in a list, loop continuing break if)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> out: array<i32>;
@must_use
fn classify(x: i32) -> i32 {
  switch x {
    case 1, 2: { return 10; }
    case 3, default: { return 30; }
    case 2 * 2: { return 40; }
    case (5): { return 50; }
  }
}
fn loop_sum(n: i32) -> i32 {
  var i = 0;
  var acc = 0;
  loop {
    if (i % 3 == 0) { i++; continue; }
    acc += i;
    continuing {
      i = i + 1;
      break if i >= n;
    }
  }
  var j = n;
  while j > 0 { acc -= 1; j -= 2; }
  for (;;) { if acc > 100 { acc -= 100; } else { break; } }
  return acc;
}
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let x = i32(gid.x);
  switch (gid.x & 1u) {
    case 0u: { out[gid.x] = classify(x) * 1000 + loop_sum(x + 3); }
    default: { out[gid.x] = -classify(x) * 1000 - loop_sum(x); }
  }
}`,
    plain: [B(0, 0, new Int32Array(16))],
    workgroups: [2, 1, 1],
    threads: 16,
  },
  {
    // After the WGSL spec's pointer examples (§ Pointer types, "Function call") and naga
    // tests/in/wgsl/pointers.wgsl: ptr<function|private> parameters (naga refuses
    // ptr<workgroup|storage> ones, as WGSL does without unrestricted_pointer_parameters: `let`
    // pointers to workgroup and storage memory instead),
    // `let p = &...`, pointer composite access `p.field` / `p[i]` (pointer_composite_access).
    name:
      "spec pointers (ptr<function/private> params, let pointers to workgroup/storage, p.field, p[i])",
    source: /* wgsl */ `
struct Pair { a: f32, b: array<f32, 3> }
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> pairs: array<Pair>;
var<private> scratch: array<f32, 4> = array(1.0, 2.0, 3.0, 4.0);
var<workgroup> shared_vals: array<f32, 16>;
fn add_one(x: ptr<function, f32>) { *x = *x + 1.0; }
fn total(p: ptr<private, array<f32, 4>>) -> f32 { return p[0] + (*p)[1] + p[2] + p[3]; }
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) g: vec3u) {
  var v = data[g.x];
  add_one(&v);
  let pv = &v;
  *pv *= 2.0;
  shared_vals[li] = v + total(&scratch);
  workgroupBarrier();
  if (li % 2u == 0u) { let s = &shared_vals; let t = s[li]; s[li] = s[li + 1u]; (*s)[li + 1u] = t; }
  workgroupBarrier();
  data[g.x] = shared_vals[li];
  if (g.x < arrayLength(&pairs)) {
    let p = &pairs[g.x];
    p.a += f32(g.x);
    p.b[1] = p.a * 2.0;
    (*p).b[2] -= 1.0;
  }
}`,
    plain: [B(0, 0, f(32, 0.5)), B(0, 1, f(40, 0.25))],
    workgroups: [2, 1, 1],
    threads: 32,
  },
  {
    // After Dawn's end2end ShaderTests.OverridableConstants*: overrides of type bool, i32, u32,
    // f32, f16 with and without defaults, @id(1000), an override defined by others.
    name:
      "Dawn overridable constants (bool/i32/u32/f32/f16, no defaults, @id, override of overrides)",
    source: /* wgsl */ `
enable f16;
override c0: bool;
override c1: bool = false;
override c2: f32;
override c3: f32 = 0.0;
override c4: f32 = 4.0;
@id(1000) override c5: f32;
override c6: i32;
override c7: u32 = 3u;
override c8: f16;
override c9 = c4 * 2.0 + f32(c7);
struct Buf { data: array<f32, 10> }
@group(0) @binding(0) var<storage, read_write> buf: Buf;
@compute @workgroup_size(1)
fn main() {
  buf.data[0] = select(0.0, 1.0, c0);
  buf.data[1] = select(0.0, 1.0, c1);
  buf.data[2] = c2;
  buf.data[3] = c3;
  buf.data[4] = c4;
  buf.data[5] = c5;
  buf.data[6] = f32(c6);
  buf.data[7] = f32(c7);
  buf.data[8] = f32(c8);
  buf.data[9] = c9;
}`,
    plain: [B(0, 0, new Float32Array(10))],
    workgroups: [1, 1, 1],
    threads: 1,
    constants: { c0: 1, c1: 0, c2: 2.5, c4: -1.5, "1000": 7.25, c6: -9, c7: 11, c8: 0.5 },
    overrides: { c0: true, c1: false, c2: 2.5, c4: -1.5, "1000": 7.25, c6: -9, c7: 11, c8: 0.5 },
    features: ["shader-f16"],
  },
  {
    // After naga tests/in/wgsl/const-exprs.wgsl and abstract-types-*.wgsl: abstract ints and
    // floats, const arrays indexed at run time, const conversions in array counts, aliases,
    // const_assert, a const struct.
    name:
      "naga const-exprs (abstract consts, conversions in array counts, const struct, const_assert)",
    source: /* wgsl */ `
const TWO = 2;
const FOUR: i32 = TWO * TWO;
const FOURF = 4.0;
const LUT = array(1, 3, 5, 7, 9, 11, 13, 15);
const_assert FOUR == 4 && FOURF == 4.0;
struct Cfg { scale: f32, bias: vec2f }
const CFG = Cfg(0.5, vec2(1.0, -1.0));
alias Quad = array<f32, u32(FOURF)>;
alias Lanes = array<i32, max(FOUR, 3) * 2>;
@group(0) @binding(0) var<storage, read_write> quads: array<Quad>;
@group(0) @binding(1) var<storage, read_write> lanes: array<Lanes, (TWO + 1) / 1>;
@compute @workgroup_size(FOUR * 2 - TWO * 2)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  var q: Quad = quads[i];
  for (var k = 0; k < FOUR; k++) { q[k] = q[k] * CFG.scale + CFG.bias[k & 1] + f32(LUT[(i + u32(k)) % 8u]); }
  quads[i] = q;
  if (i < 3u) {
    for (var k = 0u; k < 8u; k++) { lanes[i][k] = LUT[k] * i32(i) + (0x10 >> 2) - i32(1e1); }
  }
}`,
    plain: [B(0, 0, f(32, 0.5)), B(0, 1, new Int32Array(24))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // After Dawn's end2end ShaderF16Tests and naga tests/in/wgsl/f16.wgsl: `enable f16;`,
    // `array<vec4h>`, a struct of f16 fields in storage, f16 literals, f16 uniform fields.
    name:
      "Dawn/naga f16 (array<vec4h>, storage struct of f16 and vec3h, f16 literals, f16 uniform)",
    source: /* wgsl */ `
enable f16;
alias half4 = vec4h;
struct Mixed { a: f16, b: vec3<f16>, c: f32, d: vec2h }
struct U { scale: f16, shift: f16, n: u32 }
@group(0) @binding(0) var<storage, read> src: array<half4>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> mixed: array<Mixed>;
@group(0) @binding(3) var<uniform> params: U;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= params.n) { return; }
  let v = src[g.x];
  dst[g.x] = v * params.scale + half4(params.shift, 1.5h, -0.25h, 0x1p-2);
  var m = mixed[g.x];
  m.a = m.a + f16(g.x);
  m.b = m.b.zyx * 2h;
  m.c = f32(dot(v, v));
  m.d = vec2h(v.xy) - m.d;
  mixed[g.x] = m;
}`,
    plain: [
      B(0, 0, Float16Array.from(f(32, 0.125, -4))),
      B(0, 1, new Float16Array(32)),
      B(0, 2, Float16Array.from(f(96, 0.0625, 1))),
      B(0, 3, new Uint16Array([0x4000, 0xbc00, 8, 0, 0, 0, 0, 0]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 8,
    params: { scale: 2, shift: -1, n: 8 },
    features: ["shader-f16"],
  },
  {
    // After the WGSL spec's directive examples and three.js's WGSLNodeBuilder output:
    // `diagnostic(...)` and `requires` directives, `@diagnostic` on a function, `@must_use`.
    name: "spec directives (requires, diagnostic directive and attribute, @must_use)",
    source: /* wgsl */ `
requires readonly_and_readwrite_storage_textures, packed_4x8_integer_dot_product;
diagnostic(off, derivative_uniformity);
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var tex: texture_storage_2d<r32uint, read_write>;
@diagnostic(off, derivative_uniformity) @must_use
fn dotp(x: u32, y: u32) -> u32 { return dot4U8Packed(x, y); }
@compute @diagnostic(info, derivative_uniformity) @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  let t = textureLoad(tex, vec2u(i, 0u)).x;
  b[i] = dotp(a[i], a[i + 1u]) + u32(dot4I8Packed(a[i], 0x01020304u)) + t;
  textureStore(tex, vec2u(i, 0u), vec4u(b[i] ^ t, 0u, 0u, 1u));
}`,
    plain: [
      B(0, 0, u(17, 0xffffffff)),
      B(0, 1, new Uint32Array(16)),
      {
        group: 0,
        binding: 2,
        texture: { width: 16, height: 1, format: "r32uint", data: u(16, 1000) },
        storage: true,
      },
    ],
    workgroups: [2, 1, 1],
    threads: 16,
  },
  {
    // After naga tests/in/wgsl/bits.wgsl's unused constructs and Dawn's end2end
    // ShaderBuiltinPartialConstArgsErrorTests: bitcast of vectors, pack/unpack of every format.
    name: "bitcast and pack/unpack (bitcast<vec4u>, pack4xI8, unpack4xU8, pack2x16snorm)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read> inp: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> bits: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> packed: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let v = inp[g.x];
  let asu = bitcast<vec4<u32>>(v);
  bits[g.x] = asu ^ bitcast<vec4u>(vec4i(-1, 1, -2, 2));
  let k = g.x * 8u;
  packed[k] = pack4x8snorm(v * 0.01);
  packed[k + 1u] = pack4x8unorm(fract(v));
  packed[k + 2u] = pack2x16snorm(v.xy * 0.02);
  packed[k + 3u] = pack2x16unorm(fract(v.zw));
  packed[k + 4u] = pack2x16float(v.yx);
  packed[k + 5u] = pack4xI8(vec4i(v));
  packed[k + 6u] = pack4xU8Clamp(vec4u(unpack4xU8(asu.x)) + vec4u(200u));
  packed[k + 7u] = bitcast<u32>(unpack2x16float(asu.y).x + unpack4x8unorm(asu.z).w);
}`,
    plain: [B(0, 0, f(32, 0.37, -12)), B(0, 1, new Uint32Array(32)), B(0, 2, new Uint32Array(64))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // After the WGSL spec's storage example ("PointLight", § Storage buffers) and Dawn's
    // ComputeLayoutMemoryBufferTests: a runtime array of structs of vec3f after a count,
    // nested @size/@align structs, workgroupUniformLoad, let shadowing.
    name:
      "spec LightStorage (count + array<PointLight> of vec3f), nested @size/@align, workgroupUniformLoad",
    source: /* wgsl */ `
struct PointLight { position: vec3f, color: vec3f }
struct LightStorage { pointCount: u32, point: array<PointLight> }
struct Inner { @size(12) x: f32, @align(8) y: vec2f }
struct Outer { @align(32) inner: Inner, tail: f32, @size(16) pad: u32 }
@group(0) @binding(0) var<storage> lights: LightStorage;
@group(0) @binding(1) var<storage, read_write> outs: array<Outer>;
var<workgroup> count: u32;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  if (li == 0u) { count = lights.pointCount; }
  let n = workgroupUniformLoad(&count);
  var acc = vec3f(0.0);
  for (var i = 0u; i < n; i++) {
    let l = lights.point[i];
    let acc = acc + l.position * l.color; // shadows the var
    outs[li * n + i].inner.y = acc.xy;
  }
  {
    let li = li + 0u; // shadows the parameter in a block
    outs[li].inner.x = f32(n);
    outs[li].tail = f32(li) * 0.5;
    outs[li].pad = li;
  }
}`,
    plain: [
      B(0, 0, lights(3)),
      B(0, 1, new Float32Array(16 * 16)),
    ],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // Fixed: the layout was wgsl_reflect's, which lets an @align on a struct-typed member
    // align neither the member's offset nor the array stride: array<Wide>'s stride read 12
    // bytes, not 32 (a right-sized buffer was refused). `w.wide` carries its own @align(32):
    // without it wgpu and Dawn place it differently (webgpu_wgsl_layout_test.ts). After Dawn's
    // end2end ComputeLayoutMemoryBufferTests (members with @align/@size, uniform and storage).
    name: "Dawn layout tests: @align(32) struct member, trailing @size, in uniform and storage",
    source: /* wgsl */ `
struct Inner { x: f32, y: f32 }
struct Wide { @align(32) inner: Inner, @align(16) z: f32 }
struct Padded { v: vec3f, @size(32) w: f32 }
struct U { head: vec4f, @align(16) padded: Padded, last: u32, @size(20) end: f32 }
struct W { head: vec4f, @align(32) wide: Wide }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> items: array<Padded>;
@group(0) @binding(2) var<storage, read_write> wides: array<Wide>;
@group(1) @binding(0) var<uniform> w: W;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  items[i].v = items[i].v * u.padded.v + u.head.xyz;
  items[i].w = items[i].w + w.wide.z * f32(i) + u.end;
  wides[i].inner.y += w.wide.inner.x * f32(i) + f32(u.last);
  wides[i].z = w.head.w - wides[i].inner.x;
}`,
    plain: [
      B(0, 0, layoutU(), true),
      B(0, 1, f(8 * 12, 0.5)),
      B(0, 2, f(8 * 8, 0.25)),
      B(1, 0, new Float32Array([1, 2, 3, 4, 0, 0, 0, 0, 1.5, 2.5, 0, 0, 3.5, 0, 0, 0]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 8,
    params: {
      u: { head: [1, 2, 3, 4], padded: { v: [0.5, 0.25, 2], w: 9 }, last: 7, end: 0.75 },
      w: { head: [1, 2, 3, 4], wide: { inner: { x: 1.5, y: 2.5 }, z: 3.5 } },
    },
  },
];
