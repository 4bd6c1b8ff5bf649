/**
 * The sixth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa6.ts`) run through the
 * client bit-identical to plain WebGPU.
 */
import { createClient } from "../mod.ts";
import { CORPUS_QA6 } from "./_wgsl_corpus_qa6.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "real-world WGSL compute shaders (sixth wave) run through the client like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_QA6) {
      await t.step({
        name: c.name,
        ignore: c.features?.some((f) => !adapter!.features.has(f)),
        fn: () => runCorpusCase(client, c),
      });
    }
  },
});
