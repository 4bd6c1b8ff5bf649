/**
 * The browser suite's group for the fourth QA wave's WGSL corpus (`tests/_wgsl_corpus_qa4.ts`):
 * each case through the client and through a plain WebGPU program in the page, compared bit for
 * bit, where Chrome's Tint compiles the WGSL (the Deno tests run naga). Tint's uniformity
 * analysis is stricter than naga's: a case it refuses in plain WebGPU is skipped with the reason.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { runPlain } from "../_plain_webgpu.ts";
import { CORPUS_QA4 } from "../_wgsl_corpus_qa4.ts";
import { runCorpusCase } from "../_wgsl_corpus_run.ts";
import { type PageTestContext, Skip } from "./_page_harness.ts";

/**
 * Cases the client cannot run under Tint yet, with why. The client compiles read-only storage
 * widened to `read_write` (`widenReadOnlyStorage`), and Tint's uniformity analysis takes a load
 * from `read_write` storage as non-uniform: a barrier under a branch on a read-only storage
 * value, valid WGSL, no longer compiles (naga does not check this, so Deno runs it).
 */
export const CLIENT_TINT_DEFECTS: Readonly<Record<string, string>> = {
  "gridnet moments (barriers under a branch on a read-only storage u32)":
    "widened to read_write, the branch on isFirst is non-uniform for Tint",
};

/** The group, by name, for `runGroups`. */
export const qa4Group = {
  "WGSL corpus, fourth wave: bit-identical to plain WebGPU in the page": async (
    t: PageTestContext,
  ) => {
    const adapter = (await navigator.gpu.requestAdapter())!;
    using client = await createClient();
    for (const c of CORPUS_QA4) {
      await t.step(c.name, async () => {
        if (c.features?.some((f) => !adapter.features.has(f))) throw new Skip("feature");
        const plain = await runPlain(c.source, c.plain, c.workgroups, c).then(
          () => undefined,
          (e: Error) => e.message,
        );
        if (plain !== undefined) throw new Skip(`Tint refuses it: ${plain.split("\n")[1]}`);
        const defect = CLIENT_TINT_DEFECTS[c.name];
        if (defect === undefined) return await runCorpusCase(client, c);
        // Still failing as described (once it runs, take it off the list).
        const error = await runCorpusCase(client, c).then(() => undefined, (e: Error) => e);
        assert.ok(/uniform control flow/.test(String(error)), `${c.name}: ${error}`);
        throw new Skip(`known defect: ${defect}`);
      });
    }
  },
};
