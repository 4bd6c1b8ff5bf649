/**
 * Several WebGPU devices in one process, on real compute: two clients, each on its own
 * `GPUDevice` requested from the fallback adapter (what these machines have; on a machine with two
 * GPUs the same code takes two adapters). Discovery, `copyTo` between the devices (chunked through
 * the host), `waitFor` on the other client's timeline, destroy while the other waits, and random
 * programs mixing all of it, every read exact.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ComputeClient,
  type ComputeError,
  CpuTimelineSignal,
  createClient,
  createClients,
  DestroyedError,
  listDevices,
  type WebGpuClient,
} from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { deviceCommand, runOnDevices, within } from "./_device_programs.ts";
import { CUBE_SIZE, fill, increment } from "./_wgsl_kernels.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const ignore = adapter === undefined; // no WebGPU adapter on this machine

const destroyed = (error: unknown) => error instanceof DestroyedError && error.code === "DESTROYED";

/** Two clients on two devices of the first adapter. */
async function twoDevices(): Promise<WebGpuClient[] & Disposable> {
  return await createClients([adapter!, adapter!]);
}

Deno.test({
  name: "listDevices finds the adapter; createClients opens one device per entry",
  ignore,
  async fn() {
    assert.equal(adapter!.backend, "webgpu");
    assert.equal(typeof adapter!.name, "string");
    assert.ok(adapter!.maxBufferSize > 0);
    using clients = await twoDevices();
    const [a, b] = clients;
    const devices = clients.map((c) => (c.server as WebGpuServer).device);
    assert.notEqual(devices[0], devices[1]);
    assert.equal(a.server.properties.deviceName, adapter!.name);
    assert.ok(!a.destroyed && !b.destroyed);
    clients[Symbol.dispose]();
    assert.ok(a.destroyed && b.destroyed);
  },
});

Deno.test({
  name: "copyTo moves every element type between devices, chunk by chunk, in stream order",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const f32 = Float32Array.from({ length: 1000 }, (_, i) => i / 3);
    using x = a.createWithData(f32);
    using y = a.copyTo(x, b, { chunkBytes: 256, label: "copied" }); // 16 chunks, one short
    assert.equal(y.dtype, "f32");
    assert.equal(y.label, "copied");
    a.write(x, new Float32Array(1000)); // after the copy: never seen by it
    assert.deepEqual(await b.read(y), f32);
    const odd = Uint8Array.from({ length: 1001 }, (_, i) => i % 251); // a 1-byte last chunk
    for (const data of [new Int32Array([-1, 2, -3]), new Uint32Array([7]), odd]) {
      using h = a.createWithData(data);
      using copied = a.copyTo(h, b, { chunkBytes: 4 });
      assert.equal(copied.dtype, h.dtype);
      assert.deepEqual(await b.read(copied), data);
    }
    using empty = a.empty(0, "u32");
    using none = a.copyTo(empty, b);
    assert.equal((await b.read(none)).length, 0);
  },
});

Deno.test({
  name: "a copied handle is ordered before the destination's readers on any stream",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const big = Uint32Array.from({ length: 1 << 18 }, (_, i) => i);
    using x = a.createWithData(big, { stream: 1 });
    a.execute(increment, { stream: 2, threads: big.length, buffers: [x] });
    // Read on stream 3 of b, copied on stream 1 of b: used by a kernel on stream 2 of b first.
    using y = a.copyTo(x, b, { stream: 2, destinationStream: 1, chunkBytes: 64 * 1024 });
    b.execute(increment, { stream: 2, threads: big.length, buffers: [y] });
    const out = await b.read(y, { stream: 3 });
    assert.equal(out.findIndex((v, i) => v !== i + 2), -1);
  },
});

Deno.test({
  name: "waitFor on another device's timeline holds the stream until its marked work completed",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const gate = new CpuTimelineSignal();
    a.waitFor(gate, 1); // a's work is held until the gate opens
    using x = a.createWithData(new Uint32Array(256).fill(1));
    a.execute(increment, { threads: 256, buffers: [x] });
    const done = a.signal();
    b.waitFor(a.timeline, done);
    using y = b.createWithData(new Uint32Array([5]));
    let read = false;
    const pending = b.read(y).then((data) => (read = true, data));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(read, false, "b ran before a's marked work");
    gate.set(1);
    assert.deepEqual([...await pending], [5]);
    assert.ok(a.timeline.isReached(done));
    assert.deepEqual([...new Set(await a.read(x))], [2]);
  },
});

