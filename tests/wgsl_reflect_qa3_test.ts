/**
 * Reflection defects the third QA wave's WGSL corpus (`_wgsl_corpus_qa3.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel, widenReadOnlyStorage } from "../runtime/server/webgpu/compile/_reflect.ts";
import { CompilationError, UnsupportedError } from "../backend.ts";

const compilationError = (pattern: RegExp) => (error: unknown) =>
  error instanceof CompilationError && pattern.test(error.message);

Deno.test("a texture and a storage texture at one binding, each used by one entry point", () => {
  // After webgpu-samples' particles/probabilityMap.wgsl: a CompilationError ("@binding(3) is
  // declared twice") for either entry point; plain WebGPU's "auto" layout has only the one used.
  const source = `@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var tex_in: texture_2d<f32>;
@group(0) @binding(3) var tex_out: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1) fn import_level() { out[0] = textureLoad(tex_in, vec2i(0), 0).w; }
@compute @workgroup_size(1) fn export_level() { textureStore(tex_out, vec2i(0), vec4f(out[0])); }
@compute @workgroup_size(1) fn both() {
  textureStore(tex_out, vec2i(0), textureLoad(tex_in, vec2i(0), 0));
}`;
  const kinds = (entryPoint: string) =>
    reflectKernel({ source, entryPoint }).resources.map((b) => [b.binding, b.texture?.kind]);
  assert.deepEqual(kinds("import_level"), [[0, undefined], [3, "sampled"]]);
  assert.deepEqual(kinds("export_level"), [[0, undefined], [3, "storage"]]);
  // One entry point using both is still refused, as plain WebGPU refuses it.
  assert.throws(
    () => reflectKernel({ source, entryPoint: "both" }),
    compilationError(/@group\(0\) @binding\(3\) is declared twice/),
  );
});

Deno.test("read-only storage with comments or a trailing comma in var<...> is widened", () => {
  // A comment inside the template list left the declaration read-only in the compiled module
  // while the layout the runtime made had it writable: every launch failed to compile
  // ("Storage class ... doesn't match the shader"). Lines are kept; comments elsewhere stay.
  const source = `@group(0) @binding(0) var<storage, // the input
  read> a: array<f32>;
@group(0) @binding(1) var /* v */ < storage /* s */ , /* a */ read > b: array<f32>;
@group(0) @binding(2) var<storage, read,> c: array<f32>;
@group(0) @binding(3) var<storage,> d: array<f32>; // var<storage> e
@group(0) @binding(4) var<storage, read_write> f: array<f32>;`;
  assert.equal(
    widenReadOnlyStorage(source),
    `@group(0) @binding(0) var<storage, read_write>
 a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> d: array<f32>; // var<storage> e
@group(0) @binding(4) var<storage, read_write> f: array<f32>;`,
  );
  assert.deepEqual(
    reflectKernel({
      source: source +
        "\n@compute @workgroup_size(1) fn main() { f[0] = a[0] + b[0] + c[0] + d[0]; }",
    }).storage.map((b) => b.access),
    ["read", "read", "read", "read", "read_write"],
  );
});

Deno.test("an error names the line of the declaration, not of a commented-out one above it", () => {
  // The line was found in the raw source: a commented-out older declaration (common in real
  // shaders) was taken for the binding's, and a name ending in a non-ASCII letter was not found.
  const source = `// @group(0) @binding(0) var<uniform> k: array<f32, 4>;
/* @group(0) @binding(3) var tex: texture_depth_2d; */
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(0) var<uniform> k: array<f32, 4>;
@compute @workgroup_size(1) fn main() { o[0] = k[0]; }`;
  assert.throws(
    () => reflectKernel({ source }),
    (e) => e instanceof CompilationError && e.line === 4 && /element stride of 4/.test(e.message),
  );
  const texture = `/* @group(0) @binding(3) var tex: texture_external; */
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(3) var tex: texture_external;
@compute @workgroup_size(1) fn main() { o[0] = f32(textureDimensions(tex).x); }`;
  assert.throws(
    () => reflectKernel({ source: texture }),
    (e) => e instanceof UnsupportedError && /tex: texture_external \(line 3\)/.test(e.message),
  );
  const unicode = `@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(0)
var<uniform> größe: array<f32, 4>;
@compute @workgroup_size(1) fn main() { o[0] = größe[0]; }`;
  assert.throws(
    () => reflectKernel({ source: unicode }),
    (e) => e instanceof CompilationError && e.line === 3,
  );
});

Deno.test("a > or >> inside parentheses in a template list or @workgroup_size is no delimiter", () => {
  // Counted as closing the template: `array<f32, (N >> 1u)>` was sized as written by the parser
  // (a 20-byte struct of 32), and `@workgroup_size(select(4u, 8u, N > 4u), 2)` was one
  // argument, "cannot evaluate". WGSL's template list discovery tells them apart.
  const kernel = reflectKernel({
    source: `const N = 8u;
struct S { a: array<f32, (N >> 1u)>, b: array<u32, select(1u, 3u, N > 4u)>, c: f32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@group(0) @binding(1) var<uniform> k: array<vec4f, max(1u, (N >> 2u))>;
@compute @workgroup_size(select(4u, 8u, N > 4u), (N >> 2u), 1)
fn main(@builtin(global_invocation_id) g: vec3u) { s[g.x].c = s[g.x].a[3] + k[1].w; }`,
  });
  assert.deepEqual(kernel.workgroupSize, [8, 2, 1]);
  assert.deepEqual(kernel.bindings.map((b) => [b.name, b.minSize, b.stride]), [
    ["s", 32, 32],
    ["k", 32, 0],
  ]);
});
