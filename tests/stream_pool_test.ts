import assert from "node:assert/strict";
import { assertStreamId, currentStreamId, StreamPool, withStream } from "../backend.ts";

Deno.test("streams are created lazily and indexed modulo maxStreams", () => {
  const created: number[] = [];
  let next = 0;
  const pool = new StreamPool(() => {
    created.push(next);
    return { n: next++ };
  }, { maxStreams: 4, numSpecial: 1 });
  assert.equal(created.length, 0);
  const a = pool.get(1);
  assert.equal(pool.get(5), a);
  assert.equal(pool.streamIndex(9), 1);
  const gc = pool.getSpecial(0);
  assert.notEqual(gc, a);
  assert.equal(pool.getIndex(4), gc, "special streams sit after the regular ones");
  assert.deepEqual([...pool.entries()].map(([index]) => index), [1, 4]);
  assert.throws(() => pool.getSpecial(1), RangeError);
  assert.throws(() => pool.getIndex(5), RangeError);
});

Deno.test("stream ids must be non-negative safe integers; the pool stays usable", () => {
  const pool = new StreamPool(() => ({}), { maxStreams: 2 });
  for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
    assert.throws(() => pool.get(bad), RangeError, `id ${bad}`);
  }
  for (const bad of ["1", 1n, null, undefined]) {
    assert.throws(() => assertStreamId(bad), TypeError, `id ${String(bad)}`);
  }
  assert.equal(pool.get(3), pool.get(1));
});

Deno.test("the current stream follows the async context", async () => {
  assert.equal(currentStreamId(), 0);
  const seen = await Promise.all([4, 5, 6].map((id) =>
    withStream(id, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return withStream(id + 10, () => currentStreamId()) - 10 === currentStreamId()
        ? currentStreamId()
        : -1;
    })
  ));
  assert.deepEqual(seen, [4, 5, 6]);
  assert.equal(currentStreamId(), 0);
  assert.throws(() => withStream(-2, () => 0), RangeError);
});
