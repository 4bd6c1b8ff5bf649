/**
 * The fourth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa4.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError } from "../mod.ts";
import { CORPUS_QA4 } from "./_wgsl_corpus_qa4.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED4 } from "./_wgsl_corpus_qa4_refused.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

await corpusTests("fourth", CORPUS_QA4, REFUSED4);

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
