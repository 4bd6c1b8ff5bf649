/**
 * The twelfth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa12.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import assert from "node:assert/strict";
import { runPlain } from "./_plain_webgpu.ts";
import { CORPUS_QA12 } from "./_wgsl_corpus_qa12.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED12 } from "./_wgsl_corpus_qa12_refused.ts";
import { VELLO_BINNING12 } from "./_wgsl_corpus_qa12_vello_binning.ts";

await corpusTests("twelfth", CORPUS_QA12, REFUSED12);

Deno.test({
  name: "vello binning's order-free check takes any placement of the chunks and nothing else",
  ignore: (await navigator.gpu?.requestAdapter()) == null,
  async fn() {
    const c = VELLO_BINNING12[0], { canonical } = c.orderFree!;
    const run = await runPlain(c.source, c.plain, c.workgroups, c);
    const words = (b: Uint8Array) => new Uint32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
    const edit = (change: (data: Uint32Array, header: Uint32Array) => void) => {
      const bytes = run.map((b) => b.slice());
      change(words(bytes[6]), words(bytes[7]));
      return canonical(bytes);
    };
    const header = words(run[7]), data = words(run[6]);
    const bins = [0, 1, 2, 3], total = words(run[5])[1];
    assert.ok(bins.every((b) => header[2 * b] > 0) && total > 0);
    // Another order of the atomicAdds: the four chunks in reverse, the empty bins' offsets spread.
    const reordered = edit((d, h) => {
      let at = 0;
      for (const b of bins.toReversed()) {
        const count = header[2 * b], offset = header[2 * b + 1];
        d.set(data.subarray(offset, offset + count), at);
        h[2 * b + 1] = at;
        at += count;
      }
      for (let b = 4; b < 256; b++) h[2 * b + 1] = b % (total + 1);
    });
    assert.deepEqual(reordered, canonical(run));
    // Two indices swapped in a chunk, a word written past the chunks: differ.
    const first = header[1];
    assert.notDeepEqual(edit((d) => d.set([d[first + 1], d[first]], first)), canonical(run));
    assert.notDeepEqual(edit((d) => d[total] = 7), canonical(run));
    // A count short, overlapping chunks, an offset past the allocation: no order of adds gives.
    assert.throws(() => edit((_, h) => h[0]--), /uncovered/);
    assert.throws(() => edit((_, h) => h[3] = h[1]), /in two chunks/);
    assert.throws(() => edit((_, h) => h[2 * 200 + 1] = total + 1), /past/);
  },
});
