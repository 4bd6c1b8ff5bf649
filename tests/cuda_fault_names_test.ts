/**
 * A kernel fault on the device is reported at a later driver call (CUDA's sticky errors): the
 * error of that call names the launches in flight when the fault was first seen (the candidates
 * for the faulting kernel), newest first, and says how to pinpoint it. Simulated driver:
 * `CUDA_SIM_LAUNCH_FAIL_AT=n` makes the n-th launch of a context fault; a user PTX kernel that
 * reads outside every allocation faults with `CUDA_ERROR_ILLEGAL_ADDRESS`.
 */
import assert from "node:assert/strict";
import { ComputeError, CubeCount, KernelArguments, StreamUnhealthyError } from "../backend.ts";
import { CUDA_KERNELS, CudaDriverError, CudaServer } from "../runtime/server/cuda/mod.ts";
import { createClient } from "../mod.ts";
import { graphLaunches, resetHazards, SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

const u32 = (values: number[]) => new Uint8Array(new Uint32Array(values).buffer);
const sim = () => CudaServer.create({ library: SIM_LIBRARY });
const code = (error: unknown) => error instanceof ComputeError ? error.code : String(error);

/** The driver error behind `error` (itself, or a `STREAM_UNHEALTHY`'s cause). */
function driverError(error: unknown): CudaDriverError {
  const found = error instanceof StreamUnhealthyError ? error.cause : error;
  assert.ok(found instanceof CudaDriverError, `not a driver error: ${error}`);
  return found;
}

Deno.test("a fault's later errors name the launches in flight, newest first, on every path", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    using server = sim();
    using a = server.createWithData(u32([1, 2, 3, 4]), 0);
    using b = server.createWithData(u32([5, 6, 7, 8]), 1);
    const increment = (ref: typeof a, stream: number) =>
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(3),
        args: new KernelArguments().withBuffer(ref.ref()),
      }, stream);
    increment(a, 0);
    increment(b, 1); // faults on the device; the first may still be running
    const first = await server.sync(1).then(() => undefined, (e) => e);
    const error = driverError(first);
    assert.equal(error.errorName, "CUDA_ERROR_LAUNCH_FAILED"); // the codes users match stay
    assert.equal(error.code, "DRIVER");
    assert.deepEqual(error.launches, [
      { kernel: "cuda.increment_u32", stream: 1, grid: [3, 1, 1], block: [256, 1, 1] },
      { kernel: "cuda.increment_u32", stream: 0, grid: [3, 1, 1], block: [256, 1, 1] },
    ]);
    assert.match(
      error.message,
      /failed with CUDA_ERROR_LAUNCH_FAILED \(719\): unspecified launch failure: a kernel faulted on the device earlier; CUDA reports a fault asynchronously/,
    );
    assert.match(
      error.message,
      /newest first.*: 'cuda.increment_u32' on stream 1 \(grid \[3,1,1\], block \[256,1,1\]\), 'cuda.increment_u32' on stream 0 \(grid \[3,1,1\], block \[256,1,1\]\)/,
    );
    assert.match(error.message, /CUDA_LAUNCH_BLOCKING has no effect/);
    // Every later error of the context names the same candidates: a launch, a read, a sync.
    assert.throws(() => increment(a, 0), (e) => {
      assert.equal(code(e), "STREAM_UNHEALTHY");
      assert.match((e as Error).message, /'cuda.increment_u32' on stream 1 \(grid \[3,1,1\]/);
      assert.deepEqual(driverError(e).launches, error.launches);
      return true;
    });
    await assert.rejects(server.read([a.copyDescriptor([4], [1], 4)], 0), (e) => {
      assert.deepEqual(driverError(e).launches, error.launches);
      return true;
    });
    await assert.rejects(server.sync(0), (e) => {
      assert.deepEqual(driverError(e).launches, error.launches);
      return true;
    });
  });
});

Deno.test("a launch seen complete is no longer a candidate: the fault names only the one after", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    using server = sim();
    using a = server.createWithData(u32([1, 2, 3, 4]), 0);
    server.execute({
      kernel: CUDA_KERNELS.incrementU32,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(a.ref()),
    }, 0);
    await server.sync(0); // complete: released from the log
    server.execute({
      kernel: CUDA_KERNELS.fillF32,
      count: CubeCount.new1d(2),
      args: new KernelArguments().withBuffer(a.ref())
        .withMetadata({ data: new Uint32Array([4]), staticLength: 1 }).withScalar("f32", [1]),
    }, 0);
    await assert.rejects(server.read([a.copyDescriptor([4], [1], 4)], 0), (e) => {
      const error = driverError(e);
      assert.deepEqual(error.launches?.map((l) => [l.kernel, l.stream, l.grid]), [
        ["cuda.fill_f32", 0, [2, 1, 1]],
      ]);
      assert.doesNotMatch(error.message, /increment_u32/);
      return true;
    });
  });
  // A new context starts with an empty log: its errors name nothing of the old one.
  using fresh = sim();
  using c = fresh.createWithData(u32([5]), 0);
  assert.deepEqual([...(await fresh.read([c.copyDescriptor([4], [1], 1)], 0))[0]], [5, 0, 0, 0]);
});

Deno.test("at most 8 candidates are listed, newest first with each stream's oldest; the rest are counted", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "11" }, async () => {
    using server = sim();
    using a = server.createWithData(u32([0]), 0);
    for (let i = 1; i <= 11; i++) {
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(i), // the grid tells the launches apart
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
    }
    await assert.rejects(server.sync(0), (e) => {
      const error = driverError(e);
      // The stream's oldest launch not known complete (its likeliest culprit) is always listed.
      assert.deepEqual(error.launches?.map((l) => l.grid[0]), [11, 10, 9, 8, 7, 6, 5, 1]);
      assert.match(error.message, /grid \[1,1,1\], block \[256,1,1\]\), and 3 more not listed\./);
      return true;
    });
  });
});

