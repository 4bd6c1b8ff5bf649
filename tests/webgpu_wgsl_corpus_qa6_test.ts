/**
 * The sixth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa6.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA6 } from "./_wgsl_corpus_qa6.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { REFUSED6 } from "./_wgsl_corpus_qa6_refused.ts";

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

Deno.test({
  name: "WGSL plain WebGPU refuses is refused by the client with a typed error (sixth wave)",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of REFUSED6) {
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
          `plain WebGPU refused (${plain}), the client: ${refused}`,
        );
      });
    }
  },
});
