/**
 * The fifth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa5.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { CORPUS_QA5 } from "./_wgsl_corpus_qa5.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED5 } from "./_wgsl_corpus_qa5_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

await corpusTests("fifth", CORPUS_QA5, REFUSED5);

Deno.test({
  name: "a float override or const in @workgroup_size is read as the device holds it",
  ignore,
  async fn() {
    // `override WG: f32` given 2.9999999 is 3.0 on the device (an f32), so `u32(WG)` is 3; the
    // runtime read the unrounded number (2) and launched `threads: 6` as 3 groups: 9
    // invocations, 3 past the 6 asked for, silently (a `const WG: f32 = 2.9999999;`, an f16
    // 2.9995 likewise).
    using client = await createClient();
    const source = (decl: string) =>
      `${decl}
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(u32(WG))
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (g.x < arrayLength(&o)) { o[g.x] = n.x * 100u + u32(WG); }
}`;
    const runs: [string, Record<string, number> | undefined][] = [
      ["override WG: f32;", { WG: 2.9999999 }],
      ["override WG: f32 = 2.9999999;", undefined],
      ["const WG: f32 = 2.9999999;", undefined],
      ["const V: vec2<f32> = vec2(2.9999999, 1.0);\nconst WG = V.x;", undefined],
      ["const A: array<f32, 2> = array(1.0, 2.9999999);\nconst WG = A[1];", undefined],
      // Through an alias: the override was refused ("has type real"), the const read as 2.
      ["alias real = f32;\noverride WG: real;", { WG: 2.9999999 }],
      ["alias real = f32;\nconst WG: real = 2.9999999;", undefined],
    ];
    if (adapter!.features.has("shader-f16")) {
      runs.push(["enable f16;\noverride WG: f16;", { WG: 2.9995 }]);
      runs.push(["enable f16;\nconst WG: f16 = 2.9995;", undefined]);
    }
    for (const [decl, overrides] of runs) {
      using o = client.createWithData(new Uint32Array(9));
      client.execute({ source: source(decl) }, { threads: 6, buffers: [o], overrides });
      assert.deepEqual([...await client.read(o)], [203, 203, 203, 203, 203, 203, 0, 0, 0], decl);
    }
  },
});
