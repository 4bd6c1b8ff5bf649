/**
 * Reflection defects the twelfth QA wave's WGSL corpus (`_wgsl_corpus_qa12.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";

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

Deno.test({
  name: "a predeclared type or builtin name shadowed by a user declaration is read",
  // Not fixed (found late in wave 12): WGSL lets a declaration shadow a predeclared name, and
  // naga compiles these modules, but wgsl_reflect takes the names for its types and builtins
  // ("the runtime's WGSL reflection cannot read line 2"). Names of that kind the runtime renames
  // for the parser (`_wgsl_source.ts`, KEYWORD_NAMES) cannot be renamed blindly here: `vec2` and
  // `bitcast` still name the type and the builtin where nothing shadows them.
  ignore: true,
  fn() {
    const body = (decl: string, use: string) =>
      `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
${decl}
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { ${use} }`;
    for (
      const source of [
        body("fn vec2(x: u32) -> u32 { return x + 1u; }", "o[i] = vec2(i);"),
        body("fn i32(x: u32) -> u32 { return x + 1u; }", "o[i] = i32(i);"),
        body("fn sampler(x: u32) -> u32 { return x + 1u; }", "o[i] = sampler(i);"),
        body("", "let bitcast = i * 2u; o[i] = bitcast;"),
        body("", "let texture_2d = i * 2u; o[i] = texture_2d;"),
      ]
    ) {
      assert.deepEqual(reflectKernel({ source }).bindings.map((b) => b.name), ["o"], source);
    }
  },
});
