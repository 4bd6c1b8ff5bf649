/**
 * The parts of the server contract that changed after the CUDA backend was written (leases,
 * malformed launches, kernels without an id), checked on the simulated driver.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ComputeError, type CopyDescriptor, CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import { asU32, code, f32, meta, u32 } from "./_bytes.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  simDriver,
} from "./fixtures/cuda_sim.ts";

Deno.test("getResource orders the stream after the binding's writers; the lease pins the memory", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const n = 256;
  const data = server.createWithData(f32(Array(n).fill(1)), 1);
  server.execute({ // a slow write on stream 1
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata(meta(n)).withScalar("u32", [
      2000,
    ]),
  }, 1);
  using lease = server.getResource(data.ref(), 2);
  const id = data.slice.record;
  data.dispose();
  assert.equal(id.released, false, "the lease keeps the memory");
  // Our own copy on stream 2, in the runtime's order: it must see the slow kernel's write.
  const host = new Float32Array(n);
  const { symbols } = simDriver;
  simDriver.check(
    symbols.cuMemcpyDtoHAsync_v2(
      Deno.UnsafePointer.of(host),
      lease.resource + BigInt(lease.offset),
      BigInt(lease.size),
      server.cudaStream(2),
    ),
    "cuMemcpyDtoHAsync_v2",
  );
  simDriver.check(symbols.cuStreamSynchronize(server.cudaStream(2)), "cuStreamSynchronize");
  assert.deepEqual([...host], Array(n).fill(2));
  assert.equal(hazardCount(), 0, hazardReport());
  lease.release();
  await server.sync(0);
  assert.equal(id.released, true);
});

Deno.test("malformed launches and kernels are refused before anything is enqueued", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(u32([1, 2, 3, 4]), 0);
  const good = {
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(a.ref()),
  };
  const cases: [string, Record<string, unknown>, new (...args: never[]) => Error, string?][] = [
    ["negative count", { count: { kind: "static", x: -1, y: 1, z: 1 } }, RangeError],
    ["threads of 2^32", { count: { kind: "threads", x: 2 ** 32, y: 1, z: 1 } }, RangeError],
    ["unknown count kind", { count: { kind: "bogus" } }, TypeError],
    ["args not a KernelArguments", { args: { buffers: [a.ref()] } }, TypeError],
    [
      "a Handle as a HandleRef",
      { args: Object.assign(new KernelArguments(), { buffers: [a] }) },
      TypeError,
    ],
    ["bogus mode", { mode: "fast" }, RangeError],
    // With bufferLengths (the internal layout), params have no parameter to go to.
    [
      "named params with the internal layout",
      { params: { n: 4 } },
      ComputeError,
      "KERNEL_ARGUMENT",
    ],
    [
      "blockSize not [x, y, z]",
      { kernel: { ...CUDA_KERNELS.incrementU32, blockSize: [256] } },
      TypeError,
    ],
    [
      "block of 0 threads",
      { kernel: { ...CUDA_KERNELS.incrementU32, blockSize: [0, 1, 1] } },
      RangeError,
    ],
    [
      "kernel without PTX or CUDA C",
      { kernel: { ...CUDA_KERNELS.incrementU32, ptx: undefined, source: undefined } },
      TypeError,
    ],
    ["kernel not an object", { kernel: "increment_u32" }, TypeError],
  ];
  const streams = server.stats().streams;
  for (const [what, change, type, errorCode] of cases) {
    assert.throws(
      () => server.execute({ ...good, ...change } as typeof good, 1),
      (e) => e instanceof type && (errorCode === undefined || code(e) === errorCode),
      what,
    );
  }
  assert.equal(server.stats().streams, streams, "no launch reached stream 1");
  server.execute(good, 0);
  const [bytes] = await server.read([a.copyDescriptor([4], [1], 4)], 0);
  assert.deepEqual(asU32(bytes), [2, 3, 4, 5]);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("kernels without an id run; one id for two programs never runs the other", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(u32([1, 2, 3, 4]), 0);
  const { id: _, ...anonymous } = CUDA_KERNELS.incrementU32;
  const run = (kernel: CudaKernel, bindings: KernelArguments) =>
    server.execute({ kernel, count: CubeCount.new1d(1), args: bindings }, 0);
  run(anonymous, new KernelArguments().withBuffer(a.ref()));
  // Same id, same PTX module, another entry point: must not reuse increment's function.
  run(
    { ...CUDA_KERNELS.fillU32, id: "mine" },
    new KernelArguments().withBuffer(a.ref()).withMetadata(meta(2)).withScalar("u32", [9]),
  );
  run({ ...CUDA_KERNELS.incrementU32, id: "mine" }, new KernelArguments().withBuffer(a.ref()));
  const [bytes] = await server.read([a.copyDescriptor([4], [1], 4)], 0);
  assert.deepEqual(asU32(bytes), [10, 10, 5, 6]);
  assert.equal(server.stats().moduleLoads, 1, "one module for the three kernels");
  assert.throws(
    () => run(anonymous, new KernelArguments().withBuffers([a.ref(), a.ref()])),
    /Kernel 'increment_u32' takes 2 parameters/,
    "a kernel without an id is named by its entry point",
  );
});

Deno.test("destroy with cross-stream work in flight frees no page under it", async () => {
  resetHazards();
  // Keeps the primary context retained after `server` is gone, to wait for its device work.
  using keeper = CudaServer.create({ library: SIM_LIBRARY });
  const server = CudaServer.create({ library: SIM_LIBRARY });
  const n = 256;
  const data = server.createWithData(f32(Array(n).fill(0)), 1);
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata(meta(n))
      .withScalar("u32", [20_000]),
  }, 1);
  const shared = server.createWithData(u32([1]), 2);
  server.execute({ // stream 1 uses a page of stream 2's pool, behind the slow kernel
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(shared.ref()),
  }, 1);
  data.dispose();
  shared.dispose();
  server.destroy(); // frees stream 2's page in stream 2's order: after stream 1's use too
  // The work destroy left running still completes (destroy left no context current).
  keeper.device.makeCurrent();
  simDriver.check(simDriver.symbols.cuCtxSynchronize(), "cuCtxSynchronize");
  await server.drained; // the drain left to the background by destroy
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("hand-built descriptors and entries are refused with TypeError/RangeError; the server keeps computing", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(u32([1, 2, 3, 4]), 0);
  const binding = a.ref();
  const descriptor = (shape: unknown, strides: unknown, elemSize: unknown) =>
    ({ ref: binding, shape, strides, elemSize }) as CopyDescriptor;
  const bad: [string, unknown, new (...args: never[]) => Error][] = [
    ["negative stride", descriptor([2, 2], [-2, 1], 4), RangeError],
    ["fractional shape", descriptor([1.5], [1], 4), RangeError],
    ["NaN elemSize", descriptor([4], [1], NaN), RangeError],
    ["shape and strides of different ranks", descriptor([4], [1, 1], 4), RangeError],
    ["strides not an array", descriptor([4], "1", 4), TypeError],
    ["a Handle as the ref", { ...descriptor([4], [1], 4), ref: a }, TypeError],
    ["null", null, TypeError],
  ];
  for (const [what, d, type] of bad) {
    await assert.rejects(server.read([d as CopyDescriptor], 0), type, `read: ${what}`);
    assert.throws(
      () => server.write([{ descriptor: d as CopyDescriptor, data: u32([0, 0, 0, 0]) }], 0),
      type,
      `write: ${what}`,
    );
  }
  const calls: [string, () => unknown, new (...args: never[]) => Error][] = [
    ["read of a non-array", () => server.read("a" as never, 0), TypeError],
    ["write of a non-array", () => server.write({} as never, 0), TypeError],
    ["write of null", () => server.write([null as never], 0), TypeError],
    [
      "write of a string",
      () => server.write([{ descriptor: a.copyDescriptor([4], [1], 4), data: "abcd" as never }], 0),
      TypeError,
    ],
    ["create of null", () => server.create([null as never], 0), TypeError],
    [
      "create of a bad shape",
      () => server.create([{ kind: "contiguous", shape: [-1], elemSize: 4 }], 0),
      RangeError,
    ],
    ["create of a non-array", () => server.create({} as never, 0), TypeError],
    ["staging of a non-array", () => server.staging(8 as never, 0), TypeError],
  ];
  for (const [what, call, type] of calls) {
    await assert.rejects(async () => await call(), type, what);
  }
  server.execute({
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(a.ref()),
  }, 0);
  const [bytes] = await server.read([a.copyDescriptor([4], [1], 4)], 0);
  assert.deepEqual(asU32(bytes), [2, 3, 4, 5]);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a read or sync with nothing left to wait for still settles with DESTROYED after destroy", async () => {
  // The conformance step's race made deterministic: the last poll saw the work complete (here
  // there is none), then destroy ran before the promise settled.
  const server = CudaServer.create({ library: SIM_LIBRARY });
  using empty = server.createWithData(new Uint8Array(0), 0);
  const pending = [server.read([empty.copyDescriptor([0], [1], 4)], 0), server.sync(0)];
  server.destroy();
  const results = await Promise.allSettled(pending);
  assert.deepEqual(
    results.map((r) => r.status === "rejected" ? code(r.reason) : "fulfilled"),
    ["DESTROYED", "DESTROYED"],
  );
  await server.drained; // the waits parked on Deno's pool return in the background
});
