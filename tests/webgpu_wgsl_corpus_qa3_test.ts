/**
 * The third QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa3.ts`) run through the
 * client bit-identical to plain WebGPU, as `webgpu_wgsl_corpus_qa_test.ts` runs the first two.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA3 } from "./_wgsl_corpus_qa3.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { REFUSED3 } from "./_wgsl_corpus_qa3_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "real-world WGSL compute shaders (third wave) run through the client like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_QA3) {
      await t.step({
        name: c.name,
        ignore: c.features?.some((f) => !adapter!.features.has(f)),
        fn: () => runCorpusCase(client, c),
      });
    }
  },
});

Deno.test({
  name: "WGSL plain WebGPU refuses is refused by the client with a typed error (third wave)",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of REFUSED3) {
      await t.step(c.name, async () => {
        const plain = await runPlain(c.source, c.plain, c.workgroups, c).then(
          () => undefined,
          (e: Error) => e.message,
        );
        if (plain === undefined) return await runCorpusCase(client, c); // the adapter runs it
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
  name: "an enable after another directive on its line names the feature the device lacks",
  ignore: ignore || !adapter!.features.has("shader-f16"),
  async fn() {
    // Only an `enable` at the start of a line was read: `diagnostic(...); enable f16;` on one
    // line (minified WGSL) reached the device, a CompilationError instead of the
    // UnsupportedError naming 'shader-f16' that the same WGSL on two lines gets.
    using client = await createClient({ features: ["float32-filterable"] });
    for (
      const head of [
        "enable f16;",
        "diagnostic(off, derivative_uniformity); enable f16;",
        "requires readonly_and_readwrite_storage_textures;enable f16;",
      ]
    ) {
      const source = `${head}
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(1) fn main() { o[0] = 2.0h; }`;
      await assert.rejects(
        () => client.compile({ source }),
        (e) => e instanceof UnsupportedError && /'shader-f16'/.test(e.message),
        head,
      );
    }
  },
});
