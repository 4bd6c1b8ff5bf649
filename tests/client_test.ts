import assert from "node:assert/strict";
import {
  ComputeClient,
  CpuTimelineSignal,
  CubeCount,
  type DestroyedError,
  InvalidHandleError,
} from "../mod.ts";
import { currentStreamId, type ScalarArgument, type StorageType } from "../backend.ts";
import { type SimKernel, SimulatedServer } from "./fixtures/simulated_server.ts";

/** `dst[i] = src[i] * k + b` over f32, with f32 scalars `[k, b]`. */
const affine: SimKernel = {
  id: "affine",
  run(buffers: Uint8Array[], scalars: ReadonlyMap<StorageType, ScalarArgument>) {
    const [src, dst] = buffers.map((bytes) =>
      new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
    );
    const [k, b] = new Float32Array(scalars.get("f32")!.bytes.buffer);
    for (let i = 0; i < dst.length; i++) dst[i] = src[i] * k + b;
  },
};

function newClient(seed = 7): ComputeClient<SimKernel> {
  return new ComputeClient(new SimulatedServer({ maxStreams: 4, seed }));
}

Deno.test("typed arrays go in and come out, across streams, with no manual sync", async () => {
  using client = newClient();
  using src = client.createWithData(new Float32Array([1, 2, 3, 4]), { stream: 1 });
  using dst = client.createBytes(16, { stream: 2 });
  client.execute(affine, {
    stream: 2,
    count: CubeCount.newSingle(),
    buffers: [src, dst],
    scalars: { f32: [2, 0.5] },
  });
  assert.deepEqual([...await client.read(dst, Float32Array, { stream: 3 })], [2.5, 4.5, 6.5, 8.5]);
  const [a, b] = await client.readMany([src, dst]);
  assert.ok(a instanceof Float32Array, "an f32 handle reads as its own type");
  assert.ok(b instanceof Uint8Array, "an untyped handle reads as bytes");
  assert.equal(new Float32Array(b.buffer, b.byteOffset, 4)[3], 8.5);
  await assert.rejects(() => client.readMany([src, dst], Int32Array), TypeError);
  using odd = client.createWithData(new Uint8Array(6));
  await assert.rejects(() => client.read(odd, Float32Array), TypeError);
  using raw = client.createWithData(new ArrayBuffer(6));
  await assert.rejects(() => client.read(raw, Float32Array), RangeError);
  await client.sync(); // the simulated device releases cross-stream pins asynchronously
});

Deno.test("write keeps stream order and withStream picks the current stream", async () => {
  using client = newClient(11);
  using handle = client.createBytes(8);
  await client.withStream(3, async () => {
    assert.equal(currentStreamId(), 3);
    client.write(handle, new Uint32Array([7, 9]));
    client.write(handle, new Uint32Array([1]), { offset: 4 });
    assert.deepEqual([...await client.read(handle, Uint32Array)], [7, 1]);
  });
  assert.throws(() => client.write(handle, "abc" as unknown as Uint8Array), TypeError);
  assert.throws(() => client.write(handle, new Uint32Array(2), { offset: 4 }), RangeError);
  assert.deepEqual([...await client.read(handle, Uint32Array)], [7, 1], "nothing was written");
  await client.sync();
});

Deno.test("profile returns the result and a duration, and closes its window on error", async () => {
  using client = newClient();
  const { result, duration } = await client.profile(() => 42);
  assert.equal(result, 42);
  assert.ok(duration.milliseconds >= 0);
  await assert.rejects(() =>
    client.profile(() => {
      throw new Error("boom");
    }), /boom/);
  // The server is still usable after the failed window.
  using handle = client.createWithData(new Uint8Array([5]));
  assert.deepEqual([...await client.read(handle)], [5]);
  const inside = await client.profile(async () => {
    await Promise.resolve();
    return currentStreamId();
  }, { stream: 2 });
  assert.equal(inside.result, 2, "fn runs with the profiled stream current, across awaits");
});

Deno.test("a backend without traces: client.trace() throws UNSUPPORTED", () => {
  using client = newClient();
  assert.throws(() => client.trace(), { name: "UnsupportedError", code: "UNSUPPORTED" });
});

Deno.test("memory usage, cleanup, disposed handles and destroy", async () => {
  const client = newClient();
  const handle = client.createWithData(new Uint8Array(64));
  assert.equal(client.memoryUsage().numberAllocs, 1);
  handle.dispose();
  await client.sync();
  assert.equal(client.memoryUsage().numberAllocs, 0);
  client.memoryCleanup();
  assert.equal(client.memoryUsage().bytesReserved, 0);
  await assert.rejects(() => client.read(handle), InvalidHandleError);
  assert.throws(() => client.createBytes(-1), RangeError);
  client.destroy();
  client.destroy();
  assert.equal(client.destroyed, true);
  assert.throws(() => client.createBytes(4), (error: DestroyedError) => error.code === "DESTROYED");
});

Deno.test("launches reach the server whole and keep nothing after the call, held or not", async () => {
  const server = new SimulatedServer({ maxStreams: 4, seed: 3 });
  const seen: { buffers: number; scalars: number; count: string; kernel: string }[] = [];
  const kept: { args: { buffers: readonly unknown[] } }[] = [];
  const execute = server.execute.bind(server);
  server.execute = (launch, stream) => {
    seen.push({
      buffers: launch.args.buffers.length,
      scalars: launch.args.scalars.get("f32")?.length ?? 0,
      count: launch.count.kind,
      kernel: launch.kernel.id!,
    });
    kept.push(launch);
    execute(launch, stream);
  };
  using client = new ComputeClient(server);
  using src = client.createWithData(new Float32Array([1, 2]));
  using dst = client.createBytes(8);
  client.execute(affine, {
    count: CubeCount.newSingle(),
    buffers: [src, dst],
    scalars: { f32: [2, 1] },
  });
  // The reused record is emptied after the call: nothing of this launch stays reachable from it.
  assert.equal(kept[0].args.buffers.length, 0);
  const gate = new CpuTimelineSignal();
  client.waitFor(gate, 1);
  client.execute(affine, {
    count: CubeCount.new1d(1),
    buffers: [dst, src],
    scalars: { f32: [1, 0] },
  });
  assert.equal(seen.length, 1, "held until the signal reaches 1");
  gate.set(1);
  await client.sync();
  assert.deepEqual(seen, [
    { buffers: 2, scalars: 2, count: "static", kernel: "affine" },
    { buffers: 2, scalars: 2, count: "static", kernel: "affine" },
  ]);
  assert.notEqual(kept[1], kept[0], "a held launch has a record of its own");
  assert.deepEqual([...await client.read(src, Float32Array)], [3, 5]);
});
