import assert from "node:assert/strict";
import { createClient, InvalidHandleError, sort, topk } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "topk and sort with values return results that `using` disposes whole",
  ignore: adapter == null,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Float32Array([3, 1, 4, 1, 5, 9, 2, 6]));
    let kept;
    {
      using best = topk(client, x, 3);
      assert.deepEqual([...await client.read(best.values)], [9, 6, 5]);
      assert.deepEqual([...await client.read(best.indices)], [5, 7, 4]);
      kept = best;
    }
    await assert.rejects(client.read(kept.values), InvalidHandleError);
    await assert.rejects(client.read(kept.indices), InvalidHandleError);
    using v = client.createWithData(new Uint32Array([0, 1, 2, 3, 4, 5, 6, 7]));
    let pairs;
    {
      using sorted = sort(client, x, { values: v });
      assert.deepEqual([...await client.read(sorted.keys)], [1, 1, 2, 3, 4, 5, 6, 9]);
      assert.deepEqual([...await client.read(sorted.values)], [1, 3, 6, 0, 2, 4, 7, 5]);
      pairs = sorted;
    }
    await assert.rejects(client.read(pairs.keys), InvalidHandleError);
    await assert.rejects(client.read(pairs.values), InvalidHandleError);
  },
});
