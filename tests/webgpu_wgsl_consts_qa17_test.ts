/**
 * WGSL const expressions through the client, as on plain WebGPU (seventeenth QA wave).
 *
 * The runtime evaluates module-scope consts itself (workgroup sizes, array counts of params and
 * bindings, override defaults): matrices (`mat2x2f(1, 2, 3, 4)`, `m[1].x`, `m * v`, `m * m`),
 * vector operators and builtins, and the zero values `vec3f()`, `mat2x2f()`, `array<T, N>()`,
 * `S()` were refused ("mat2x2f() is not evaluated by the runtime"), valid WGSL that plain WebGPU
 * (naga) runs. Each case runs through the client bit-identical to plain WebGPU: the workgroups
 * launched, the params' layout and the values written. Builtins naga's const evaluator does not
 * implement (`transpose`, `determinant`, `mix`...) stay typed errors, and so does what the runtime
 * cannot evaluate exactly (an abstract integer past 2^53, `sin` of an f32, `sinh`).
 */
import assert from "node:assert/strict";
import { createClient, UnsupportedError } from "../mod.ts";
import { runPlain } from "./_plain_webgpu.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import {
  ACCEPTED,
  ATTRIBUTE_CASES,
  constCase,
  REFUSED,
  UNSUPPORTED,
} from "./_wgsl_consts_qa17_cases.ts";

await corpusTests(
  "seventeenth, const expressions",
  [...ACCEPTED.map(constCase), ...ATTRIBUTE_CASES],
  REFUSED.map(constCase),
);

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "const expressions the runtime cannot evaluate exactly are UnsupportedError, named",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const spec of UNSUPPORTED) {
      await t.step(spec.name, async () => {
        const c = constCase(spec);
        // Plain WebGPU runs it, so the refusal is the runtime's (the doc says so).
        await runPlain(c.source, c.plain, c.workgroups, c);
        await assert.rejects(
          () => client.compile({ source: c.source }),
          (e: Error) =>
            e instanceof UnsupportedError && /valid WGSL/.test(e.message) &&
            spec.why.test(e.message),
        );
      });
    }
  },
});

Deno.test({
  name: "an attribute argument the runtime cannot evaluate is refused, not left to the parser",
  ignore,
  async fn() {
    using client = await createClient();
    // The parser read `@binding(BB)` as 0 (a double), naga as 1 (an i64): the pipeline's layout
    // then lacked binding 1, a CompilationError for valid WGSL. `@size(X)` gave byte NaN.
    const cases = [
      {
        source: `const BB = u32(9007199254740993 - 9007199254740992);
@group(0) @binding(BB) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(1) fn main() { a[0] = 1.0; b[0] = 2.0; }`,
        plain: [
          { group: 0, binding: 1, buffer: new Float32Array(4) },
          { group: 0, binding: 2, buffer: new Float32Array(4) },
        ],
        why: /@binding\(BB\): an abstract integer beyond 2\^53/,
      },
      {
        source: `const X = u32(sinh(3.0) * 3.2);
struct P { @size(X) a: f32, b: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = p.a; o[1] = p.b; }`,
        plain: [
          { group: 0, binding: 0, buffer: new Float32Array(16), uniform: true },
          { group: 0, binding: 1, buffer: new Float32Array(4) },
        ],
        why: /@size\(X\): sinh\(\) is not evaluated/,
      },
    ];
    for (const c of cases) {
      await runPlain(c.source, c.plain, [1]); // naga runs it
      await assert.rejects(
        () => client.compile({ source: c.source }),
        (e: Error) =>
          e instanceof UnsupportedError && /valid WGSL/.test(e.message) && c.why.test(e.message),
      );
    }
  },
});
