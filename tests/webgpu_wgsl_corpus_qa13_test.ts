/**
 * The thirteenth QA wave's WGSL (`_wgsl_corpus_qa13.ts`), found by a bulk differential sweep of
 * Tint's and naga's WGSL tests, runs through the client bit-identical to plain WebGPU; those plain
 * WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError } from "../mod.ts";
import { CORPUS_QA13, GATHER_U32, REFUSED13 } from "./_wgsl_corpus_qa13.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";

await corpusTests("thirteenth", CORPUS_QA13, REFUSED13);

Deno.test({
  name: "a sampler the WGSL gathers an integer texture with must not filter (KernelArgumentError)",
  ignore: (await navigator.gpu?.requestAdapter()) == null,
  async fn() {
    using client = await createClient();
    using out = client.createWithData(new Uint32Array(4));
    const texels = Uint8Array.from({ length: 8 * 8 * 4 }, (_, i) => (i * 29) % 251);
    using texture = client.createTexture({
      width: 8,
      height: 8,
      format: "rgba8uint",
      data: texels,
    });
    const launch = (magFilter: "linear" | "nearest") =>
      client.execute({ source: GATHER_U32 }, {
        threads: 1,
        buffers: [out, texture],
        samplers: { arg_2: { magFilter } },
      });
    // (A string third argument is node:assert's failure message, not a match: check the name.)
    assert.throws(
      () => launch("linear"),
      (e) => e instanceof KernelArgumentError && e.argument === "samplers.arg_2.magFilter",
    );
    launch("nearest"); // still usable; a sampler that does not filter binds
    assert.notDeepEqual(await client.read(out), new Uint32Array(4));
  },
});
