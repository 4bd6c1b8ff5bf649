import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { serverConformance } from "./server_conformance.ts";
import { CUBE_SIZE, fill, increment, scaleAdd } from "./_wgsl_kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "WebGpuServer conforms to the ComputeServer contract",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn(t) {
    await serverConformance(t, {
      createServer: () => WebGpuServer.create(),
      kernels: { fill, scaleAdd, increment },
      cubeSize: CUBE_SIZE,
    });
  },
});

import assert from "node:assert/strict";
import type { WgslKernel } from "../runtime/server/webgpu/mod.ts";
import {
  AllocationDescriptor,
  CompilationError,
  CubeCount,
  type Handle,
  KernelArgumentError,
  KernelArguments,
  type SchedulerStrategy,
} from "../backend.ts";
import { asF32, asU32, code, f32, meta, u32 } from "./_bytes.ts";

const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

function scaleAddOn(
  server: WebGpuServer,
  a: Handle,
  b: Handle,
  out: Handle,
  s: number,
  stream: number,
) {
  const n = out.size() / 4;
  server.execute({
    kernel: scaleAdd,
    count: CubeCount.new1d(Math.ceil(n / CUBE_SIZE)),
    args: new KernelArguments().withBuffers([a.ref(), b.ref(), out.ref()])
      .withMetadata(meta(n)).withScalar("f32", [s]),
  }, stream);
}

Deno.test({
  name: "WebGpuServer orders streams, coalesces reads and caches pipelines",
  ignore,
  async fn(t) {
    using server = await WebGpuServer.create({ maxTasks: 4 });
    const n = 128;

    await t.step("producer on stream 1, consumers on 2 and 3, no manual flush", async () => {
      using produced = server.createWithData(new Uint8Array(n * 4), 1);
      server.execute({
        kernel: fill,
        count: CubeCount.new1d(n / CUBE_SIZE),
        args: new KernelArguments().withBuffer(produced.ref()).withMetadata(meta(n))
          .withScalar("u32", [0x40000000]), // f32 2.0
      }, 1);
      using zeros = server.createWithData(f32(Array(n).fill(0)), 2);
      using ones = server.createWithData(f32(Array(n).fill(1)), 3);
      using outB = server.createWithData(new Uint8Array(n * 4), 2);
      using outC = server.createWithData(new Uint8Array(n * 4), 3);
      scaleAddOn(server, produced, zeros, outB, 3, 2);
      scaleAddOn(server, produced, ones, outC, 5, 3);
      const [b] = await server.read([outB.copyDescriptor([n], [1], 4)], 2);
      const [c] = await server.read([outC.copyDescriptor([n], [1], 4)], 3);
      assert.deepEqual(asF32(b), Array(n).fill(6));
      assert.deepEqual(asF32(c), Array(n).fill(11));
    });

    await t.step("reading K handles costs one mapAsync", async () => {
      const handles = [0, 1, 2, 3, 4].map((i) =>
        server.createWithData(u32([i, i * 10, i * 100]), i)
      );
      const before = server.stats().mapAsync;
      const results = await server.read(handles.map((h) => h.copyDescriptor([3], [1], 4)), 0);
      assert.equal(server.stats().mapAsync - before, 1);
      results.forEach((bytes, i) => assert.deepEqual(asU32(bytes), [i, i * 10, i * 100]));
      for (const handle of handles) handle.dispose();
    });

    await t.step("pipelines are compiled once per kernel id", async () => {
      using a = server.createWithData(u32(Array(64).fill(0)), 0);
      const before = server.stats();
      for (let i = 0; i < 5; i++) {
        server.execute({
          kernel: increment,
          count: CubeCount.new1d(1),
          args: new KernelArguments().withBuffer(a.ref()),
        }, 0);
      }
      const [bytes] = await server.read([a.copyDescriptor([64], [1], 4)], 0);
      const after = server.stats();
      assert.deepEqual(asU32(bytes), Array(64).fill(5));
      assert.ok(after.pipelineMisses - before.pipelineMisses <= 1);
      assert.equal(
        after.pipelineHits - before.pipelineHits,
        5 - (after.pipelineMisses - before.pipelineMisses),
      );
    });

    await t.step("overlapping profiling windows", async () => {
      using a = server.createWithData(u32(Array(64).fill(0)), 0);
      const run = () =>
        server.execute({
          kernel: increment,
          count: CubeCount.new1d(1),
          args: new KernelArguments().withBuffer(a.ref()),
        }, 0);
      const first = server.startProfile(0);
      run();
      const second = server.startProfile(0);
      run();
      const firstTime = await server.endProfile(0, first); // closes while `second` is open
      run();
      const secondTime = await server.endProfile(0, second);
      assert.ok(firstTime.milliseconds > 0 && secondTime.milliseconds > 0);
      if (server.properties.deviceTimer) assert.equal(firstTime.timing, "device");
      const [bytes] = await server.read([a.copyDescriptor([64], [1], 4)], 0);
      assert.deepEqual(asU32(bytes), Array(64).fill(3));
    });
  },
});

