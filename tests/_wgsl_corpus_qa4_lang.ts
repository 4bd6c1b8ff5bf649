/**
 * QA wave 4, language corners a WGSL reader can misread: aliases named like address spaces
 * and access modes, struct members named like keywords, pointer parameters in every address
 * space, overrides with and without defaults in expressions and array counts, minified and
 * CRLF modules; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

export const LANG4: readonly CorpusCase[] = [
  {
    // After the WGSL spec's keyword list (https://www.w3.org/TR/WGSL/#keyword-summary): the
    // address spaces and access modes are predeclared enumerants, not keywords, so a module
    // that does not use one as an enumerant may name aliases, structs, members, bindings and
    // functions `workgroup`, `read`, `write`, `uniform`, `function`, `private`, `ptr`.
    name: "aliases, a struct, members, bindings and a function named read/write/uniform/ptr",
    source: /* wgsl */ `
alias workgroup = array<f32>;
alias read = vec2<f32>;
struct uniform { read: read, write: f32, ptr: u32, function: u32 }
@group(0) @binding(0) var<storage, read_write> private: array<uniform>;
@group(0) @binding(1) var<storage, read_write> function: workgroup;
fn write(p: uniform) -> f32 { return p.read.x * p.write + f32(p.ptr); }
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let ptr = private[g.x];
  function[g.x] = write(ptr) - ptr.read.y + f32(ptr.function);
}`,
    plain: [B(0, 0, u(96, 50)), B(0, 1, new Float32Array(16))],
    workgroups: [1, 1, 1],
  },
  {
    // After the WGSL spec's pointer examples (https://www.w3.org/TR/WGSL/#ref-ptr-use-cases):
    // `ptr<function, S>`, `ptr<private, f32>`, `ptr<function, array<f32, N>>` parameters, a
    // `let` pointer into a storage struct, and locals shadowing the bindings' names at three
    // block depths, the bindings used again after each block ends.
    name: "pointer parameters (function, private), let pointers, nested shadowing of bindings",
    source: /* wgsl */ `
const N = 4u * 2u;
struct Acc { sum: f32, count: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<Acc>;
var<private> bias: f32 = 0.5;
var<workgroup> tile: array<f32, N>;
fn add(acc: ptr<function, Acc>, v: f32) { (*acc).sum += v; (*acc).count += 1u; }
fn nudge(b: ptr<private, f32>) { *b = *b * 2.0; }
fn total(t: ptr<function, array<f32, N>>) -> f32 {
  var s = 0.0;
  for (var i = 0u; i < N; i++) { s += (*t)[i]; }
  return s;
}
@compute @workgroup_size(N)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wg: vec3u) {
  let i = wg.x * N + l;
  tile[l] = src[i];
  workgroupBarrier();
  var acc = Acc(0.0, 0u);
  {
    var copy = tile;
    let src = total(&copy);
    add(&acc, src);
    {
      var dst = acc.sum * 0.5;
      dst += bias;
      add(&acc, dst);
    }
    add(&acc, dst[i].sum);
  }
  nudge(&bias);
  let out = &dst[i];
  (*out).sum = acc.sum + src[i] * bias;
  out.count = acc.count;
}`,
    plain: [
      B(0, 0, f(32, 0.25)),
      B(0, 1, w(...Array.from({ length: 64 }, (_, i) => i % 2 ? 1 : { f: i }))),
    ],
    workgroups: [4, 1, 1],
  },
  {
    // After Dawn's override tests (https://dawn.googlesource.com/dawn/+/refs/heads/main/src/dawn/tests/end2end/ShaderTests.cpp,
    // OverridableConstants...): overrides without defaults, with defaults, and derived ones in
    // a workgroup array count, `@workgroup_size` and expressions.
    name: "overrides with and without defaults in a workgroup array count and workgroup_size",
    source: /* wgsl */ `
override SCALE: f32;
@id(7) override LANES: u32 = 4u;
override TWICE = LANES * 2u;
override OFFSET = SCALE * f32(TWICE);
var<workgroup> buf: array<f32, TWICE>;
@group(0) @binding(0) var<storage, read_write> io: array<f32>;
@compute @workgroup_size(TWICE)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) g: vec3u) {
  let i = g.x * TWICE + l;
  buf[TWICE - 1u - l] = io[i] * SCALE;
  workgroupBarrier();
  io[i] = buf[l] + OFFSET;
}`,
    plain: [B(0, 0, f(48, 0.5))],
    workgroups: [3, 1, 1],
    constants: { SCALE: 1.5, "7": 8 },
    overrides: { SCALE: 1.5, LANES: 8 },
  },
  {
    // Synthetic, in the shape WGSL minifiers and bundler plugins emit: everything on one line,
    // no blankspace around templates, attributes run together, `0.` and `.5` literals.
    name: "minified WGSL on one line (struct, alias, const, helper, entry point)",
    source:
      "struct P{p:vec2f,v:vec2f};alias A=array<P>;const G=vec2f(0.,-9.8);@group(0)@binding(0)var<storage,read_write>ps:A;@group(0)@binding(1)var<uniform>dt:f32;fn s(p:P,t:f32)->P{var q=p;q.v+=G*t;q.p+=q.v*t;if(q.p.y<0.){q.p.y=-q.p.y;q.v.y=-q.v.y*.5;}return q;}@compute@workgroup_size(32)fn main(@builtin(global_invocation_id)i:vec3u){if(i.x>=arrayLength(&ps)){return;}ps[i.x]=s(ps[i.x],dt);}",
    plain: [B(0, 0, f(4 * 40, 0.1, -2)), B(0, 1, w({ f: 0.016 }), true)],
    workgroups: [2, 1, 1],
    params: { dt: 0.016 },
  },
  {
    // A module saved on Windows: CRLF line endings, tab indentation, a `//` comment ending in
    // CR, no newline at the end.
    name: "CRLF line endings, tabs, no trailing newline",
    source: [
      "// saved with CRLF\r",
      "struct Pair {\r",
      "\ta: u32,\t// first\r",
      "\tb: u32,\r",
      "}\r",
      "@group(0)\t@binding(0)\tvar<storage,\tread>\tins:\tarray<Pair>;\r",
      "@group(0) @binding(1)\r",
      "var<storage, read_write> outs: array<u32>;\r",
      "@compute\t@workgroup_size(8,\r",
      "\t1)\r",
      "fn main(@builtin(global_invocation_id) g: vec3u) {\r",
      "\tlet p = ins[g.x];\r",
      "\touts[g.x] = p.a * 3u + (p.b ^ 0x55u);\r",
      "}",
    ].join("\n"),
    plain: [B(0, 0, u(64, 1000)), B(0, 1, new Uint32Array(32))],
    workgroups: [4, 1, 1],
  },
  {
    // After the WGSL spec's const-expression builtins (https://www.w3.org/TR/WGSL/#const-expr):
    // array counts of a runtime array's element struct from `round` (to even: 2.5 is 2),
    // `countTrailingZeros`, `reverseBits`, `firstLeadingBit`, `pow` (naga has no const
    // `extractBits`); the stride (68 bytes) decides
    // which words each invocation reads; a function-scope `const` counts a local array.
    name: "array counts from round/countTrailingZeros/reverseBits/pow in a runtime array's struct",
    source: /* wgsl */ `
const R = u32(round(2.5)) + u32(round(3.5));
struct Cell {
  a: array<u32, R>,
  b: array<u32, countTrailingZeros(8u)>,
  c: array<f32, reverseBits(0x20000000u) + firstLeadingBit(9u)>,
  d: u32,
}
@group(0) @binding(0) var<storage, read_write> cells: array<Cell>;
@compute @workgroup_size(u32(pow(2.0, 3.0)))
fn main(@builtin(global_invocation_id) g: vec3u) {
  var c = cells[g.x];
  const L = 3u;
  var local: array<u32, L * 2u>;
  local[5] = 1u;
  c.d = c.a[R - 1u] + c.b[2] + u32(c.c[6]) + arrayLength(&cells) + local[5];
  cells[g.x] = c;
}`,
    plain: [B(0, 0, u(17 * 16, 64))],
    workgroups: [2, 1, 1],
  },
  {
    // After the WGSL spec's blankspace (https://www.w3.org/TR/WGSL/#blankspace-and-line-breaks):
    // form feeds between sections (as GNU-style sources page them), a vertical tab, NEL, a
    // left-to-right mark, and a line comment ended by U+2028 (a line break) with the entry
    // point after it on the same text line.
    name: "form feed, vertical tab, NEL, U+200E and U+2028 as blankspace and line breaks",
    source: "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n\f\n" +
      "fn twice(x: u32) -> u32 {\vreturn x * 2u; }\n\f\n" +
      "// the entry point follows a U+2028\u2028@compute\u0085@workgroup_size(8)\u200e" +
      "fn main(@builtin(global_invocation_id) g: vec3u) { d[g.x] = twice(d[g.x]) + g.x; }",
    plain: [B(0, 0, u(16, 1000))],
    workgroups: [2, 1, 1],
  },
  {
    // Names a JavaScript host sees on every object (Object.prototype's members) are ordinary
    // WGSL names: a uniform struct's fields, a bare uniform, an override, a function, a binding.
    name: "names of Object.prototype members: uniform fields, a binding, an override, a function",
    source: /* wgsl */ `
struct U { constructor: f32, valueOf: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> toString: array<f32>;
override hasOwnProperty: f32 = 0.5;
fn isPrototypeOf(x: f32) -> f32 { return x * hasOwnProperty; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  toString[g.x] = isPrototypeOf(toString[g.x] + u.constructor) + f32(u.valueOf);
}`,
    plain: [B(0, 0, w({ f: 1.5 }, 7), true), B(0, 1, f(16, 0.25))],
    workgroups: [2, 1, 1],
    params: { constructor: 1.5, valueOf: 7 },
  },
];
