/**
 * The helpers users expect (issue #18): axis reductions of 2-D handles, custom reductions,
 * element-wise kernels with raw inputs, against CPU references.
 */
import assert from "node:assert/strict";
import { createClient, reduce } from "../mod.ts";
import { helperSteps } from "./_helper_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "helpers: axis reductions, custom reductions, raw element-wise inputs",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    await helperSteps(t, client, [[3, 4], [1, 1000], [257, 3], [70_000, 2]]);

    await t.step("rows longer than llvmpipe's 65,535 loop iterations per invocation", async () => {
      // 3M columns: one 32-wide workgroup per row would loop 93,750 times and stop at 65,535.
      using ones = client.full(2 * 3_000_000, 1);
      using rows = reduce(client, ones, { shape: [2, 3_000_000] });
      using whole = reduce(client, ones);
      assert.deepEqual([...await client.read(rows)], [3_000_000, 3_000_000]);
      assert.deepEqual([...await client.read(whole)], [6_000_000]);
    });
  },
});
