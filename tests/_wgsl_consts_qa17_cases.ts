/**
 * The seventeenth QA wave's const-expression modules (`webgpu_wgsl_consts_qa17_test.ts`): each
 * spec is one module whose `@workgroup_size` and a uniform params struct's array count are const
 * expressions over its module-scope declarations (matrices, vector operators and builtins, zero
 * values, structs and aliases), with statements that write the values in the function body.
 * {@linkcode constCase} makes it a corpus case: the workgroups launched (an atomic count), the
 * params' layout (rows read back, then the member after the array) and the body's values are
 * compared with plain WebGPU bit for bit.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** One module: declarations, the size and count expressions, and the body's statements. */
export interface ConstSpec {
  readonly name: string;
  /** Module-scope declarations (consts, overrides, structs, aliases). */
  readonly decls: string;
  /** `@workgroup_size`'s arguments. */
  readonly wg: string;
  /** The params' array count expression and its value (the rows given). */
  readonly count?: readonly [string, number];
  /** Statements writing `out[0..6]` (f32). */
  readonly body: string;
}

/** The corpus case of `s` (see the module doc); two workgroups, or `threads` for the client. */
export function constCase(s: ConstSpec): CorpusCase {
  const count = s.count;
  const n = count?.[1] ?? 0;
  const source = `${s.decls}
${
    count
      ? `struct P { a: array<vec4u, ${count[0]}>, t: u32 }
@group(0) @binding(2) var<uniform> pu_: P;`
      : ""
  }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> hits: atomic<u32>;
@compute @workgroup_size(${s.wg}) fn main(@builtin(local_invocation_index) li_: u32,
                                          @builtin(workgroup_id) wi_: vec3u) {
  atomicAdd(&hits, 1u);
  if (li_ == 0u && all(wi_ == vec3u(0u))) {
    ${s.body}
    ${
    count
      ? `for (var k = 0u; k < ${n}u; k++) { out[8u + k] = f32(pu_.a[k].x); }
    out[7] = f32(pu_.t);`
      : ""
  }
  }
}`;
  const uniform = new Uint32Array(n * 4 + 4);
  for (let k = 0; k < n; k++) uniform[k * 4] = k + 1;
  uniform[n * 4] = 77;
  return {
    name: s.name,
    source,
    plain: [
      B(0, 0, new Float32Array(32)),
      B(0, 1, new Uint32Array(1)),
      ...(count ? [B(0, 2, uniform, true)] : []),
    ],
    workgroups: [2, 1, 1],
    params: count ? { a: Array.from({ length: n }, (_, k) => [k + 1, 0, 0, 0]), t: 77 } : undefined,
    features: /\benable f16\b/.test(s.decls) ? ["shader-f16"] : undefined,
  };
}

