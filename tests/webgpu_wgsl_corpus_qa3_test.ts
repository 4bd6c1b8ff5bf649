/**
 * The third QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa3.ts`) run through the
 * client bit-identical to plain WebGPU, as `webgpu_wgsl_corpus_qa_test.ts` runs the first two.
 */
import assert from "node:assert/strict";
import { createClient, UnsupportedError } from "../mod.ts";
import { CORPUS_QA3 } from "./_wgsl_corpus_qa3.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED3 } from "./_wgsl_corpus_qa3_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

await corpusTests("third", CORPUS_QA3, REFUSED3, { plainMayRun: true });

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
