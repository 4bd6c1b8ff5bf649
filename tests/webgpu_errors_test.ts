/**
 * Regression tests of issue #7, items 8 and 14: an invalid launch that only WebGPU can reject
 * (asynchronously, at submit) loses only itself, its error goes to its own stream and kernel, and reads never
 * discard their data for another stream's error.
 */
import assert from "node:assert/strict";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { CubeCount, type Handle, KernelArguments, type SchedulerStrategy } from "../backend.ts";
import { increment, typeMismatch } from "./_wgsl_kernels.ts";
import { asU32, code, u32 } from "./_bytes.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

function run(server: WebGpuServer, kernel: typeof increment, buffers: Handle[], stream: number) {
  server.execute({
    kernel,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffers(buffers.map((h) => h.ref())),
  }, stream);
}

for (const strategy of ["interleave", "sequential"] as SchedulerStrategy[]) {
  Deno.test({
    name: `${strategy}: a launch WebGPU rejects late loses only itself, on its own stream`,
    ignore,
    async fn() {
      using server = await WebGpuServer.create({ strategy, maxTasks: 64 });
      using a = server.createWithData(u32(Array(64).fill(1)), 1);
      using b = server.createWithData(u32(Array(64).fill(0)), 1);
      using c = server.createWithData(u32(Array(64).fill(10)), 2);
      run(server, increment, [a], 1);
      // Passes every synchronous check; WebGPU rejects its pipeline asynchronously.
      run(server, typeMismatch, [b], 1);
      run(server, increment, [a], 1);
      server.write([{ descriptor: a.copyDescriptor([1], [1], 4), data: u32([100]) }], 1);
      run(server, increment, [c], 2);
      // Stream 2 syncs (merging stream 1's work under interleave) and reads: no error for it.
      await server.sync(2);
      const [cBytes, aBytes] = await server.read([
        c.copyDescriptor([64], [1], 4),
        a.copyDescriptor([64], [1], 4),
      ], 2);
      assert.deepEqual(asU32(cBytes), Array(64).fill(11));
      assert.deepEqual(asU32(aBytes), [100, ...Array(63).fill(3)]);
      // The first sync of stream 1 reports it, naming the kernel and the stream; once.
      await assert.rejects(
        server.sync(1),
        (e) =>
          code(e) === "COMPILATION" && /type_mismatch/.test((e as Error).message) &&
          /stream 1\b/.test((e as Error).message),
      );
      await server.sync(1);
      // Known bad now: a second launch is refused synchronously.
      assert.throws(() => run(server, typeMismatch, [b], 1), (e) => code(e) === "COMPILATION");
      run(server, increment, [a], 1);
      const [again, untouched] = await server.read([
        a.copyDescriptor([2], [1], 4),
        b.copyDescriptor([2], [1], 4),
      ], 1);
      assert.deepEqual(asU32(again), [101, 4]);
      assert.deepEqual(asU32(untouched), [0, 0]);
    },
  });
}

Deno.test({
  name: "deferred errors belong to their stream: a read on another stream keeps its data",
  ignore,
  async fn() {
    using server = await WebGpuServer.create();
    using a = server.createWithData(u32([0]), 3);
    using b = server.createWithData(u32([5, 6]), 4);
    run(server, { ...typeMismatch, id: "type_mismatch_3" }, [a], 3);
    server.flush(3);
    const [bytes] = await server.read([b.copyDescriptor([2], [1], 4)], 4);
    assert.deepEqual(asU32(bytes), [5, 6]);
    await server.sync(4); // stream 4 has no error of its own
    await assert.rejects(
      server.read([a.copyDescriptor([1], [1], 4)], 3),
      (e) =>
        /type_mismatch_3/.test((e as Error).message) && /stream 3\b/.test((e as Error).message),
    );
  },
});

Deno.test({
  name:
    "unvalidated launches of one shape share one isolated submission; validated ones are batched",
  ignore,
  async fn() {
    using server = await WebGpuServer.create({ maxTasks: 256 });
    const handles = Array.from({ length: 64 }, (_, i) => server.createWithData(u32([i, i]), 0));
    const launchAll = () => handles.forEach((h) => run(server, increment, [h], 0));
    const before = server.stats().isolatedSubmits;
    launchAll(); // 64 new bind groups of one shape (same kernel, same sizes)
    await server.sync(0);
    assert.equal(server.stats().isolatedSubmits - before, 1);
    launchAll(); // validated now: batched with other work
    await server.sync(0);
    assert.equal(server.stats().isolatedSubmits - before, 1);
    const read = await server.read(handles.map((h) => h.copyDescriptor([2], [1], 4)), 0);
    read.forEach((bytes, i) => assert.deepEqual(asU32(bytes), [i + 2, i + 2]));
    for (const handle of handles) handle.dispose();
  },
});
