/**
 * The WGSL of kernels whose results are specified bit for bit keeps its products apart from the
 * sums after them: WGSL lets a device fuse `a * b + c` into one FMA (NVIDIA's Vulkan driver did on
 * an H200: `random`'s uniform floats an ulp off, a histogram edge that overflows f32 back in
 * range). llvmpipe does not fuse, so the data tests pass here either way; this checks the text.
 */
import assert from "node:assert/strict";
import { randomWgsl } from "../runtime/kernels/random/_random_wgsl.ts";
import { countWgsl } from "../runtime/kernels/histogram/_histogram_wgsl.ts";

Deno.test("random's uniform floats and histogram's edges round their products apart", () => {
  const uniform = randomWgsl("uniform").source;
  assert.match(uniform, /mul_rn\(vec4f\(unit\(words\.x\)/);
  assert.doesNotMatch(uniform, /\* params\.b \+ params\.a/);
  for (const shared of [false, true]) {
    const histogram = countWgsl("histogram", shared).source;
    assert.match(histogram, /params\.low \+ mul_rn\(f32\(k\), params\.width\)/);
    assert.doesNotMatch(histogram, /params\.low \+ f32\(k\) \* params\.width/);
  }
  for (const text of [uniform, countWgsl("histogram", false).source]) {
    // the product's bits pass through an OR with a uniform zero no compiler can see through
    assert.match(
      text,
      /fn mul_rn\([^)]*\)[^{]*\{ return bitcast<[^>]+>\(bitcast<[^>]+>\(a \* b\) \| [^)]*params\.zero\)*; \}/,
    );
  }
});

Deno.test("histogram's subnormal-edge kernel compares keys of the bits, never floats", () => {
  for (const shared of [false, true]) {
    const text = countWgsl("histogram_edges", shared).source;
    assert.match(text, /var<storage, read> edges: array<u32>/);
    assert.match(text, /let x = key\(x_in\[i\]\);/);
    assert.match(text, /edges\[mid\] <= x/);
    assert.doesNotMatch(text, /params\.(low|high|width)/, "no float edge in this kernel");
  }
});
