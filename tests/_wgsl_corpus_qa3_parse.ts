/**
 * QA wave 3, constructs a WGSL reader can misread: shadowed predeclared type names (Tint's
 * shadowing tests), comments inside attributes and templates, declarations after their use,
 * aliases of array types, `arrayLength` through a `let` pointer, override expressions in
 * `@workgroup_size`, member names equal to binding names; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

export const PARSE3: readonly CorpusCase[] = [
  {
    // After Tint's test/tint/shadowing/short_names/ (https://dawn.googlesource.com/dawn/+/refs/heads/main/test/tint/shadowing/short_names/):
    // module-scope aliases named like predeclared ones (`vec4f`, `vec2f`) with other types:
    // `array<vec4f>` holds i32 vectors here, `array<vec2f>` 16-byte f32 vectors.
    name: "Tint shadowing: aliases named vec4f/vec2f with other types (element types and strides)",
    source: /* wgsl */ `
alias vec4f = vec4<i32>;
alias vec2f = vec4<f32>;
@group(0) @binding(0) var<storage, read_write> ints: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> wide: array<vec2f>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let v: vec4f = ints[g.x];
  ints[g.x] = v * 3 - vec4f(1);
  wide[g.x] = vec2f(wide[g.x].wzyx) + vec2f(f32(g.x));
}`,
    plain: [B(0, 0, Int32Array.from(u(32, 1000), (x) => x - 500)), B(0, 1, f(32, 0.5))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // After Tint's test/tint/shadowing/ (function/param.wgsl, struct/...): a function
    // parameter named like a binding, a struct member named like another entry point's
    // binding (`p.other`), a local named like a type (`let f32x = ...`); only `data`, `out`
    // and `k` are in this entry point's layout.
    name: "Tint shadowing: parameters and struct members named like bindings, one entry's layout",
    entryPoint: "main",
    source: /* wgsl */ `
struct Pair { other: f32, data: f32 }
@group(0) @binding(0) var<storage, read> data: array<Pair>;
@group(0) @binding(1) var<storage, read_write> other: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> k: f32;
fn scale(other: f32, data: f32) -> f32 { let f32x = other * data; return f32x; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let p = data[g.x];
  out[g.x] = scale(p.other, p.data) + k;
}
@compute @workgroup_size(8)
fn side(@builtin(global_invocation_id) g: vec3u) { other[g.x] = 1.0; }`,
    plain: [B(0, 0, f(32, 0.25)), B(0, 2, new Float32Array(16)), B(0, 3, w({ f: 0.5 }), true)],
    workgroups: [2, 1, 1],
    threads: 16,
    params: { k: 0.5 },
  },
  {
    // After the WGSL spec's grammar (comments are blankspace anywhere between tokens,
    // https://www.w3.org/TR/WGSL/#comments) and generated code that annotates every token:
    // comments inside `@binding ( )`, inside `var< >` and `array< >`, between `@compute` and
    // `fn`, and a trailing comma in `@workgroup_size`.
    name: "comments inside attributes, var<...> and array<...>, trailing comma in workgroup_size",
    source: /* wgsl */ `
@group /* g */ ( 0 ) @binding /* b */ ( 1 )
var /* v */ < storage /* s */ , /* a */ read_write > out /* o */ : array< /* t */ f32 /* e */ >;
@group(0) @binding(0) var<storage, // a line comment inside the template list
  read> inp: array<vec2</* c */f32>>;
@compute // the stage
@workgroup_size(8 /* x */, /* y */ 1, /* z */ 1,) // trailing comma
fn /* name */ main(@builtin(global_invocation_id) /* id */ g: vec3u) {
  out[g.x] = inp[g.x].x * /* not */ 2.0 - inp[g.x].y;
}`,
    plain: [B(0, 0, f(32, 0.5)), B(0, 1, new Float32Array(16))],
    workgroups: [2, 1, 1],
    threads: 16,
  },
  {
    // After naga's tests/in/wgsl/type-alias.wgsl and module-scope order independence
    // (https://www.w3.org/TR/WGSL/#declaration-and-scope): bindings declared before the alias
    // and struct they use, an alias of a runtime array, `array<Mat>` of mat2x3f (stride 32),
    // a struct of a vec3f and an f32 through an alias (stride 16).
    name: "declarations after use: alias of a runtime array, array<alias of mat2x3f>, late struct",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> cols: Columns;
@group(0) @binding(1) var<storage, read_write> items: array<Item>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let m: Mat = cols[g.x];
  items[g.x].pos = m[0] + m[1] * items[g.x].w;
  items[g.x].w = f32(arrayLength(&cols)) + f32(arrayLength(&items));
}
alias Columns = array<Mat>;
alias Item = Late;
struct Late { pos: vec3f, w: f32 }
alias Mat = mat2x3f;`,
    plain: [B(0, 0, f(8 * 8, 0.25)), B(0, 1, f(8 * 4, 0.5))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // After the WGSL spec's arrayLength example ("arrayLength(&s.items)", § Array length)
    // and Dawn's ComputeLayoutMemoryBufferTests: a runtime array of structs with @align and
    // @size members after an @align(32) header (items at byte 32, stride 48), the length
    // taken through a `let` pointer and through a pointer to the member.
    name: "arrayLength through let pointers, runtime array of @size/@align structs at byte 32",
    source: /* wgsl */ `
