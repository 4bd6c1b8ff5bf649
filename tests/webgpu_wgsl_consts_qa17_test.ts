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
