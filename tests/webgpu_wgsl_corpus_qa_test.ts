/**
 * Real-world WGSL compute shaders (webgpu-samples, wgpu, naga's test inputs, tfjs-backend-webgpu,
 * onnxruntime-web, TVM/WebLLM, three.js, Bevy; `_wgsl_corpus_qa.ts`, each crediting its source)
 * run through the client bit-identical to the same WGSL run with plain WebGPU (`"auto"` layout,
 * bindings made by hand), with the launch the user would write: buffers in (group, binding)
 * order, params by field (by variable when there are several uniforms), overrides by name or by
 * `@id`, `threads` counted in invocations (so a misread workgroup size shows).
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { bytesOf, runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA } from "./_wgsl_corpus_qa.ts";
import { corpusSteps } from "./_wgsl_corpus_run.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "real-world WGSL compute shaders run through the client bit-identical to plain WebGPU",
  ignore,
  fn: (t) => corpusSteps(t, CORPUS_QA, adapter!),
});

Deno.test({
  name: "an @id override set both by its id and by its name is a KernelArgumentError naming both",
  ignore,
  async fn() {
    using client = await createClient();
    using data = client.zeros(4, "f32");
    const kernel = {
      source: `@id(7) override k: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> d: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { d[g.x] = k; }`,
    };
    assert.throws(
      () => client.execute(kernel, { threads: 4, buffers: [data], overrides: { "7": 2, k: 3 } }),
      (e) => e instanceof KernelArgumentError && /overrides\.7.*overrides\.k/.test(e.message),
    );
    client.execute(kernel, { threads: 4, buffers: [data], overrides: { "7": 2 } });
    assert.deepEqual(await client.read(data), new Float32Array([2, 2, 2, 2]));
  },
});

Deno.test({
  name: "a launch past 65,535 workgroups folds an entry point whose builtins have Unicode names",
  ignore,
  async fn() {
    // The fold read the parameter `índice` as `e` (ASCII \w): the rewritten kernel did not compile.
    using client = await createClient();
    const n = 70_001;
    using o = client.zeros(n, "u32");
    client.execute({
      source: `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn größe(@builtin(global_invocation_id) índice: vec3u, @builtin(num_workgroups) anzahl: vec3u) {
  if (índice.x < arrayLength(&o)) { o[índice.x] = índice.x * 3u + anzahl.y + (anzahl.x - 70001u); }
}`,
    }, { threads: n, buffers: [o] });
    const got = await client.read(o);
    assert.deepEqual(got, Uint32Array.from({ length: n }, (_, i) => i * 3 + 1));
  },
});

Deno.test({
  name: "a launch past 65,535 workgroups folds a kernel whose group-0 bindings end at 999",
  ignore,
  async fn() {
    // The fold's uniform took one past the highest binding: 1000, past WebGPU's
    // maxBindingsPerBindGroup, and the launch was a CompilationError. It takes a free one.
    using client = await createClient();
    const n = 70_000;
    using input = client.createWithData(Uint32Array.from({ length: n }, (_, i) => i * 7));
    using output = client.zeros(n, "u32");
    client.execute({
      source: `@group(0) @binding(998) var<storage, read> i: array<u32>;
@group(0) @binding(999) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&o)) { o[g.x] = i[g.x] + 5u; }
}`,
    }, { threads: n, buffers: [input, output] });
    assert.deepEqual(
      await client.read(output),
      Uint32Array.from({ length: n }, (_, i) => i * 7 + 5),
    );
  },
});

Deno.test({
  name: "WGSL plain WebGPU refuses on this adapter is refused by the client with a typed error",
  ignore,
  async fn() {
    // A subgroup scan after b0nes164/GPUPrefixSums, the same without `enable subgroups;`, and
    // pointer parameters WGSL allows only with unrestricted_pointer_parameters (naga refuses).
    const refused = [
      `enable subgroups;
@group(0) @binding(0) var<storage, read_write> scan: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) width: u32) {
  scan[g.x] = subgroupInclusiveAdd(scan[g.x]) + select(0u, width, lane == 0u);
}`,
      `@group(0) @binding(0) var<storage, read_write> scan: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) { scan[g.x] = subgroupAdd(scan[g.x]); }`,
      `@group(0) @binding(0) var<storage, read_write> scan: array<u32>;
fn bump(p: ptr<storage, u32, read_write>) { *p += 1u; }
@compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3u) { bump(&scan[g.x]); }`,
      `@group(0) @binding(0) var<storage, read_write> scan: array<u32>;
var<workgroup> sh: array<u32, 32>;
fn bump(p: ptr<workgroup, array<u32, 32>>, i: u32) { (*p)[i] += 1u; }
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32) { bump(&sh, i); scan[i] = sh[i]; }`,
    ];
    using client = await createClient();
    using scan = client.createWithData(Uint32Array.from({ length: 32 }, (_, i) => i));
    for (const source of refused) {
      const bindings = [{ group: 0, binding: 0, buffer: new Uint32Array(32) }];
      const plain = await runPlain(source, bindings, [1]).then(
        () => "ran",
        (e: Error) => e.message,
      );
      if (plain === "ran") {
        client.execute({ source }, { threads: 32, buffers: [scan] }); // the adapter runs it
        continue;
      }
      await assert.rejects(
        () => client.compile({ source }),
        (e) => e instanceof CompilationError || e instanceof UnsupportedError,
        source,
      );
    }
    // Still usable after the refusals.
    using ok = client.createWithData(Uint32Array.from({ length: 32 }, (_, i) => i));
    client.execute({
      source: `@group(0) @binding(0) var<storage, read_write> scan: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(local_invocation_index) i: u32) { scan[i] += 1u; }`,
    }, { threads: 32, buffers: [ok] });
    assert.equal((await client.read(ok))[31], 32);
  },
});

const CLIP_DISTANCES = "clip-distances" as GPUFeatureName;

Deno.test({
  name:
    "an `enable` of a render extension names its WebGPU feature (clip_distances: clip-distances)",
  // Deno's GPUFeatureName does not list it yet.
  ignore: ignore || !adapter!.features.has(CLIP_DISTANCES),
  async fn() {
    // A render+compute module whose vertex stage writes clip distances. The client looked for a
    // device feature 'clip_distances' (WGSL's spelling), which no device has: refused even on a
    // client created with the feature.
    const source = `enable clip_distances;
struct VOut { @builtin(position) pos: vec4f, @builtin(clip_distances) clip: array<f32, 1> }
@group(0) @binding(0) var<storage, read_write> planes: array<f32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> VOut {
  var o: VOut;
  o.pos = vec4f(f32(i), 0.0, 0.0, 1.0);
  o.clip[0] = 1.0;
  return o;
}
@compute @workgroup_size(4) fn cs(@builtin(global_invocation_id) g: vec3u) {
  planes[g.x] = planes[g.x] * 2.0 + 1.0;
}`;
    const data = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const [expected] = await runPlain(source, [{ group: 0, binding: 0, buffer: data }], [2], {
      entryPoint: "cs",
      features: [CLIP_DISTANCES],
    });
    using plain = await createClient();
    using h = plain.createWithData(data);
    assert.throws(
      () => plain.execute({ source, entryPoint: "cs" }, { threads: 8, buffers: [h] }),
      (e) =>
        e instanceof UnsupportedError && /'clip-distances'/.test(e.message) &&
        /the adapter offers it/.test(e.message),
    );
    using client = await createClient({ features: ["clip-distances"] });
    using planes = client.createWithData(data);
    client.execute({ source, entryPoint: "cs" }, { threads: 8, buffers: [planes] });
    assert.deepEqual(bytesOf(await client.read(planes)), expected);
  },
});
