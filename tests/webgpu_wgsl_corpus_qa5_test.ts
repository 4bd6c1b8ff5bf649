/**
 * The fifth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa5.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA5 } from "./_wgsl_corpus_qa5.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { REFUSED5 } from "./_wgsl_corpus_qa5_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "real-world WGSL compute shaders (fifth wave) run through the client like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_QA5) {
      await t.step({
        name: c.name,
        ignore: c.features?.some((f) => !adapter!.features.has(f)),
        fn: () => runCorpusCase(client, c),
      });
    }
  },
});

Deno.test({
  name: "WGSL plain WebGPU refuses is refused by the client with a typed error (fifth wave)",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of REFUSED5) {
      await t.step(c.name, async () => {
        const plain = await runPlain(c.source, c.plain, c.workgroups, c).then(
          () => undefined,
          (e: Error) => e.message,
        );
        assert.ok(plain !== undefined, "plain WebGPU runs it: move it to the corpus");
        const refused = await client.compile({ source: c.source, entryPoint: c.entryPoint }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(
          refused instanceof CompilationError || refused instanceof UnsupportedError ||
            refused instanceof KernelArgumentError,
          `plain WebGPU refused (${plain.split("\n")[1]}), the client: ${refused}`,
        );
      });
    }
    // Still usable after the refusals.
    using ok = client.createWithData(Uint32Array.from({ length: 32 }, (_, i) => i));
    client.execute({
      source: `@group(0) @binding(0) var<storage, read_write> d: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(local_invocation_index) i: u32) { d[i] += 1u; }`,
    }, { threads: 32, buffers: [ok] });
    assert.equal((await client.read(ok))[31], 32);
  },
});

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
