/**
 * The math library's functions of abstract floats in a size the runtime evaluates (eighteenth QA
 * wave). naga takes `exp`, `log`, `sin`, `cos`... of an abstract float from the platform's libm
 * (glibc), whose value is one ulp from V8's `Math` for some arguments (`exp(17.494)`,
 * `log(4.182)`, `sin(15.976)`, `cos(14.815)`): the runtime computed V8's, so
 * `@workgroup_size(select(8u, 16u, exp(17.494) == <glibc's value>))` read 8 where naga reads 16,
 * and a launch of `threads: 200` ran 25 workgroups of 8 where plain WebGPU's 13 of 16 cover
 * them (a size read too large instead leaves threads unrun, silently). Of f32 arguments, `exp`,
 * `exp2`, `log`, `log2` and `pow` (glibc's `expf`...) differ from V8's value rounded to f32 the
 * same way (`exp(-14.8953f)`...). The runtime now evaluates these functions only where the value
 * is exact, and refuses the rest by name.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** A kernel of `size` that writes each invocation's index and the launch's workgroup count. */
const probe = (size: string): CorpusCase => ({
  name: size,
  source: `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(${size})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (id.x < arrayLength(&o)) { o[id.x] = id.x + 1000u * n.x; }
}`,
  plain: [B(0, 0, new Uint32Array(200))],
  workgroups: [1, 1, 1],
  threads: 200,
});

/** The case with plain WebGPU's workgroups for 200 threads (its size measured by one workgroup). */
async function measured(c: CorpusCase): Promise<CorpusCase> {
  const [one] = await runPlain(c.source, c.plain, [1, 1, 1], c);
  const size = new Uint32Array(one.buffer, one.byteOffset, 200).filter((x) => x !== 0).length;
  return { ...c, workgroups: [Math.ceil(200 / size), 1, 1] };
}

Deno.test({
  name: "libm builtins of abstract floats: glibc's last bit is never guessed in a size",
  ignore,
  async fn() {
    using client = await createClient();
    // glibc's values (naga's), each one ulp from V8's.
    for (
      const [call, glibc] of [
        ["exp(17.494)", "0x1.2e057b8d89ba7p+25"],
        ["log(4.182)", "0x1.6e483a2fc7910p+0"],
        ["sin(15.976)", "-0x1.0f31e5e4bb794p-2"],
        ["cos(14.815)", "-0x1.41141d96e02d8p-1"],
      ]
    ) {
      const c = await measured(probe(`select(8u, 16u, ${call} == ${glibc})`));
      assert.equal(c.workgroups[0], 13, `${call}: naga's value is glibc's (a size of 16)`);
      const error = await runCorpusCase(client, c).then(() => undefined, (e: unknown) => e);
      assert.ok(
        (error instanceof CompilationError || error instanceof UnsupportedError) &&
          /math library/.test(error.message),
        `${call}: ${error ?? "the client ran it"}`,
      );
    }
  },
});

/** `v` as a WGSL hex float literal of f32 (`0x1.8p+3f`). */
function hexF32(v: number): string {
  const bits = new Uint32Array(Float32Array.of(v).buffer)[0];
  const exponent = ((bits >>> 23) & 0xff) - 127, mantissa = (bits & 0x7fffff) << 1;
  return `${bits >>> 31 ? "-" : ""}0x1.${mantissa.toString(16).padStart(6, "0")}p${exponent}f`;
}

Deno.test({
  name: "libm builtins of f32: glibc's last bit is never guessed in a size",
  ignore,
  async fn() {
    using client = await createClient();
    const calls = [
      "exp(-14.8953f)",
      "exp2(-7.3352f)",
      "log(2.4555f)",
      "log2(60.7824f)",
      "pow(3.6279f, 1.37f)",
    ];
    // naga's values (glibc's expf...), each one ulp from V8's rounded to f32.
    const code = `@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { ${calls.map((e, k) => `out[${k}] = ${e};`).join(" ")} }`;
    const [bytes] = await runPlain(code, [B(0, 0, new Float32Array(calls.length))], [1, 1, 1]);
    const naga = new Float32Array(bytes.buffer, bytes.byteOffset, calls.length);
    for (const [k, call] of calls.entries()) {
      const c = await measured(probe(`select(8u, 16u, ${call} == ${hexF32(naga[k])})`));
      assert.equal(c.workgroups[0], 13, `${call}: the literal is naga's value (a size of 16)`);
      const error = await runCorpusCase(client, c).then(() => undefined, (e: unknown) => e);
      assert.ok(
        (error instanceof CompilationError || error instanceof UnsupportedError) &&
          /math library/.test(error.message),
        `${call}: ${error ?? "the client ran it"}`,
      );
    }
  },
});

Deno.test({
  name: "libm builtins of abstract floats with exact values are evaluated as naga does",
  ignore,
  async fn() {
    using client = await createClient();
    for (
      const size of [
        "u32(exp2(4.0) + pow(2.0, 3.0))",
        "u32(log2(64.0) * pow(-1.5, 2.0) * 2.0) + u32(cos(0.0))",
        "u32(pow(3.0, 2.0) + exp(0.0) + log(1.0) + sin(0.0) + atan2(0.0, 2.0)) + 7u",
        "u32(exp2(3.0f) + pow(2.0f, 2.0f) * log2(4.0f)) + u32(exp(0.0f))",
      ]
    ) {
      await runCorpusCase(client, await measured(probe(size)));
    }
  },
});