struct Item { @align(16) a: f32, @size(12) b: u32, c: vec2f }
struct Buf { count: u32, @align(32) items: array<Item> }
@group(0) @binding(0) var<storage, read_write> buf: Buf;
@group(0) @binding(1) var<storage, read_write> flat: array<f32>;
@compute @workgroup_size(1)
fn main() {
  let p = &buf;
  let q = &(*p).items;
  let n = arrayLength(q);
  (*p).count = n * 100u + arrayLength(&flat);
  for (var i = 0u; i < n; i++) {
    let it = &buf.items[i];
    (*it).a = (*it).c.x + (*it).c.y + f32((*it).b);
    flat[i % arrayLength(&flat)] += (*it).a;
  }
}`,
    plain: [B(0, 0, w(...u(8 + 12 * 5, 64))), B(0, 1, f(3))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // After the WGSL spec's override examples (§ Override declarations) and Dawn's
    // ShaderTests.OverridableConstantsWorkgroupSize: `@workgroup_size` of override
    // expressions (`tile * 2u`, `rows / 2u`), an override-sized workgroup array of an
    // override expression, overrides given by @id and by name.
    name: "override expressions in @workgroup_size and a workgroup array size (ids and names)",
    source: /* wgsl */ `
@id(7) override tile: u32 = 4u;
override rows: u32 = 2u;
override total = tile * 2u * (rows / 2u);
var<workgroup> sh: array<u32, total>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(tile * 2u, rows / 2u)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u,
        @builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  sh[li] = g.x * 1000u + g.y;
  workgroupBarrier();
  let width = n.x * tile * 2u;
  out[g.y * width + g.x] = sh[total - 1u - li] + wg.x * 7u + total;
}`,
    plain: [B(0, 0, new Uint32Array(6 * 2 * 3 * 2))],
    workgroups: [2, 3, 1],
    threads: [12, 6],
    constants: { "7": 3, rows: 4 },
  },
  {
    // After the WebGPU spec's pipeline-overridable constants reached through a `var<private>`
    // initializer (an override-expression, https://www.w3.org/TR/WGSL/#var-and-value): `scale`
    // has no default and is used by this entry point only through `p`; `unused` (no default)
    // only through the other entry point's `q`, so it need not be given.
    name:
      "an override reached only through a var<private> initializer, another only by another entry",
    source: /* wgsl */ `
override scale: f32;
override unused: f32;
var<private> p: f32 = scale * 2.0;
var<private> q: f32 = unused;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = o[g.x] + p; }
@compute @workgroup_size(4) fn other(@builtin(global_invocation_id) g: vec3u) { o[g.x] = q; }`,
    entryPoint: "main",
    plain: [B(0, 0, f(8))],
    workgroups: [2, 1, 1],
    threads: 8,
    constants: { scale: 1.5 },
  },
  {
    // Orillusion's ComputeShader test and its docs' post-processing guide (the same module in
    // both, https://github.com/Orillusion/orillusion, docs "Compute Shader"): a uniform of an
    // f32 and a vec3<f32> (at byte 16, 32 bytes in all; the engine fills 28), textureLoad at
    // negative coordinates, an rgba16float storage texture written, entry point `CsMain`.
    name: "Orillusion GaussianBlur compute (f32 then vec3 uniform, rgba16float storage texture)",
    source: /* wgsl */ `
        struct GaussianBlurArgs {
            radius: f32,
            retain: vec3<f32>,
        };

        @group(0) @binding(0) var<uniform> args: GaussianBlurArgs;
        @group(0) @binding(1) var colorMap: texture_2d<f32>;
        @group(0) @binding(2) var resultTex: texture_storage_2d<rgba16float, write>;

        @compute @workgroup_size(8, 8)
        fn CsMain( @builtin(global_invocation_id) globalInvocation_id: vec3<u32>) {
            var pixelCoord = vec2<i32>(globalInvocation_id.xy);

            var value = vec4<f32>(0.0);
            var count = 0.0;
            let radius = i32(args.radius);
            for (var i = -radius; i < radius; i += 1) {
            for (var j = -radius; j < radius; j += 1) {
                var offset = vec2<i32>(i, j);
                value += textureLoad(colorMap, pixelCoord + offset, 0);
                count += 1.0;
            }
            }

            let result = value / count;
            textureStore(resultTex, pixelCoord, result);
        }`,
    plain: [
      B(0, 0, new Float32Array([2, 0, 0, 0, 0.5, 0.25, 0.125, 0]), true),
      T(0, 1, 16, 16, "rgba8unorm", Uint8Array.from(u(16 * 16 * 4, 256))),
      T(0, 2, 16, 16, "rgba16float", undefined, true),
    ],
    workgroups: [2, 2, 1],
    threads: [16, 16],
    params: { radius: 2, retain: [0.5, 0.25, 0.125] },
  },
];
