/**
 * Regression tests of issue #7, items 11 and 13: the device gets the adapter's limits (storage
 * buffers per kernel, slice alignment), and the profiler recycles its query sets.
 */
import assert from "node:assert/strict";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { AllocationDescriptor, CompilationError, CubeCount, KernelArguments } from "../backend.ts";
import { increment, sumBuffers } from "./_wgsl_kernels.ts";
import { asU32, u32 } from "./_bytes.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "a kernel may bind as many storage buffers as the adapter allows",
  ignore: ignore || adapter!.limits.maxStorageBuffersPerShaderStage <= 8, // default already
  async fn() {
    using server = await WebGpuServer.create({ adapter: adapter! });
    const n = Math.min(12, adapter!.limits.maxStorageBuffersPerShaderStage);
    const inputs = Array.from({ length: n - 1 }, (_, i) => server.createWithData(u32([i, 1]), 0));
    using out = server.createWithData(u32([0, 0]), 0);
    server.execute({
      kernel: sumBuffers(n),
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffers([...inputs, out].map((h) => h.ref())),
    }, 0);
    const [bytes] = await server.read([out.copyDescriptor([2], [1], 4)], 0);
    assert.deepEqual(asU32(bytes), [(n - 1) * (n - 2) / 2, n - 1]);
    for (const input of inputs) input.dispose();
  },
});

Deno.test({
  name: "more storage buffers than the device allows: COMPILATION at execute, naming the limit",
  ignore,
  async fn() {
    // Options may ask for other limits than the adapter's (here: between default and adapter).
    const limit = Math.min(10, adapter!.limits.maxStorageBuffersPerShaderStage);
    using server = await WebGpuServer.create({
      adapter: adapter!,
      requiredLimits: { maxStorageBuffersPerShaderStage: limit },
    });
    assert.equal(server.device.limits.maxStorageBuffersPerShaderStage, limit);
    const n = limit + 1;
    const handles = Array.from({ length: n }, () => server.createWithData(u32([1]), 0));
    assert.throws(
      () =>
        server.execute({
          kernel: sumBuffers(n),
          count: CubeCount.new1d(1),
          args: new KernelArguments().withBuffers(handles.map((h) => h.ref())),
        }, 0),
      (e) => e instanceof CompilationError && /maxStorageBuffersPerShaderStage/.test(e.message),
    );
    for (const handle of handles) handle.dispose();
    await server.sync(0);
  },
});

Deno.test({
  name: "pool slices are aligned to the adapter's minStorageBufferOffsetAlignment",
  ignore,
  async fn() {
    using server = await WebGpuServer.create({ adapter: adapter! });
    const alignment = adapter!.limits.minStorageBufferOffsetAlignment;
    assert.equal(server.device.limits.minStorageBufferOffsetAlignment, alignment);
    const handles = Array.from(
      { length: 1000 },
      () => server.create([AllocationDescriptor.contiguous([130], 1)], 0)[0].handle,
    );
    const padding = Math.ceil(130 / alignment) * alignment - 130;
    assert.equal(server.memoryUsage(0).bytesPadding, 1000 * padding);
    for (const handle of handles) handle.dispose();
  },
});

Deno.test({
  name: "always-overlapping profiling windows recycle their query sets",
  ignore: ignore || !adapter!.features.has("timestamp-query"), // no device timer to recycle
  async fn() {
    using server = await WebGpuServer.create({ adapter: adapter! });
    using a = server.createWithData(u32(Array(64).fill(0)), 0);
    const passes = 1280;
    const perWindow = 160;
    let open = server.startProfile(0);
    const durations: Promise<unknown>[] = [];
    for (let pass = 1; pass <= passes; pass++) {
      server.execute({
        kernel: increment,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      server.flush(0); // one compute pass per flush
      if (pass % perWindow === 0 && pass < passes) {
        const next = server.startProfile(0); // opened before the previous one closes
        durations.push(server.endProfile(0, open));
        open = next;
      }
    }
    durations.push(server.endProfile(0, open));
    for (const duration of await Promise.all(durations)) {
      assert.ok((duration as { milliseconds: number }).milliseconds > 0);
    }
    // 1280 passes would take 10 sets of 128 slot pairs; one window's live passes take 2.
    assert.ok(server.stats().querySets <= 2, `${server.stats().querySets} query sets`);
    const [bytes] = await server.read([a.copyDescriptor([64], [1], 4)], 0);
    assert.deepEqual(asU32(bytes), Array(64).fill(passes));
  },
});