Deno.test("each device's fault names its own launches, not another device's", async () => {
  await withSimEnv({ CUDA_SIM_DEVICES: "2", CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    using d0 = CudaServer.create({ library: SIM_LIBRARY, ordinal: 0 });
    using d1 = CudaServer.create({ library: SIM_LIBRARY, ordinal: 1 });
    using a = d0.createWithData(u32([1]), 0);
    using b = d1.createWithData(u32([1]), 0);
    const launch = (server: CudaServer, ref: typeof a, blocks: number) =>
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(blocks),
        args: new KernelArguments().withBuffer(ref.ref()),
      }, 0);
    launch(d0, a, 2048); // long enough that device 0's sync waits (parked) for the fault
    launch(d0, a, 2); // device 0's second launch: it faults
    launch(d1, b, 5); // device 1's first launch: it runs
    // Device 1's context is current last: the host wait makes device 0's current for its error.
    const [faulted, healthy] = await Promise.allSettled([d0.sync(0), d1.sync(0)]);
    assert.equal(healthy.status, "fulfilled");
    assert.equal(faulted.status, "rejected");
    const error = driverError((faulted as PromiseRejectedResult).reason);
    assert.deepEqual(error.launches?.map((l) => l.grid[0]), [2, 2048]);
    assert.deepEqual((await d1.read([b.copyDescriptor([1], [1], 4)], 0))[0], u32([2]));
  });
});

Deno.test("a user PTX kernel reading out of bounds: ILLEGAL_ADDRESS naming it", async () => {
  resetHazards();
  using server = sim();
  const ptx = ".version 7.0\n.target sm_75\n.address_size 64\n" +
    ".visible .entry oob_read(.param .u64 src, .param .u64 dst)\n{\n" +
    "\t.reg .b64 %rd<4>; .reg .b32 %r<2>;\n" +
    "\tld.param.u64 %rd1, [src];\n\tld.param.u64 %rd2, [dst];\n" +
    "\tadd.u64 %rd3, %rd1, 1073741824;\n" + // 1 GiB past the buffer: outside every allocation
    "\tld.global.u32 %r1, [%rd3];\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
  const kernel = { ptx, blockSize: [32, 1, 1] as const };
  using src = server.createWithData(u32([1]), 0);
  using dst = server.createWithData(u32([0]), 0);
  server.execute({
    kernel,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(src.ref()).withBuffer(dst.ref()),
  }, 0);
  await assert.rejects(server.read([dst.copyDescriptor([1], [1], 4)], 0), (e) => {
    const error = driverError(e);
    assert.equal(error.errorName, "CUDA_ERROR_ILLEGAL_ADDRESS");
    assert.deepEqual(error.launches, [
      { kernel: "oob_read", stream: 0, grid: [1, 1, 1], block: [32, 1, 1] },
    ]);
    assert.match(error.message, /'oob_read' on stream 0 \(grid \[1,1,1\], block \[32,1,1\]\)/);
    return true;
  });
  resetHazards();
});

Deno.test("a fault in a graph replayed with one cuGraphLaunch names the graph's kernels", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const meta = { data: new Uint32Array([8]), staticLength: 1 };
    using x = client.createWithData(new Float32Array(8).fill(1));
    using graph = await client.capture(() => {
      client.execute(CUDA_KERNELS.scaleF32, {
        threads: 8,
        buffers: [x],
        metadata: meta,
        scalars: { f32: [2] },
      });
      client.execute(CUDA_KERNELS.addF32, { threads: 8, buffers: [x, x, x], metadata: meta });
    }, { label: "step" });
    const before = graphLaunches();
    graph.replay(); // its second kernel faults
    assert.equal(graphLaunches() - before, 1);
    await assert.rejects(client.read(x), (e) => {
      const error = driverError(e);
      assert.deepEqual(error.launches?.map((l) => l.kernel), [
        "step/cuda.add_f32",
        "step/cuda.scale_f32",
      ]);
      assert.match(
        error.message,
        /'step\/cuda.add_f32' on stream 0 \(grid \[1,1,1\], block \[256,1,1\]\)/,
      );
      return true;
    });
  });
});

Deno.test("errors that are not faults carry no launches", () => {
  const error = new CudaDriverError("cuMemAlloc_v2(1024)", 2, "CUDA_ERROR_OUT_OF_MEMORY", "oom");
  assert.equal(error.launches, undefined);
  assert.equal(error.message, "cuMemAlloc_v2(1024) failed with CUDA_ERROR_OUT_OF_MEMORY (2): oom");
  const fault = new CudaDriverError("cuStreamCreate", 719, "CUDA_ERROR_LAUNCH_FAILED", "x");
  assert.deepEqual(fault.launches, []);
  assert.match(fault.message, /The launches in flight are not known here/);
  assert.match(fault.message, /CUDA_LAUNCH_BLOCKING has no effect/);
});

Deno.test("a fault met when a new client retains the device's context says the context keeps it", async () => {
  // On an H200 a client made after another's kernel faulted failed at cuDevicePrimaryCtxRetain
  // with the fault (the simulator clears it once the last client lets go, so this is the text).
  const { describeFault } = await import("../runtime/server/cuda/_fault.ts");
  const text = describeFault("cuDevicePrimaryCtxRetain", undefined);
  assert.match(text, /primary context still holds it/);
  assert.match(text, /restart the process/);
  assert.doesNotMatch(describeFault("cuStreamQuery(stream 0)", undefined), /primary context/);
});