/** Modules naga (Deno's plain WebGPU) runs: the client runs them bit-identical. */
export const ACCEPTED: readonly ConstSpec[] = [
  {
    name: "mat scalars index",
    decls: "const m = mat2x2f(1, 2, 3, 4);",
    wg: "u32(m[1].x)",
    count: ["u32(m[0][1] + m[1][1])", 6],
    body: "out[0] = m[1].y;",
  },
  {
    name: "mat columns",
    decls: "const m = mat2x2<f32>(vec2f(1, 2), vec2f(3, 4));",
    wg: "u32(m[1][0])",
    count: ["u32(m[1].y)", 4],
    body: "out[0] = m[0].y;",
  },
  {
    name: "mat abstract",
    decls: "const m = mat2x2(1.0, 2.0, 3.0, 4.0);",
    wg: "u32(m[1].x)",
    count: ["u32(m[1].y)", 4],
    body: "out[0] = f32(m[1].y);",
  },
  {
    name: "mat abstract int-literal cols",
    decls: "const m = mat2x2(vec2(1.0, 2.0), vec2(3.0, 4.0));",
    wg: "u32(m[1].x)",
    body: "out[0] = f32(m[1].y);",
  },
  {
    name: "mat*vec",
    decls: "const m = mat2x2f(1, 2, 3, 4); const v = m * vec2f(1, 1);",
    wg: "u32(v.x)",
    count: ["u32(v.y)", 6],
    body: "out[0] = v.x; out[1] = v.y;",
  },
  {
    name: "vec*mat",
    decls: "const m = mat2x2f(1, 2, 3, 4); const v = vec2f(1, 1) * m;",
    wg: "u32(v.x)",
    count: ["u32(v.y)", 7],
    body: "out[0] = v.x; out[1] = v.y;",
  },
  {
    name: "mat*mat",
    decls: "const a = mat2x2f(1, 2, 3, 4); const b = mat2x2f(0, 1, 1, 0); const c = a * b;",
    wg: "u32(c[0].x)",
    count: ["u32(c[1].y)", 2],
    body: "out[0] = c[0].x; out[1] = c[0].y; out[2] = c[1].x; out[3] = c[1].y;",
  },
  {
    name: "mat+-",
    decls: "const a = mat2x2f(1, 2, 3, 4); const c = a + a - mat2x2f(1, 1, 1, 1);",
    wg: "u32(c[1].x)",
    count: ["u32(c[1].y)", 7],
    body: "out[0] = c[0].x; out[3] = c[1].y;",
  },
  {
    name: "mat*scalar",
    decls: "const a = mat2x2f(1, 2, 3, 4); const c = a * 2.0; const d = 3.0 * a;",
    wg: "u32(c[0].y)",
    count: ["u32(d[1].x)", 9],
    body: "out[0] = c[1].y; out[1] = d[0].y;",
  },
  {
    name: "mat neg",
    decls: "const a = mat2x2f(1, 2, 3, 4); const c = -a;",
    wg: "u32(-c[0].y)",
    count: ["u32(-c[1].x)", 3],
    body: "out[0] = c[1].y;",
  },
  {
    name: "mat3x2*vec3",
    decls: "const a = mat3x2f(1, 2, 3, 4, 5, 6); const v = a * vec3f(1, 0, 1);",
    wg: "u32(v.x)",
    count: ["u32(v.y)", 8],
    body: "out[0] = v.x; out[1] = v.y;",
  },
  {
    name: "mat4 identity-ish",
    decls:
      "const a = mat4x4f(vec4f(1,0,0,0), vec4f(0,1,0,0), vec4f(0,0,1,0), vec4f(2,3,4,1)); const q = a * vec4f(1, 1, 1, 1);",
    wg: "u32(q.y)",
    count: ["u32(q.z)", 5],
    body: "out[0] = q.x; out[1] = q.w;",
  },
  {
    name: "mat zero",
    decls: "const z = mat2x2f();",
    wg: "u32(z[1].y) + 2u",
    count: ["u32(z[0].x) + 3u", 3],
    body: "out[0] = z[0].x + 1.0;",
  },
  {
    name: "mat generic zero",
    decls: "const z = mat3x2<f32>();",
    wg: "u32(z[2].y) + 2u",
    body: "out[0] = z[2].y + 1.0;",
  },
  {
    name: "mat from mat",
    decls: "const a = mat2x2f(1, 2, 3, 4); const b = mat2x2f(a);",
    wg: "u32(b[1].x)",
    body: "out[0] = b[1].y;",
  },
  {
    name: "vec3f()",
    decls: "const z = vec3f();",
    wg: "u32(z.y) + 2u",
    count: ["u32(z.z) + 3u", 3],
    body: "out[0] = z.x + 1.0;",
  },
  {
    name: "vec3<u32>()",
    decls: "const z = vec3<u32>();",
    wg: "z.y + 2u",
    count: ["z.z + 3u", 3],
    body: "out[0] = f32(z.x) + 1.0;",
  },
  {
    name: "scalar zero ctors",
    decls: "const a = u32(); const b = i32(); const c = f32(); const d = bool();",
    wg: "a + 2u",
    count: ["u32(b) + u32(c) + select(3u, 4u, d)", 3],
    body: "out[0] = c + 1.0;",
  },
  {
    name: "array<T,N>()",
    decls: "const z = array<u32, 4>();",
    wg: "z[3] + 2u",
    count: ["z[1] + 3u", 3],
    body: "out[0] = f32(z[2]) + 1.0;",
  },
  {
    name: "array<vec2u,N>()",
    decls: "const z = array<vec2u, 2>();",
    wg: "z[1].y + 2u",
    count: ["z[0].x + 3u", 3],
    body: "out[0] = f32(z[1].x) + 1.0;",
  },
  {
    name: "struct S()",
    decls: "struct S { a: u32, b: vec2f, c: array<i32, 2> } const z = S();",
    wg: "z.a + 2u",
    count: ["u32(z.b.y) + u32(z.c[1]) + 3u", 3],
    body: "out[0] = z.b.x + 1.0;",
  },
  {
    name: "struct with mat",
    decls: "struct S { m: mat2x2f, n: u32 } const z = S(mat2x2f(1, 2, 3, 4), 5u);",
    wg: "z.n",
    count: ["u32(z.m[1].x)", 3],
    body: "out[0] = z.m[1].y;",
  },
  {
    name: "struct with mat zero",
    decls: "struct S { m: mat2x2f, n: u32 } const z = S();",
    wg: "z.n + 1u",
    count: ["u32(z.m[1].x) + 2u", 2],
    body: "out[0] = z.m[1].y + 1.0;",
  },
  {
    name: "nested arrays",
    decls: "const t = array(array(1u, 2u, 3u), array(4u, 5u, 6u));",
    wg: "t[1][0]",
    count: ["t[1][2] - t[0][0]", 5],
    body: "out[0] = f32(t[0][2]);",
  },
  {
    name: "array of structs",
    decls:
      "struct D { n: u32, v: vec2u } const t = array(D(1u, vec2u(2u, 3u)), D(4u, vec2u(5u, 6u)));",
    wg: "t[1].v.x",
    count: ["t[0].v.y + t[1].n", 7],
    body: "out[0] = f32(t[1].v.y);",
  },
  {
    name: "array of mats",
    decls: "const t = array(mat2x2f(1, 2, 3, 4), mat2x2f(5, 6, 7, 8));",
    wg: "u32(t[1][0].x)",
    count: ["u32(t[0][1][1])", 4],
    body: "out[0] = t[1][1].y;",
  },
  {
    name: "const index expr",
    decls: "const t = array(2u, 3u, 4u, 5u); const I = 1 + 2;",
    wg: "t[I - 1]",
    count: ["t[I]", 5],
    body: "out[0] = f32(t[I]);",
  },
  {
    name: "vec ops",
    decls:
      "const a = vec2u(1u, 2u) + vec2u(3u, 4u); const b = a * 2u; const c = 3u * a - vec2u(1u);",
    wg: "b.x",
    count: ["c.y", 17],
    body: "out[0] = f32(a.y); out[1] = f32(c.x);",
  },
  {
    name: "vec compare select",
    decls: "const a = vec2u(1u, 5u); const b = select(vec2u(7u), a, vec2<bool>(true, false));",
    wg: "b.x",
    count: ["b.y", 7],
    body: "out[0] = f32(b.x);",
  },
  {
    name: "dot cross length",
    decls:
      "const d = dot(vec3f(1, 2, 3), vec3f(1, 1, 1)); const c = cross(vec3f(1, 0, 0), vec3f(0, 1, 0)); const l = length(vec2f(3, 4));",
    wg: "u32(d)",
    count: ["u32(l + c.z)", 6],
    body: "out[0] = d; out[1] = c.z; out[2] = l;",
  },
  {
    name: "dot int",
    decls: "const d = dot(vec3u(1u, 2u, 3u), vec3u(2u, 2u, 2u));",
    wg: "d",
    count: ["d - 6u", 6],
    body: "out[0] = f32(d);",
  },
  {
    name: "vec builtins",
    decls:
      "const a = abs(vec2i(-3, 4)); const b = min(vec2u(3u, 9u), vec2u(5u, 2u)); const c = floor(vec2f(2.5, 3.7));",
    wg: "u32(a.x)",
    count: ["b.x + b.y + u32(c.y)", 8],
    body: "out[0] = c.x;",
  },
  {
    name: "swizzle",
    decls: "const v = vec4u(1u, 2u, 3u, 4u); const w = v.wzy;",
    wg: "w.x",
    count: ["w.yz.x", 3],
    body: "out[0] = f32(w.z);",
  },
  {
    name: "vec conversion",
    decls: "const v = vec2u(vec2f(2.7, 3.2)); const w = vec3f(vec2f(1, 2), 3);",
    wg: "v.x",
    count: ["v.y + u32(w.z)", 6],
    body: "out[0] = w.y;",
  },
  {
    name: "override default from mat",
    decls: "const m = mat2x2f(1, 2, 3, 4); override W: u32 = u32(m[1].x);",
    wg: "W",
    body: "out[0] = f32(W);",
  },
  {
    name: "fn-scope mat const",
    decls: "const K = 2u;",
    wg: "K",
    body:
      "const m = mat2x2f(1, 2, 3, 4); let v = m * vec2f(1, 1); out[0] = v.y; const z = mat3x3f(); out[1] = z[2].z; const a = array<f32, 3>(); out[2] = a[1];",
  },
  {
    name: "mat in alias count",
    decls: "const m = mat2x2f(1, 2, 3, 4); alias Row = array<f32, u32(m[1].y)>;",
    wg: "2u",
    body: "var r: Row; r[3] = 1.5; out[0] = r[3];",
  },
  {
    name: "mat const as module var init",
    decls: "const m = mat2x2f(1, 2, 3, 4); var<private> pm: mat2x2f = m * 2.0;",
    wg: "2u",
    body: "out[0] = pm[1].x;",
  },
  {
    name: "f16 mat",
    decls: "enable f16; const m = mat2x2h(1, 2, 3, 4);",
    wg: "u32(m[1].x)",
    body: "out[0] = f32(m[1].y);",
  },
  {
    name: "bool vec all any",
    decls: "const b = all(vec2<bool>(true, true)); const c = any(vec2(false, true));",
    wg: "select(1u, 2u, b && c)",
    body: "out[0] = 1.0;",
  },
  {
    name: "matrix equality? (vector ==)",
    decls: "const b = all(vec2u(1u, 2u) == vec2u(1u, 2u));",
    wg: "select(1u, 2u, b)",
    body: "out[0] = 1.0;",
  },
  {
    name: "normalize distance",
    decls: "const n = normalize(vec2f(3, 4)); const d = distance(vec2f(0, 0), vec2f(3, 4));",
    wg: "u32(d)",
    count: ["u32(n.y * 10.0)", 8],
    body: "out[0] = n.x;",
  },
  {
    name: "trig",
    // Exact values: the math library's functions of abstract floats are evaluated there only
    // (glibc's, naga's, are one ulp from V8's for some arguments; see UNSUPPORTED).
    decls: "const s = sin(0.0); const c = cos(0.0); const t = atan2(0.0, 1.0);",
    wg: "u32(c) + 1u",
    count: ["u32(t * 4.0) + 3u", 3],
    body: "out[0] = s + t;",
  },
  {
    name: "saturate sign",
    decls: "const s = saturate(1.5); const g = sign(-2i);",
    wg: "u32(s) + 1u",
    count: ["u32(-g) + 2u", 3],
    body: "out[0] = s;",
  },
  {
    name: "array ctor typed nested",
    decls: "const t = array<array<u32, 2>, 2>(array(1u, 2u), array(3u, 4u));",
    wg: "t[1][1]",
    count: ["t[1][0]", 3],
    body: "out[0] = f32(t[0][1]);",
  },
  {
    name: "struct-valued ctor S(a, S2())",
    decls: "struct I { x: u32 } struct O { i: I, k: u32 } const o = O(I(), 4u);",
    wg: "o.k + o.i.x",
    count: ["o.k - 1u", 3],
    body: "out[0] = f32(o.i.x) + 1.0;",
  },
  {
    name: "i32 negative count via abs",
    decls: "const v = vec2i(-3, 2) * -1;",
    wg: "u32(v.x)",
    body: "out[0] = f32(v.y);",
  },
  {
    name: "mat scalar ctor from abstract int",
    decls: "const m = mat2x2f(1, 2, 3, 4) * mat2x2f(1, 0, 0, 1) * vec2(1.0, 0.0);",
    wg: "u32(m.y)",
    body: "out[0] = m.x;",
  },
  {
    name: "vec3 mat3 mul",
    decls: "const r = mat3x3f(0, 1, 0, -1, 0, 0, 0, 0, 1); const q = r * vec3f(2, 0, 0);",
    wg: "u32(q.y)",
    count: ["u32(q.z) + 3u", 3],
    body: "out[0] = q.x;",
  },
  {
    name: "mat index via const",
    decls: "const a = mat2x2f(1, 2, 3, 4); const I = 1u;",
    wg: "u32(a[I][I - 1u])",
    body: "out[0] = a[I].y;",
  },
  {
    name: "workgroup_size 3 args mat",
    decls: "const a = mat3x3f(1, 2, 1, 1, 1, 1, 2, 1, 1);",
    wg: "u32(a[0].y), u32(a[1].x), u32(a[2].x)",
    body: "out[0] = 1.0;",
  },
  {
    name: "abstract trig of vectors",
    decls:
      "const s = sin(vec2(0.0, -0.0)); const a = atan2(vec2(0.0, 0.0), vec2(1.0, 2.0)); const h = asin(0.0) + acos(1.0) + atan(0.0) + tan(0.0) + cos(vec2(0.0)).y;",
    wg: "u32(a.y * 4.0) + u32(s.x) + 3u",
    count: ["u32(h) + 2u + u32(s.y * 2.0)", 3],
    body: "out[0] = a.x;",
  },
  {
    name: "f32 degrees radians inverseSqrt fma at integer boundaries",
    decls:
      "const D = degrees(1.14f); const R = radians(54.0f); const I = inverseSqrt(7.71f); const F = fma(0.1f, 0.2f, 0.3f);",
    wg: "u32((D - 65.3171844f) * 131072.0f) + 1u",
    count: [
      "u32((R - 0.942477763f) * 16777216.0f) * 2u + u32((I - 0.360141188f) * 33554432.0f) + 2u",
      3,
    ],
    body: "out[0] = D; out[1] = R; out[2] = I; out[3] = F;",
  },
  {
    name: "cross length dist",
    decls:
      "const c = cross(vec3f(1, 0, 0), vec3f(0, 1, 0)); const L = length(vec2f(3, 4)); const D = distance(vec2f(0, 0), vec2f(6, 8));",
    wg: "u32(L)",
    count: ["u32(c.z + D)", 11],
    body: "out[0] = c.z;",
  },
  { name: "length scalar", decls: "const L = length(-3.0);", wg: "u32(L)", body: "out[0] = L;" },
  {
    name: "step fma clamp vec",
    decls:
      "const s = step(vec2f(1, 5), vec2f(2, 2)); const f = fma(vec2f(2), vec2f(3), vec2f(1)); const c = clamp(vec2u(1u, 9u), vec2u(2u), vec2u(5u));",
    wg: "u32(s.x) + c.x",
    count: ["u32(f.y) + c.y - 5u", 7],
    body: "out[0] = s.y;",
  },
  {
    name: "vec bit builtins",
    decls: "const a = countOneBits(vec2u(7u, 3u)); const b = reverseBits(vec2u(0u, 0x80000000u));",
    wg: "a.x",
    count: ["a.y + b.y", 3],
    body: "out[0] = f32(a.y);",
  },
  {
    name: "vec % shifts",
    decls:
      "const a = vec2u(7u, 9u) % vec2u(4u); const b = vec2u(1u, 2u) << vec2u(1u, 2u); const c = vec2i(-8, 8) >> vec2u(1u);",
    wg: "a.x",
    count: ["b.y + u32(c.y) - 4u", 8],
    body: "out[0] = f32(c.x);",
  },
  {
    name: "bool vec ops",
    decls:
      "const a = !vec2(true, false); const b = vec2u(1u, 5u) < vec2u(2u, 2u); const c = ~vec2u(0u, 1u);",
    wg: "select(1u, 2u, a.y && b.x)",
    count: ["select(1u, 3u, all(b == vec2(true, false))) + c.x - 0xffffffffu", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "abstract vec mixing",
    decls: "const a = vec2(1, 2) * 1.5; const b = vec2(3, 4) + vec2u(1u);",
    wg: "u32(a.x * 2.0)",
    count: ["b.y", 5],
    body: "out[0] = a.y;",
  },
  {
    name: "vector /",
    decls: "const a = vec2f(9, 8) / 2.0; const b = 12u / vec2u(3u, 4u);",
    wg: "u32(a.y)",
    count: ["b.x + b.y - 4u", 3],
    body: "out[0] = a.x;",
  },
  {
    name: "mat abstract times vec f",
    decls: "const m = mat2x2(1.0, 2.0, 3.0, 4.0); const v = m * vec2f(1, 1);",
    wg: "u32(v.x)",
    count: ["u32(v.y)", 6],
    body: "out[0] = v.x;",
  },
  {
    name: "vec of bool zero",
    decls: "const z = vec2<bool>(); const y = vec4i();",
    wg: "select(2u, 1u, z.y) + u32(y.w)",
    body: "out[0] = 1.0;",
  },
  {
    name: "typed const mat",
    decls: "const m: mat2x2f = mat2x2(1.0, 2.0, 3.0, 4.0);",
    wg: "u32(m[1].x)",
    count: ["u32(m[1].y)", 4],
    body: "out[0] = m[0].y;",
  },
  {
    name: "typed const array mat",
    decls: "const m: array<mat2x2f, 2> = array(mat2x2(1.0, 2.0, 3.0, 4.0), mat2x2f());",
    wg: "u32(m[0][1].x)",
    count: ["u32(m[0][1].y) + u32(m[1][1].y)", 4],
    body: "out[0] = m[0][0].y;",
  },
  {
    name: "alias zero ctor",
    decls: "alias V = vec2u; const z = V(); const y = V(2u, 3u);",
    wg: "z.x + y.x",
    count: ["y.y", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "alias mat ctor",
    decls: "alias M = mat2x2f; const m = M(1, 2, 3, 4);",
    wg: "u32(m[1].x)",
    body: "out[0] = 1.0;",
  },
  {
    name: "array typed zero nested",
    decls: "const z = array<array<u32, 2>, 3>(); const w = array<mat2x2f, 2>();",
    wg: "z[2][1] + 2u + u32(w[1][1].y)",
    count: ["z[0][0] + 3u", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "mat4x3 * mat3x4",
    decls:
      "const a = mat4x3f(1,0,0, 0,1,0, 0,0,1, 1,2,3); const b = mat3x4f(1,0,0,0, 0,1,0,0, 0,0,1,0); const c = a * b;",
    wg: "u32(c[0].x) + 1u",
    count: ["u32(c[2].z) + 2u", 3],
    body: "out[0] = c[1].y;",
  },
  {
    name: "vec*mat 3x2",
    decls: "const a = mat3x2f(1, 2, 3, 4, 5, 6); const v = vec2f(1, 1) * a;",
    wg: "u32(v.x)",
    count: ["u32(v.z)", 11],
    body: "out[0] = v.y;",
  },
  {
    name: "mat f32 rounding",
    decls: "const a = mat2x2f(0.1, 0.2, 0.3, 0.4); const v = a * vec2f(10, 10);",
    wg: "u32(v.x * 2.0)",
    count: ["u32(v.y)", 6],
    body: "out[0] = v.x; out[1] = v.y;",
  },
  {
    name: "abs i32 min",
    decls: "const a = abs(-2147483647i - 1i);",
    wg: "u32(a & 1i) + 1u",
    body: "out[0] = f32(a);",
  },
  {
    name: "dot4 packed",
    decls:
      "const a = dot4U8Packed(0x01020304u, 0x01010101u); const b = dot4I8Packed(0xffu, 0x02u);",
    wg: "a",
    count: ["u32(-b) + 1u", 3],
    body: "out[0] = f32(b);",
  },
  {
    name: "abstract shift past 32",
    decls: "const X = 1 << 40;",
    wg: "u32(X / 274877906944)",
    count: ["u32((X >> 37) - 5)", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "abstract bitwise past 32",
    decls: "const X = (0x100000000 | 3) >> 32; const Y = ~0x100000000;",
    wg: "u32(X) + 1u",
    count: ["u32(-(Y >> 32)) + 1u", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "abstract and past 32",
    decls:
      "const X = (0x300000000 & 0x200000005) >> 32; const Z = (0x300000000 ^ 0x100000000) >> 33;",
    wg: "u32(X) + 1u",
    count: ["u32(Z) + 2u", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "f32 to u32 saturates",
    decls: "const A = u32(-1.5f); const B = i32(3e9f); const C = u32(5e9f);",
    wg: "A + 2u",
    count: ["u32(B - 2147483516i)", 4],
    body: "out[0] = f32(C >> 28u);",
  },
  {
    name: "f16 rounding",
    decls: "enable f16; const H = 2047.0h + 2.0h; const G: f16 = 2049.0;",
    wg: "u32(H) - 2046u",
    count: ["u32(G) - 2045u", 3],
    body: "out[0] = f32(H);",
  },
  {
    name: "i32 shifts",
    decls: "const A = -8i >> 1u; const B = 1u << 31u;",
    wg: "u32(-A) - 2u",
    count: ["(B >> 30u) + 1u", 3],
    body: "out[0] = f32(A);",
  },
  {
    name: "neg div mod",
    decls: "const A = -7 / 2; const B = -7 % 3; const C = 7.5 % 2.0;",
    wg: "u32(-A)",
    count: ["u32(-B) + 2u + u32(C * 2.0) - 3u", 3],
    body: "out[0] = f32(A);",
  },
  {
    name: "typed consts",
    decls:
      "const v: vec2<f32> = vec2(1, 2); const a: array<u32, 3> = array(1, 2, 3); const h: vec3u = vec3(4, 5, 6);",
    wg: "a[2] + u32(v.y)",
    count: ["h.z - a[1] - 1u", 3],
    body: "out[0] = v.x;",
  },
  {
    name: "mat column swizzle",
    decls:
      "const m = mat3x3f(1, 2, 3, 4, 5, 6, 7, 8, 9); const c = m[2].zyx; const d = vec2<f32>(m[0].xy);",
    wg: "u32(c.x) - 6u",
    count: ["u32(d.y + c.z) - 6u", 3],
    body: "out[0] = c.y;",
  },
  {
    name: "abstract compare mixing",
    decls: "const A = select(1u, 3u, 1 < 2.5); const B = select(2u, 1u, 2.0 == 2);",
    wg: "A",
    count: ["A + B - 1u", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "abstract float to u32",
    decls: "const A = u32(2.9); const B = i32(-2.9);",
    wg: "A + 1u",
    count: ["u32(-B) + 1u", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "override vector ops default",
    decls: "const V = vec2u(3u, 5u) * 2u; override W: u32 = V.x + dot(V, vec2u(0u, 1u)) - 13u;",
    wg: "W",
    body: "out[0] = f32(W);",
  },
  {
    name: "vector equality",
    decls:
      "const A = all(vec3u(1u, 2u, 3u) == vec3(1u, 2u, 3u)); const B = any(vec2f(1, 2) != vec2f(1, 2));",
    wg: "select(1u, 2u, A)",
    count: ["select(3u, 4u, B)", 3],
    body: "out[0] = 1.0;",
  },
  {
    name: "min max of mixed",
    decls: "const A = max(1, 2.5); const B = min(vec2i(-3, 4), vec2(0, 0));",
    wg: "u32(A * 2.0)",
    count: ["u32(-B.x)", 3],
    body: "out[0] = A;",
  },
  {
    name: "struct member array of mats",
    decls:
      "struct T { ms: array<mat2x2f, 2>, k: u32 } const t = T(array(mat2x2f(1, 2, 3, 4), mat2x2f()), 3u);",
    wg: "t.k + u32(t.ms[0][1].x)",
    count: ["u32(t.ms[0][1].y) - 1u", 3],
    body: "out[0] = t.ms[0][0].y;",
  },
  {
    name: "f32 mat rounding to u32",
    decls: "const m = mat2x2f(0.1, 0.7, 0.2, 0.3); const v = m * vec2f(10, 20);",
    wg: "u32(v.x)",
    count: ["u32(v.y)", 13],
    body: "out[0] = v.x; out[1] = v.y;",
  },
  {
    name: "cross length sqrt rounding",
    decls:
      "const L = length(vec3f(1, 1, 1)) * length(vec3f(1, 1, 1)); const N = normalize(vec2f(1, 1));",
    wg: "u32(L)",
    count: ["u32(N.x * N.x * 8.0) + 1u", 4],
    body: "out[0] = L; out[1] = N.y;",
  },
  {
    name: "fn-scope typed abstract inits",
    decls: "const K = 2u;",
    wg: "K",
    body:
      "let h: vec3u = vec3(4, 5, 6); const g: vec2f = vec2(1, 2); var k: mat2x2f = mat2x2(1.0, 2.0, 3.0, 4.0); let a: array<u32, 2> = array(7, 8); out[0] = f32(h.z) + g.y + k[1].x + f32(a[1]);",
  },
  {
    name: "private typed abstract inits",
    decls:
      "var<private> h: vec3u = vec3(4, 5, 6); var<private> m: mat2x2f = mat2x2(1.0, 2.0, 3.0, 4.0); const C: array<vec2u, 2> = array(vec2(1, 2), vec2(3, 4));",
    wg: "C[1].x",
    count: ["C[1].y - C[0].y", 2],
    body: "out[0] = f32(h.z) + m[1].x;",
  },
  {
    name: "fn-scope zero ctors",
    decls: "const K = 2u;",
    wg: "K",
    body:
      "let a = vec4f(); let b = mat4x4f(); let c = array<vec2i, 3>(); var d = u32(); out[0] = a.w + b[3].w + f32(c[2].y) + f32(d) + 1.0;",
  },
  {
    name: "override expression with vectors given",
    decls: "override S: u32 = 2u; const V = vec2u(1u, 3u);",
    wg: "S * V.y",
    body: "out[0] = f32(S);",
  },
];

/** Modules naga refuses (builtins its const evaluator does not implement): typed errors. */
export const REFUSED: readonly ConstSpec[] = [
  {
    name: "transpose",
    decls: "const a = mat2x3f(1, 2, 3, 4, 5, 6); const t = transpose(a);",
    wg: "u32(t[0].y)",
    count: ["u32(t[2].y)", 6],
    body: "out[0] = t[1].x; out[1] = t[2].x;",
  },
  {
    name: "determinant2",
    decls: "const a = mat2x2f(1, 2, 3, 4); const d = determinant(a);",
    wg: "u32(-d)",
    count: ["u32(d + 5.0)", 3],
    body: "out[0] = d;",
  },
  {
    name: "determinant3",
    decls: "const a = mat3x3f(2, 0, 0, 0, 3, 0, 1, 1, 1); const d = determinant(a);",
    wg: "u32(d)",
    count: ["u32(d)", 6],
    body: "out[0] = d;",
  },
  {
    name: "determinant4",
    decls: "const a = mat4x4f(1,0,0,0, 0,2,0,0, 0,0,1,0, 3,4,5,1);",
    wg: "u32(determinant(a))",
    count: ["u32(determinant(a) + 1.0)", 3],
    body: "out[0] = determinant(a);",
  },
  {
    name: "override default determinant",
    decls: "const m = mat2x2f(4, 0, 0, 1); override W = u32(determinant(m));",
    wg: "W",
    body: "out[0] = f32(W);",
  },
  {
    name: "fn-scope transpose det",
    decls: "const K = 2u;",
    wg: "K",
    body: "const t = transpose(mat2x2f(1, 2, 3, 4)); out[0] = t[0].y; out[1] = determinant(t);",
  },
  {
    name: "bitcast",
    decls: "const b = bitcast<u32>(1.0f);",
    wg: "(b >> 23u) - 125u",
    body: "out[0] = f32(b);",
  },
  {
    name: "pack unpack",
    decls: "const p = pack4x8unorm(vec4f(1, 0, 0, 0));",
    wg: "p - 253u",
    body: "out[0] = f32(p);",
  },
  {
    name: "modf frexp",
    decls: "const m = modf(2.5); const f = frexp(8.0);",
    wg: "u32(m.whole)",
    count: ["u32(f.exp)", 4],
    body: "out[0] = m.fract;",
  },
  {
    name: "ldexp quantize",
    decls: "const l = ldexp(1.0, 2); const q = quantizeToF16(1.0);",
    wg: "u32(l)",
    body: "out[0] = q;",
  },
  {
    name: "transpose then mul",
    decls: "const a = mat2x2f(1, 2, 3, 4); const v = transpose(a) * vec2f(1, 0);",
    wg: "u32(v.y)",
    count: ["u32(v.x) + 2u", 3],
    body: "out[0] = v.y;",
  },
  {
    name: "smoothstep",
    decls: "const s = smoothstep(0.0, 2.0, 1.0);",
    wg: "u32(s * 4.0)",
    body: "out[0] = s;",
  },
  {
    name: "reflect faceForward refract",
    decls: "const r = reflect(vec2f(1, -1), vec2f(0, 1));",
    wg: "u32(r.y)",
    body: "out[0] = r.x;",
  },
  {
    name: "faceForward",
    decls: "const r = faceForward(vec2f(1, 2), vec2f(1, 0), vec2f(1, 0));",
    wg: "u32(-r.y)",
    body: "out[0] = r.x;",
  },
  {
    name: "mix vec",
    decls:
      "const m = mix(vec2f(0, 2), vec2f(4, 6), 0.5); const n = mix(vec2f(0, 2), vec2f(4, 6), vec2f(0.5, 0.25));",
    wg: "u32(m.x)",
    count: ["u32(n.y)", 3],
    body: "out[0] = m.y;",
  },
  {
    name: "insertBits extractBits",
    decls: "const a = insertBits(0u, 3u, 4u, 2u); const b = extractBits(0xf0u, 4u, 3u);",
    wg: "a >> 3u",
    count: ["b", 7],
    body: "out[0] = f32(a);",
  },
  {
    name: "vec & | ^",
    decls:
      "const a = vec2u(6u, 3u) & vec2u(3u); const b = vec2u(6u, 3u) | 1u; const c = vec2(true, false) & vec2(true, true);",
    wg: "a.x",
    count: ["b.x ^ 4u", 3],
    body: "out[0] = select(0.0, 1.0, c.x);",
  },
  {
    name: "bool ops",
    decls: "const A = true & false; const B = true | false; const C = !A && B;",
    wg: "select(1u, 3u, C)",
    count: ["select(2u, 3u, B != A)", 3],
    body: "out[0] = 1.0;",
  },
];

/**
 * Modules naga runs that the runtime refuses with `UnsupportedError` naming the construct (`why`):
 * an abstract integer past 2^53 (naga's are i64; the runtime's doubles are not exact there), and
 * the builtins naga takes from the platform's math library (f32 trigonometry, hyperbolics).
 */
export const UNSUPPORTED: readonly (ConstSpec & { readonly why: RegExp })[] = [
  {
    name: "abstract int past 2^53",
    decls: "const X = 9007199254740993;",
    wg: "u32(X - 9007199254740990)",
    count: ["u32(X - 9007199254740989)", 4],
    body: "out[0] = 1.0;",
    why: /abstract integer beyond 2\^53/,
  },
  {
    name: "f32 sin in a workgroup size",
    decls: "const S = sin(1.0f);",
    wg: "u32(S * 64.0f)",
    body: "out[0] = S;",
    why: /sin\(\) of an f32 .*math library/,
  },
  {
    // glibc's atan2(1, 1) is π/4 as V8's, but other arguments differ in the last bit (wave 18:
    // exp(17.494), sin(15.976)), so only exact values are evaluated.
    name: "atan2 and exp of abstract floats in sizes (values not exact)",
    decls: "const T = atan2(1.0, 1.0); const E = exp(17.494);",
    wg: "u32(T * 4.0)",
    count: ["u32(E) - 39586548u", 4],
    body: "out[0] = f32(T);",
    why: /(atan2|exp)\(\) of an abstract float .*math library/,
  },
  {
    name: "sinh of an abstract float in a count",
    decls: "const H = sinh(1.0);",
    wg: "1u",
    count: ["u32(H * 4.0)", 4],
    body: "out[0] = f32(H);",
    why: /sinh\(\) is not evaluated .*math library/,
  },
];

/**
 * Const expressions in attributes and declarations the reflection reads: `@group`, `@binding`,
 * `@size`, `@align` and `@id` from matrix and vector consts, a workgroup array's count, a
 * storage struct's stride. `@id(u32(m[1].y) + 4u)` was not read as the override's id (its
 * parentheses), so `overrides: { "7": ... }` was refused.
 */
export const ATTRIBUTE_CASES: readonly CorpusCase[] = [
  {
    name: "binding/group from matrix consts",
    source: `const m = mat2x2f(0, 1, 2, 3);
const v = vec2u(1u, 2u) * 2u;
@group(u32(m[0].x)) @binding(u32(m[1].y) - 3u) var<storage, read_write> a: array<f32>;
@group(0) @binding(v.x / 2u) var<storage, read_write> b: array<f32>;
@group(0) @binding(dot(v, vec2u(1u, 0u))) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(1) fn main() { a[0] = 1.0; b[0] = 2.0; c[0] = 3.0; }`,
    plain: [
      B(0, 0, new Float32Array(4)),
      B(0, 1, new Float32Array(4)),
      B(0, 2, new Float32Array(4)),
    ],
    workgroups: [1, 1, 1],
  },
  {
    name: "size/align from consts in params",
    source: `const m = mat2x2f(16, 32, 4, 8);
const Z = vec3u();
struct P { @size(u32(m[0].y)) a: f32, @align(u32(m[0].x)) b: vec2f, @size(u32(m[1].x) * 4u + Z.x) c: u32, d: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = p.a; o[1] = p.b.y; o[2] = f32(p.c); o[3] = p.d; }`,
    plain: [
      B(
        0,
        0,
        (() => {
          const u = new Float32Array(20);
          u[0] = 1.5;
          u[8] = 2;
          u[9] = 3;
          new Uint32Array(u.buffer)[10] = 7;
          u[14] = 4.5;
          return u;
        })(),
        true,
      ),
      B(0, 1, new Float32Array(4)),
    ],
    workgroups: [1, 1, 1],
    params: { a: 1.5, b: [2, 3], c: 7, d: 4.5 },
  },
  {
    name: "override id from consts",
    source: `const m = mat2x2f(0, 1, 2, 3);
@id(u32(m[1].y) + 4u) override K: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = K; }`,
    plain: [B(0, 0, new Float32Array(4))],
    workgroups: [1, 1, 1],
    constants: { "7": 2.5 },
  },
  {
    name: "workgroup array count from matrix",
    source: `const m = mat2x2f(0, 1, 2, 4);
const W = u32(m[1].y) * 2u;
var<workgroup> tile: array<f32, u32(m[1].y) * 2u>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(W) fn main(@builtin(local_invocation_index) i: u32) {
  tile[i] = f32(i); workgroupBarrier(); o[i] = tile[W - 1u - i]; }`,
    plain: [B(0, 0, new Float32Array(8))],
    workgroups: [1, 1, 1],
  },
  {
    name: "storage struct stride from matrix count",
    source: `const m = mat2x2f(0, 1, 2, 3);
struct R { v: array<f32, u32(m[1].y)>, t: u32 }
@group(0) @binding(0) var<storage, read_write> o: array<R>;
@compute @workgroup_size(1) fn main() { for (var k = 0u; k < arrayLength(&o); k++) { o[k].v[2] = f32(k); o[k].t = k + 1u; } }`,
    plain: [B(0, 0, new Float32Array(4 * 5))],
    workgroups: [1, 1, 1],
  },
];
