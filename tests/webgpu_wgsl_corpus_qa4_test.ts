/**
 * The fourth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa4.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA4 } from "./_wgsl_corpus_qa4.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { REFUSED4 } from "./_wgsl_corpus_qa4_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "real-world WGSL compute shaders (fourth wave) run through the client like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_QA4) {
      await t.step({
        name: c.name,
        ignore: c.features?.some((f) => !adapter!.features.has(f)),
        fn: () => runCorpusCase(client, c),
      });
    }
  },
});

Deno.test({
  name: "WGSL plain WebGPU refuses is refused by the client with a typed error (fourth wave)",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of REFUSED4) {
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
  name:
    "params and overrides named like Object.prototype members, left out, are missing or default",
  ignore,
  async fn() {
    // `params.constructor` read Object.prototype's function: "must be a number (f32), got
    // function Object()" instead of naming the field as missing.
    using client = await createClient();
    const source = `struct U { constructor: f32, valueOf: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = u.constructor + f32(u.valueOf); }`;
    using o = client.zeros(1);
    for (
      const [params, missing] of [[{ valueOf: 1 }, "constructor"], [{ constructor: 1 }, "valueOf"]]
    ) {
      assert.throws(
        () => client.execute({ source }, { threads: 1, buffers: [o], params: params as never }),
        (e) =>
          e instanceof KernelArgumentError && e.message.includes(`params.${missing} is missing`),
      );
    }
    const bare = `@group(0) @binding(0) var<uniform> toString: f32;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = toString; }`;
    assert.throws(
      () => client.execute({ source: bare }, { threads: 1, buffers: [o], params: {} }),
      (e) => e instanceof KernelArgumentError && /params\.toString is missing/.test(e.message),
    );
    client.execute({ source }, {
      threads: 1,
      buffers: [o],
      params: { constructor: 2, valueOf: 3 },
    });
    assert.deepEqual([...await client.read(o)], [5]);
    // An override so named, left out, takes its default (it read Object's function: "is
    // function Object() { [native code] }: a f32 override takes a number").
    const overridden = `override constructor: f32 = 2.0;
override toString: u32;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = constructor + f32(toString); }`;
    client.execute({ source: overridden }, {
      threads: 1,
      buffers: [o],
      overrides: { toString: 5 },
    });
    assert.deepEqual([...await client.read(o)], [7]);
    assert.throws(
      () => client.execute({ source: overridden }, { threads: 1, buffers: [o], overrides: {} }),
      (e) => e instanceof KernelArgumentError && /overrides\.toString is required/.test(e.message),
    );
  },
});
