/**
 * Regression tests of issue #7, items 10 and 12: destroy and device loss settle pending work with
 * typed errors; `getResource` submits what the resource depends on and keeps its memory alive.
 */
import assert from "node:assert/strict";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { CubeCount, KernelArguments } from "../backend.ts";
import { increment } from "./_wgsl_kernels.ts";
import { asU32, code, u32 } from "./_bytes.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

for (const adopted of [false, true]) {
  Deno.test({
    name: `destroy with a read, a sync and a profile pending settles each with DESTROYED (${
      adopted ? "adopted" : "owned"
    } device)`,
    ignore,
    async fn() {
      const device = adopted ? await adapter!.requestDevice() : undefined;
      const server = await WebGpuServer.create({ device });
      using a = server.createWithData(u32(Array(64).fill(1)), 0);
      server.execute({
        kernel: increment,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      const token = server.startProfile(0);
      server.execute({
        kernel: increment,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      const profile = server.endProfile(0, token);
      const read = server.read([a.copyDescriptor([64], [1], 4)], 0);
      const sync = server.sync(1);
      server.destroy();
      const destroyed = (e: unknown) => code(e) === "DESTROYED";
      await Promise.all([
        assert.rejects(read, destroyed),
        assert.rejects(sync, destroyed),
        assert.rejects(profile, destroyed),
      ]);
      assert.throws(() => server.flush(0), (e) => code(e) === "DESTROYED");
      if (device !== undefined) {
        await device.queue.onSubmittedWorkDone(); // still the caller's, still usable
        device.destroy();
      }
    },
  });
}

Deno.test({
  name: "an adopted device destroyed by its owner: pending and later calls get DEVICE_LOST",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    using server = await WebGpuServer.create({ device });
    using a = server.createWithData(u32([1, 2, 3]), 0);
    const read = server.read([a.copyDescriptor([3], [1], 4)], 0);
    const sync = server.sync(0);
    device.destroy();
    await assert.rejects(read, (e) => code(e) === "DEVICE_LOST");
    await assert.rejects(sync, (e) => code(e) === "DEVICE_LOST");
    await device.lost;
    assert.throws(() => server.createWithData(u32([1]), 0), (e) => code(e) === "DEVICE_LOST");
    await assert.rejects(server.sync(0), (e) => code(e) === "DEVICE_LOST");
  },
});

Deno.test({
  name: "getResource submits the queued writes it depends on, on any stream",
  ignore,
  async fn() {
    using server = await WebGpuServer.create({ maxTasks: 64 });
    using a = server.createWithData(u32([0, 0, 0, 0]), 1);
    server.write([{ descriptor: a.copyDescriptor([4], [1], 4), data: u32([7, 8, 9, 10]) }], 1);
    using lease = server.getResource(a.withOffsetStart(4).ref(), 2); // queued on stream 1
    // Our own command buffer, after the lease: it must see the write.
    const device = server.device;
    const staging = device.createBuffer({ size: 12, usage: GPUBufferUsage.MAP_READ | 0x8 });
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(lease.resource, lease.offset, staging, 0, 12);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    assert.deepEqual([...new Uint32Array(staging.getMappedRange())], [8, 9, 10]);
    staging.destroy();
  },
});

Deno.test({
  name: "a leased resource's memory is not reused until the lease is released",
  ignore,
  async fn() {
    using server = await WebGpuServer.create();
    const a = server.createWithData(u32([1, 2, 3, 4]), 0);
    server.flush(0); // no queued task pins `a` any more: only the lease can
    const lease = server.getResource(a.ref(), 0);
    a.dispose();
    using b = server.createWithData(u32([5, 6, 7, 8]), 0);
    using other = server.getResource(b.ref(), 0);
    const overlaps = other.resource === lease.resource &&
      other.offset < lease.offset + lease.size && lease.offset < other.offset + other.size;
    assert.equal(overlaps, false, "the new allocation took the leased bytes");
    assert.equal(lease.released, false);
    lease.release();
    lease.release(); // idempotent
    assert.equal(lease.released, true);
    using c = server.createWithData(u32([9, 9, 9, 9]), 0);
    const [bytes] = await server.read([b.copyDescriptor([4], [1], 4)], 0);
    assert.deepEqual(asU32(bytes), [5, 6, 7, 8]);
    assert.equal(c.size(), 16);
  },
});
