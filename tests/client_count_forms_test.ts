/**
 * `count` as users write workgroup counts: `n`, `[x, y, z]` (as `dispatchWorkgroups(x, y, z)`)
 * or a `CubeCount`; a count of another shape is refused naming it (it was "count.kind must be
 * ...", naming a field the user never wrote).
 */
import assert from "node:assert/strict";
import { createClient, CubeCount } from "../mod.ts";

const source = `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(2) fn main(@builtin(workgroup_id) w: vec3u,
    @builtin(num_workgroups) n: vec3u, @builtin(local_invocation_index) l: u32) {
  let i = ((w.z * n.y + w.y) * n.x + w.x) * 2u + l;
  o[i] = i + 1u;
}`;

Deno.test("count: n, [x, y, z] and a CubeCount dispatch the same workgroups", async () => {
  using client = await createClient();
  for (
    const [count, groups] of [
      [3, 3],
      [[3], 3],
      [[2, 3], 6],
      [[2, 1, 2], 4],
      [CubeCount.new2d(2, 2), 4],
    ] as const
  ) {
    using o = client.zeros(16, "u32");
    client.execute({ source }, { count, buffers: [o] });
    const want = Array.from({ length: 16 }, (_, i) => i < groups * 2 ? i + 1 : 0);
    assert.deepEqual([...await client.read(o)], want, JSON.stringify(count));
  }
});

Deno.test("count of another shape is a RangeError or TypeError naming count", async () => {
  using client = await createClient();
  using o = client.zeros(16, "u32");
  const bad: [unknown, RegExp][] = [
    [-1, /^count x must be/],
    [1.5, /^count x must be/],
    [[2, -3], /^count y must be/],
    [[1, 1, 1, 1], /^count must have 1 to 3 dimensions, got 4/],
    [[], /^count must have 1 to 3 dimensions, got 0/],
    ["4", /^count must be n, \[x, y, z\] or a CubeCount, got "4"/],
    [null, /^count must be n, \[x, y, z\] or a CubeCount, got null/],
  ];
  for (const [count, message] of bad) {
    assert.throws(
      () => client.execute({ source }, { count: count as never, buffers: [o] }),
      (e: Error) => (e instanceof RangeError || e instanceof TypeError) && message.test(e.message),
      String(count),
    );
  }
  // the client is still usable
  client.execute({ source }, { count: 1, buffers: [o] });
  assert.deepEqual([...await client.read(o)].slice(0, 3), [1, 2, 0]);
});
