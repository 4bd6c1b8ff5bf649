/**
 * Reflection defects the twelfth QA wave's WGSL corpus (`_wgsl_corpus_qa12.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";
import { createClient, CubeCount } from "../mod.ts";

Deno.test("a condition that starts with a parenthesized operand is read (if, while, switch, break if)", () => {
  // vello's binning and clip_leaf write `if (out_mask & my_mask) != 0u {`: wgsl_reflect took
  // the condition to end at its `)` ("Expected '{' for block"), so valid WGSL was a
  // CompilationError ("the runtime's WGSL reflection cannot read line ..."). Each binding here
  // is used only in such a condition, so each must be read for the layout to hold it.
  const source = `@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read> c: array<u32>;
@group(0) @binding(3) var<storage, read> d: array<u32>;
@group(0) @binding(4) var<storage, read> e: array<u32>;
@group(0) @binding(5) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
  var k = 0u;
  if (a[i] & 1u) != 0u {
    k = 1u;
  } else if (b[i]) > 2u {
    k = 2u;
  } else if (k == 0u) {
    k = 3u;
  }
  while (c[k]) < 4u && k < 8u { k += 1u; }
  switch (d[i]) + 1u { case 1u: { k += 10u; } default: {} }
  loop {
    k += 1u;
    continuing { break if (e[0]) + k > 20u; }
  }
  if (k > 5u)
  {
    o[i] = k;
  }
}`;
  const reflected = reflectKernel({ source });
  assert.deepEqual(reflected.bindings.map((x) => x.name), ["a", "b", "c", "d", "e", "o"]);
  assert.deepEqual(reflected.workgroupSize, [4, 1, 1]);
});

const body = (decl: string, use: string, name = "o") =>
  `@group(0) @binding(0) var<storage, read_write> ${name}: array<u32>;
${decl}
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { ${use} }`;

/** Modules that shadow a predeclared name (WGSL allows it; naga compiles them), and `o[i]` of `i`. */
const SHADOWING = [
  {
    source: body("fn vec2(x: u32) -> u32 { return x + 1u; }", "o[i] = vec2(i);"),
    f: (i: number) => i + 1,
  },
  {
    source: body("fn i32(x: u32) -> u32 { return x + 1u; }", "o[i] = i32(i);"),
    f: (i: number) => i + 1,
  },
  {
    source: body("fn sampler(x: u32) -> u32 { return x + 1u; }", "o[i] = sampler(i);"),
    f: (i: number) => i + 1,
  },
  { source: body("", "let bitcast = i * 2u; o[i] = bitcast;"), f: (i: number) => i * 2 },
  { source: body("", "let texture_2d = i * 2u; o[i] = texture_2d;"), f: (i: number) => i * 2 },
  { source: body("const vec3 = 7u;", "o[i] = i + vec3;"), f: (i: number) => i + 7 },
];

Deno.test("a predeclared type or builtin name shadowed by a user declaration is read", () => {
  // wgsl_reflect took the names for its types and builtins ("the runtime's WGSL reflection
  // cannot read line 2"); the text it parses now has them renamed (`_wgsl_shadowed.ts`).
  for (const { source } of SHADOWING) {
    assert.deepEqual(reflectKernel({ source }).bindings.map((b) => b.name), ["o"], source);
  }
  // A binding named like one: its name as the user wrote it (buffers by name).
  const named = body("", "bitcast[i] = i;", "bitcast");
  assert.deepEqual(reflectKernel({ source: named }).bindings.map((b) => b.name), ["bitcast"]);
  // Where the predeclared meaning is used too (a template list), nothing is renamed: the
  // texture type stays a type.
  const both = `@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = textureLoad(t, vec2u(0u), 0).x; }`;
  const reflected = reflectKernel({ source: both }).bindings;
  assert.deepEqual(reflected.map((b) => b.name), ["t", "o"]);
});

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "kernels that shadow a predeclared name run through the client",
  ignore: adapter === null || adapter === undefined,
  async fn() {
    using client = await createClient({ backend: "webgpu" });
    for (const { source, f } of SHADOWING) {
      using o = client.createBytes(16);
      client.execute({ source }, { count: CubeCount.new1d(1), buffers: [o] });
      const got = [...new Uint32Array((await client.read(o)).buffer)];
      const want = [0, 1, 2, 3].map(f);
      assert.deepEqual(got, want, source);
    }
  },
});
