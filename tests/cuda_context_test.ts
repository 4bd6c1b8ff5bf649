/**
 * One context per server: servers on two simulated devices (`CUDA_SIM_DEVICES=2`) share the
 * thread, and each makes its own context current for its driver calls, also for timeline signals,
 * profiling windows and copies between them; destroying one leaves no released context current.
 * The simulator's cross-context rules, which make these bugs fail, are checked with raw driver
 * calls against what cuda.h documents.
 */
import assert from "node:assert/strict";
import { AllocationDescriptor, CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  simDriver,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

const u32 = (values: number[]) => new Uint8Array(new Uint32Array(values).buffer);
const asU32 = (bytes: Uint8Array) => [...new Uint32Array(bytes.slice().buffer)];
const two = <T>(fn: () => T | Promise<T>) => withSimEnv({ CUDA_SIM_DEVICES: "2" }, fn);
const device = (ordinal: number) => CudaServer.create({ library: SIM_LIBRARY, ordinal });
const increment = (server: CudaServer, handle: Handle, stream: number) =>
  server.execute({
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(handle.ref()),
  }, stream);

/** The context current on this thread (0n: none). */
function currentContext(): bigint {
  const out = new BigUint64Array(1);
  simDriver.check(simDriver.symbols.cuCtxGetCurrent(out), "cuCtxGetCurrent");
  return out[0];
}
const address = (server: CudaServer) => BigInt(Deno.UnsafePointer.value(server.device.context));

Deno.test("two servers on two devices take turns; each works in its own context", async () => {
  resetHazards();
  await two(async () => {
    using a = device(0);
    using b = device(1);
    using x = a.createWithData(u32([1, 2, 3]), 0);
    using y = b.createWithData(u32([10, 20, 30]), 1); // b's context is current now
    increment(a, x, 1); // a's work, under a's context
    increment(b, y, 0);
    const [fromA, fromB] = await Promise.all([
      a.read([x.copyDescriptor([3], [1], 4)], 0),
      b.read([y.copyDescriptor([3], [1], 4)], 1),
    ]);
    assert.deepEqual(asU32(fromA[0]), [2, 3, 4]);
    assert.deepEqual(asU32(fromB[0]), [11, 21, 31]);
    assert.deepEqual([a.properties.deviceName, b.properties.deviceName].map((n) => n[9]), [
      "0",
      "1",
    ]);
  });
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a destroyed server leaves no released context current; the other keeps working", async () => {
  await two(async () => {
    using a = device(0);
    const b = device(1);
    using x = a.createWithData(u32([5]), 0);
    b.createWithData(u32([6]), 0).dispose(); // b's context current
    assert.equal(currentContext(), address(b));
    b.destroy();
    assert.equal(currentContext(), 0n, "b's released context was current: no longer");
    increment(a, x, 0);
    assert.deepEqual(asU32((await a.read([x.copyDescriptor([1], [1], 4)], 0))[0]), [6]);
  });
});

Deno.test("timeline signals, profiling windows and copies bind their server's context", async () => {
  resetHazards();
  await two(async () => {
    using a = device(0);
    using b = device(1);
    using signal = a.timelineSignal(0);
    using x = a.createWithData(u32([1, 2]), 0);
    const token = a.startProfile(0);
    using y = b.createWithData(u32([7]), 0); // b's context current
    signal.record(1); // records on a's stream
    await signal.wait(1, { timeoutMs: 5_000 });
    b.createWithData(u32([8]), 0).dispose();
    const { milliseconds } = await a.endProfile(0, token);
    assert.ok(milliseconds >= 0);
    const [allocation] = b.create([AllocationDescriptor.contiguous([2], 4)], 0);
    allocation.handle.dispose();
    const copied = await a.copyTo(b, x.copyDescriptor([2], [1], 4), { source: 0, destination: 1 });
    using handle = copied.handle;
    assert.deepEqual(asU32((await b.read([handle.copyDescriptor([2], [1], 4)], 1))[0]), [1, 2]);
    assert.deepEqual(asU32((await b.read([y.copyDescriptor([1], [1], 4)], 0))[0]), [7]);
  });
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("simulator: the real driver's answers to a use under another context", async () => {
  resetHazards();
  await two(() => {
    const s = simDriver.symbols;
    const out = new BigUint64Array(1);
    const call = (result: number, what: string) => simDriver.check(result, what);
    const pointer = () => Deno.UnsafePointer.create(out[0]);
    call(s.cuInit(0), "cuInit");
    call(s.cuDevicePrimaryCtxRetain(out, 0), "retain 0");
    const ctx0 = pointer();
    call(s.cuDevicePrimaryCtxRetain(out, 1), "retain 1");
    const ctx1 = pointer();
    try {
      call(s.cuCtxSetCurrent(ctx1), "current 1");
      call(s.cuStreamCreate(out, 1), "stream 1");
      const stream1 = pointer();
      call(s.cuEventCreate(out, 2), "event 1");
      const event1 = pointer();
      call(s.cuMemAlloc_v2(out, 256n), "alloc 1");
      const memory1 = out[0];
      call(s.cuCtxSetCurrent(ctx0), "current 0");
      call(s.cuStreamCreate(out, 1), "stream 0");
      const stream0 = pointer();
      // Work on a stream of another context, an event recorded on a stream of another context
      // (cuda.h: "must be from the same context otherwise CUDA_ERROR_INVALID_HANDLE").
      assert.equal(s.cuMemsetD8Async(memory1, 0, 256n, stream1), 400);
      assert.equal(s.cuEventRecord(event1, stream0), 400);
      assert.equal(hazardCount(), 2, hazardReport());
      // cuda.h: "hEvent may be from a different context or device than hStream".
      assert.equal(s.cuStreamWaitEvent(stream0, event1, 0), 0);
      assert.equal(s.cuEventQuery(event1), 0, "queries act in the event's own context");
      // A function runs on streams of its own context, and touches its own device's memory.
      const cstring = (text: string) => new TextEncoder().encode(text + "\0");
      call(s.cuModuleLoadData(out, cstring(CUDA_KERNELS.fillF32.ptx!)), "module 0");
      const module0 = pointer();
      call(s.cuModuleGetFunction(out, module0, cstring("fill_f32")), "function 0");
      const fill0 = pointer();
      const slots = new BigUint64Array([memory1, 64n, 0n]);
      const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(slots)));
      const params = new BigUint64Array([base, base + 8n, base + 16n]);
      const launch = (stream: Deno.PointerValue) =>
        s.cuLaunchKernel(fill0, 1, 1, 1, 64, 1, 1, 0, stream, params, null);
      assert.equal(launch(stream1), 400, "a stream of another context");
      call(s.cuCtxSetCurrent(ctx1), "current 1");
      assert.equal(s.cuModuleGetFunction(out, module0, cstring("fill_f32")), 400);
      call(s.cuCtxSetCurrent(null), "no current");
      assert.equal(s.cuMemAlloc_v2(out, 256n), 201, "CUDA_ERROR_INVALID_CONTEXT");
      call(s.cuCtxSetCurrent(ctx0), "current 0");
      assert.equal(launch(stream0), 0);
      assert.equal(s.cuStreamSynchronize(stream0), 700, "device 1's memory: a sticky fault");
      assert.match(
        hazardReport(),
        /fill_f32 on device 0: .* memory of device 1, which it cannot access/,
      );
      assert.equal(hazardCount(), 5, hazardReport());
      call(s.cuCtxSetCurrent(ctx1), "current 1");
      call(s.cuStreamDestroy_v2(stream1), "destroy stream 1");
      call(s.cuEventDestroy_v2(event1), "destroy event 1");
      call(s.cuMemFree_v2(memory1), "free 1");
      call(s.cuDevicePrimaryCtxRelease_v2(1), "release 1");
      assert.equal(s.cuMemAlloc_v2(out, 256n), 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED");
      call(s.cuStreamDestroy_v2(stream0), "destroy stream 0");
      call(s.cuCtxSetCurrent(ctx0), "current 0");
      call(s.cuModuleUnload(module0), "unload 0");
    } finally {
      s.cuCtxSetCurrent(null);
      s.cuDevicePrimaryCtxRelease_v2(0);
    }
  });
  resetHazards();
});