Deno.test({
  name: "destroying a client settles the other's calls held on its timeline with DESTROYED",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const gate = new CpuTimelineSignal();
    a.waitFor(gate, 1);
    const mark = a.signal(); // held: never reached once a is destroyed
    const timeline = a.timeline;
    using y = b.createWithData(new Uint32Array([1, 2]));
    b.waitFor(timeline, mark, { stream: 1 });
    b.execute(increment, { stream: 1, threads: 2, buffers: [y] });
    const held = b.read(y, { stream: 1 });
    a.destroy();
    await assert.rejects(within(held, 5_000), destroyed);
    await b.sync({ stream: 1 }); // reported once: the held read had it, not again for the kernel
    assert.deepEqual([...await b.read(y, { stream: 1 })], [1, 2]); // b is usable
    await assert.rejects(timeline.wait(mark), destroyed); // unreached marks never will be
  },
});

Deno.test({
  name: "a copy from a destroyed client fails the destination's readers with DESTROYED",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const gate = new CpuTimelineSignal();
    a.waitFor(gate, 1); // the copy's read waits behind this
    using x = a.createWithData(new Uint32Array([1, 2, 3]));
    using y = a.copyTo(x, b);
    const read = b.read(y);
    a.destroy();
    await assert.rejects(within(read, 5_000), destroyed);
  },
});

Deno.test({
  name: "the handles of a copy may be disposed at once, also while the copy waits its turn",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    const gate = new CpuTimelineSignal();
    a.waitFor(gate, 1); // the copy's read waits behind this
    const x = a.createWithData(new Uint32Array([1, 2, 3]));
    const y = a.copyTo(x, b);
    const z = b.copyTo(y, a); // held on b until y landed
    x.dispose();
    y.dispose();
    gate.set(1);
    assert.deepEqual([...await a.read(z)], [1, 2, 3]);
    z.dispose();
    await Promise.all([a.sync(), b.sync()]); // no failure recorded on either
  },
});

Deno.test({
  name: "a later mark never overtakes one held by waitFor, and does not hold its own stream",
  ignore,
  async fn() {
    using client = await createClient({ device: adapter! });
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1, { stream: 1 });
    const first = client.signal({ stream: 1 });
    const second = client.signal({ stream: 2 });
    using x = client.createWithData(new Uint32Array([3]), { stream: 2 });
    assert.deepEqual([...await client.read(x, { stream: 2 })], [3]); // stream 2 is not held
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(client.timeline.isReached(first), false, "the second mark overtook the first");
    gate.set(1);
    await client.timeline.wait(second, { timeoutMs: 5_000 });
  },
});

Deno.test({
  name: "copyTo refuses bad arguments with typed errors",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const [a, b] = clients;
    using x = a.createWithData(new Float32Array(4));
    const call = (h: unknown, to: unknown, options?: unknown) =>
      a.copyTo(h as typeof x, to as ComputeClient, options as object);
    assert.throws(() => call({}, b), TypeError);
    assert.throws(() => call(x, {}), TypeError);
    assert.throws(() => call(x, b, { chunkBytes: 0 }), RangeError);
    assert.throws(() => call(x, b, { chunkBytes: 1.5 }), RangeError);
    assert.throws(() => call(x, b, { chunkBytes: 6 }), /multiple of 4 bytes, got 6/);
    assert.throws(() => call(x, b, null), TypeError);
    using disposed = a.createWithData(new Float32Array(1));
    disposed.dispose();
    assert.throws(() => call(disposed, b), (e) => (e as ComputeError).code === "INVALID_HANDLE");
    b.destroy();
    assert.throws(() => call(x, b), (e) => (e as ComputeError).code === "DESTROYED");
    assert.deepEqual([...await a.read(x)], [0, 0, 0, 0]); // a is usable
  },
});

Deno.test({
  name: "createClient({ device }) requests a device from a listed adapter",
  ignore,
  async fn() {
    using client = await createClient({ device: adapter! });
    using x = client.createWithData(new Uint32Array([41]));
    client.execute(increment, { threads: 1, buffers: [x] });
    assert.deepEqual([...await client.read(x)], [42]);
    await assert.rejects(
      createClient({ device: { ...adapter!, vendor: "no such vendor" } }),
      (e) => (e as ComputeError).code === "NO_ADAPTER",
    );
  },
});

Deno.test({
  name: "random programs over two devices: writes, kernels, copies, cross waits, every read exact",
  ignore,
  async fn() {
    using clients = await twoDevices();
    const pair = [clients[0], clients[1]] as const;
    const kernels = { fill, increment, cube: CUBE_SIZE };
    await fc.assert(
      fc.asyncProperty(
        fc.array(deviceCommand, { minLength: 1, maxLength: 20 }),
        (program) => runOnDevices(pair, kernels, program),
      ),
      { numRuns: 100 },
    );
  },
});
