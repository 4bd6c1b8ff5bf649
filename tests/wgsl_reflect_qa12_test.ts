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