async function workload(strategy: SchedulerStrategy): Promise<number[][]> {
  using server = await WebGpuServer.create({ strategy, maxTasks: 3 });
  const n = 64;
  const handles = [1, 2, 3].map((s) => server.createWithData(f32(Array(n).fill(s)), s));
  for (let round = 0; round < 4; round++) {
    for (let s = 1; s <= 3; s++) {
      const [self, next] = [handles[s - 1], handles[s % 3]];
      scaleAddOn(server, self, next, self, 2, s); // self = self * 2 + next (next is on another stream)
    }
  }
  const bytes = await server.read(handles.map((h) => h.copyDescriptor([n], [1], 4)), 0);
  for (const handle of handles) handle.dispose();
  return bytes.map(asF32);
}

Deno.test({
  name: "interleave and sequential strategies give identical results",
  ignore,
  async fn() {
    const interleave = await workload("interleave");
    const sequential = await workload("sequential");
    assert.deepEqual(interleave, sequential);
    // Reference on the host, in registration order.
    const values = [1, 2, 3];
    for (let round = 0; round < 4; round++) {
      for (let s = 0; s < 3; s++) values[s] = values[s] * 2 + values[(s + 1) % 3];
    }
    assert.deepEqual(interleave.map((row) => row[0]), values);
  },
});

const broken: WgslKernel = {
  id: "broken_syntax",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  a[id.x] = ;
}`,
};

Deno.test({
  name: "bad input raises typed errors and the server keeps computing",
  ignore,
  async fn(t) {
    using server = await WebGpuServer.create();
    using a = server.createWithData(u32(Array(64).fill(1)), 0);
    const incrementA = () =>
      server.execute({
        kernel: increment,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
    let expected = 1;
    const stillComputes = async () => {
      incrementA();
      expected++;
      const [bytes] = await server.read([a.copyDescriptor([64], [1], 4)], 0);
      assert.deepEqual(asU32(bytes), Array(64).fill(expected));
    };

    await t.step("WGSL syntax error: COMPILATION with the line", async () => {
      await assert.rejects(
        server.compile(broken),
        (e) => e instanceof CompilationError && e.line === 3,
      );
      assert.throws(
        () =>
          server.execute({
            kernel: broken,
            count: CubeCount.new1d(1),
            args: new KernelArguments().withBuffer(a.ref()),
          }, 0),
        CompilationError,
      );
      await stillComputes();
    });

    await t.step("a failing kernel first seen by execute is reported by sync", async () => {
      const lazy = { ...broken, id: "broken_lazy" };
      incrementA();
      server.execute({
        kernel: lazy,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      incrementA();
      expected += 2; // the valid work around the failed dispatch still runs
      await assert.rejects(server.sync(0), (e) => e instanceof CompilationError && e.line === 3);
      await stillComputes();
    });

    await t.step("missing entry point", async () => {
      await assert.rejects(
        server.compile({ ...increment, id: "no_entry", entryPoint: "nope" }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "entryPoint" &&
          /'nope' but the WGSL declares @compute entry point 'main'/.test(e.message),
      );
      await stillComputes();
    });

    await t.step("binding count mismatch is rejected before enqueue", async () => {
      using b = server.createWithData(u32([0]), 0);
      assert.throws(
        () =>
          server.execute({
            kernel: increment,
            count: CubeCount.new1d(1),
            args: new KernelArguments().withBuffers([a.ref(), b.ref()]),
          }, 0),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "buffers" &&
          /has 2 handles, but the WGSL declares 1 storage binding \(a\)/.test(e.message),
      );
      await stillComputes();
    });

    await t.step("buffer too big names the limit", () => {
      const limit = server.properties.maxAllocationSize;
      assert.throws(
        () => server.create([AllocationDescriptor.contiguous([limit + 4], 1)], 0),
        (e) =>
          code(e) === "BUFFER_TOO_BIG" &&
          /max(Buffer|StorageBufferBinding)Size/.test((e as Error).message),
      );
    });

    await t.step("read of a disposed handle: INVALID_HANDLE", async () => {
      const doomed = server.createWithData(u32([1]), 0);
      const descriptor = doomed.copyDescriptor([1], [1], 4);
      server.flush(0); // the queued write pins the memory until it is submitted
      doomed.dispose();
      await assert.rejects(server.read([descriptor], 0), (e) => code(e) === "INVALID_HANDLE");
      await stillComputes();
    });

    await t.step("copy out of range, strided copy, tensor maps", async () => {
      await assert.rejects(server.read([a.copyDescriptor([65], [1], 4)], 0), RangeError);
      await assert.rejects(
        server.read([a.copyDescriptor([8, 4], [8, 2], 4)], 0),
        (e) => code(e) === "UNSUPPORTED_STRIDES",
      );
      assert.throws(
        () =>
          server.write([{ descriptor: a.copyDescriptor([2], [1], 4), data: new Uint8Array(4) }], 0),
        RangeError,
      );
      const maps = new KernelArguments().withBuffer(a.ref()).withTensorMaps([{
        ref: a.ref(),
        shape: [64],
        strides: [1],
        storageType: "u32",
      }]);
      assert.throws(
        () => server.execute({ kernel: increment, count: CubeCount.new1d(1), args: maps }, 0),
        (e) => code(e) === "UNSUPPORTED",
      );
      await stillComputes();
    });

    await t.step("use after destroy: DESTROYED", async () => {
      const doomed = await WebGpuServer.create();
      doomed.destroy();
      assert.throws(
        () => doomed.createWithData(new Uint8Array(4), 0),
        (e) => code(e) === "DESTROYED",
      );
      await assert.rejects(doomed.compile(increment), (e) => code(e) === "DESTROYED");
      await stillComputes();
    });
  },
});
