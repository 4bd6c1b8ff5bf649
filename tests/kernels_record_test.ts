/**
 * `recordKernels` (issue #30: generated kernels expose their WGSL for debugging): every helper
 * and primitive reports the kernels it launches, id and source; a recording sees each kernel
 * once, only its own client's launches, only while open; the recorded WGSL is the text that ran.
 */
import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  argsort,
  bincount,
  createClient,
  cumsum,
  dot,
  elementwise,
  gather,
  type Handle,
  histogram,
  matmul,
  random,
  recordKernels,
  reduce,
  reduction,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "recordKernels: every helper and primitive shows the WGSL it launched",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    using f = client.createWithData(new Float32Array([3, 1, 2, 5, 4, 0]));
    using u = client.createWithData(new Uint32Array([2, 0, 1, 2, 1, 0]));
    using sums = client.zeros(3); // scatterAdd's target (not f itself: it reads f)
    const square = elementwise({ inputs: ["x"], expression: "x * x" });
    const sumOf = reduction({ inputs: ["x"], map: "x", combine: "a + b", identity: "0.0" });
    const calls: [string, () => Handle | Promise<Handle> | { values: Handle }][] = [
      ["scan", () => scan(client, f, { op: "max" })],
      ["cumsum", () => cumsum(client, f)],
      ["sort", () => sort(client, f)],
      ["argsort", () => argsort(client, u)],
      ["argmax", () => argmax(client, f)],
      ["argmin", () => argmin(client, f, { shape: [2, 3] })],
      ["topk", () => topk(client, f, 2)],
      ["histogram", () => histogram(client, f, { bins: 3, range: [0, 6] })],
      ["bincount", () => bincount(client, u, { length: 3 })],
      ["scatterAdd", () => (scatterAdd(client, sums, u, f), client.empty(0))],
      ["segmentReduce", () => segmentReduce(client, f, u, { segments: 3 })],
      ["random", () => random(client, 8, { seed: 1 })],
      ["matmul", () => matmul(client, f, f, { m: 2, n: 2, k: 3, tune: false })],
      ["transpose", () => transpose(client, f, { shape: [2, 3] })],
      ["gather", () => gather(client, f, u)],
      ["reduce", () => reduce(client, f, { op: "max" })],
      ["dot", () => dot(client, [f, f])],
      ["elementwise", () => square.run(client, { x: f })],
      ["reduction", () => sumOf.run(client, { x: f })],
    ];
    for (const [name, call] of calls) {
      await t.step(name, async () => {
        using recording = recordKernels(client);
        const result = await call();
        recording.stop();
        const handles = "values" in result ? Object.values(result) as Handle[] : [result as Handle];
        await client.readMany(handles);
        for (const h of handles) h.dispose();
        assert.ok(recording.kernels.length > 0, `${name} recorded no kernel`);
        for (const { id, source } of recording.kernels) {
          assert.equal(typeof id, "string");
          assert.ok(id.length > 0, `${name}: an empty id`);
          assert.match(source, /@compute/, `${name}: ${id} is not WGSL`);
        }
      });
    }
  },
});

Deno.test({
  name: "recordKernels: each kernel once, its own client only, only while open",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using other = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using y = other.createWithData(new Float32Array([1, 2, 3, 4]));
    const recording = recordKernels(client);
    using a = cumsum(client, x);
    using b = cumsum(client, x); // the same kernel again: recorded once
    using c = cumsum(other, y); // another client: not recorded
    assert.equal(recording.kernels.length, 1);
    assert.match(recording.kernels[0].id, /scan/);
    using d = scan(client, x, { op: "prod" });
    assert.equal(recording.kernels.length, 2);
    recording.stop();
    recording.stop(); // idempotent
    using e = argmax(client, x); // after stop: not recorded
    assert.equal(recording.kernels.length, 2);
    await client.readMany([a, b, d, e]);
    await other.read(c);
    // The recorded text is the kernel that ran: launched as a user kernel, it gives the same sums.
    const { id, source } = recording.kernels[0];
    using again = client.empty(4, "f32");
    using offsets = client.empty(1, "f32");
    client.execute({ id: `${id}.copy`, source }, {
      count: { kind: "static", x: 1, y: 1, z: 1 },
      buffers: [x, again, offsets],
      params: { count: 4, inner: 1, runs: 1, offsets: 0, threads: 1 },
    });
    assert.deepEqual([...await client.read(again)], [1, 3, 6, 10]);
    assert.throws(() => recordKernels(null as never), TypeError);
  },
});
