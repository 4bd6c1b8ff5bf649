/**
 * Error paths of the CUDA backend on the simulated driver: a missing library, no device, out of
 * memory, a sticky launch failure, an event that never completes, and PTX the driver rejects.
 * Each case sets the simulator's injection variables, creates its own server and destroys it.
 */
import assert from "node:assert/strict";
import {
  BackendUnavailableError,
  CompilationError,
  ComputeError,
  CubeCount,
  KernelArguments,
} from "../backend.ts";
import {
  CUDA_KERNELS,
  CUDA_LIBRARY_ENV,
  CudaDriverError,
  CudaServer,
  libraryCandidates,
} from "../runtime/server/cuda/mod.ts";
import {
  hazardCount,
  liveAllocations,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

const code = (error: unknown) => error instanceof ComputeError ? error.code : String(error);
const u32 = (values: number[]) => new Uint8Array(new Uint32Array(values).buffer);
const sim = (options = {}) => CudaServer.create({ library: SIM_LIBRARY, ...options });

Deno.test("a missing driver library is BACKEND_UNAVAILABLE naming the path", () => {
  const missing =
    new URL("./fixtures/cuda_sim/build/missing/libcuda.so.1", import.meta.url).pathname;
  assert.throws(() => CudaServer.create({ library: missing }), (error) => {
    assert.ok(error instanceof BackendUnavailableError);
    assert.equal(error.code, "BACKEND_UNAVAILABLE");
    assert.deepEqual(error.tried, [missing]);
    assert.match(error.message, /cannot load the CUDA driver library/);
    assert.ok(error.message.includes(missing));
    // Deno's loader prefixes its message twice; the error says it once.
    assert.equal(error.message.split("Could not open library").length - 1, 0, error.message);
    return true;
  });
});

Deno.test("the library path comes from the option, else GPUCOMPUTE_CUDA_LIBRARY, else libcuda.so.1", async () => {
  assert.deepEqual(libraryCandidates({ library: "/x/libcuda.so" }), ["/x/libcuda.so"]);
  await withSimEnv({ [CUDA_LIBRARY_ENV]: SIM_LIBRARY }, () => {
    assert.deepEqual(libraryCandidates(), [SIM_LIBRARY]);
    using server = CudaServer.create(); // found through the environment
    assert.match(server.properties.deviceName, /cuda_sim/);
  });
  const saved = Deno.env.get(CUDA_LIBRARY_ENV);
  Deno.env.delete(CUDA_LIBRARY_ENV);
  try {
    assert.deepEqual(libraryCandidates(), ["libcuda.so.1", "libcuda.so"]);
  } finally {
    if (saved !== undefined) Deno.env.set(CUDA_LIBRARY_ENV, saved);
  }
});

Deno.test("no device is BACKEND_UNAVAILABLE; a missing ordinal too", async () => {
  await withSimEnv({ CUDA_SIM_NO_DEVICE: "1" }, () => {
    assert.throws(() => sim(), (e) => {
      assert.ok(e instanceof BackendUnavailableError);
      assert.match(e.message, /no CUDA device/);
      assert.ok(e.cause instanceof CudaDriverError && e.cause.errorName === "CUDA_ERROR_NO_DEVICE");
      return true;
    });
  });
  assert.throws(() => sim({ ordinal: 3 }), (e) => {
    assert.equal(code(e), "BACKEND_UNAVAILABLE");
    assert.match(String(e), /device 3 was asked for but the driver reports 1 device/);
    return true;
  });
});

Deno.test("device properties and figures", () => {
  using server = sim();
  assert.equal(server.properties.backend, "cuda");
  assert.equal(server.properties.deviceTimer, true);
  assert.deepEqual(server.device.attributes.computeCapability, [7, 5]);
  const { free, total } = server.device.memoryInfo();
  assert.ok(total === server.device.totalMemory && free <= total);
});

Deno.test("out of memory: one transient failure is retried; exhaustion is OUT_OF_MEMORY", async () => {
  await withSimEnv({ CUDA_SIM_TOTAL_MEM: String(8 << 20), CUDA_SIM_OOM_AT: "2" }, async () => {
    using server = sim();
    // Page 1 (sliced pool, 1 MiB). The 2nd device allocation fails once: freeing the idle page
    // and retrying succeeds.
    server.createWithData(u32([1]), 0).dispose();
    using big = server.createWithData(new Uint8Array(3 << 20), 0);
    const [bytes] = await server.read([big.copyDescriptor([4], [1], 1)], 0);
    assert.deepEqual([...bytes], [0, 0, 0, 0]);
    assert.throws(() => server.createWithData(new Uint8Array(6 << 20), 0), (e) => {
      assert.equal(code(e), "OUT_OF_MEMORY");
      assert.match(
        String(e),
        /Cannot allocate 6 MiB on stream 0: the device is out of memory after a cleanup and a retry/,
      );
      return true;
    });
    using small = server.createWithData(u32([7]), 0); // the server is still usable
    assert.deepEqual([...(await server.read([small.copyDescriptor([4], [1], 1)], 0))[0]], [
      7,
      0,
      0,
      0,
    ]);
  });
});

Deno.test("out of memory: memory another stream's launch pinned is reusable at once once disposed", async () => {
  await withSimEnv({ CUDA_SIM_TOTAL_MEM: String(64 << 20) }, async () => {
    using server = sim();
    const meta = { data: new Uint32Array([4]), staticLength: 1 };
    const parts = [];
    // 4 MiB handles made on stream 1, each used by a launch on stream 0 (a cross-stream pin,
    // released by the GC), until the device is full.
    for (;;) {
      let part;
      try {
        part = server.createWithData(new Uint8Array(4 << 20), 1);
      } catch (error) {
        assert.equal(code(error), "OUT_OF_MEMORY");
        break;
      }
      parts.push(part);
      server.execute({
        kernel: CUDA_KERNELS.fillF32,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(part.ref()).withMetadata(meta)
          .withScalar("f32", [1]),
      }, 0);
    }
    assert.ok(parts.length >= 8, `${parts.length} parts`);
    for (const part of parts) part.dispose();
    // In the same synchronous run (no event-loop turn for the GC): the pins must be settled here.
    using big = server.createWithData(new Uint8Array(16 << 20), 1);
    const [bytes] = await server.read([big.copyDescriptor([4], [1], 1)], 1);
    assert.deepEqual([...bytes], [0, 0, 0, 0]);
    // The fills on stream 0 end before the server does: a drain past destroy's grace (a loaded
    // machine) keeps the context alive, and the simulator reads the next test's injections
    // (CUDA_SIM_LAUNCH_FAIL_AT) only with no live context.
    await server.sync(0);
  });
});

Deno.test("a sticky launch failure makes streams unhealthy: they refuse work", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    using server = sim();
    using a = server.createWithData(u32([1, 2, 3, 4]), 0);
    const increment = () =>
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
    increment();
    increment(); // faults on the device
    await assert.rejects(server.sync(0), (e) => {
      assert.ok(e instanceof CudaDriverError);
      assert.equal(e.errorName, "CUDA_ERROR_LAUNCH_FAILED");
      assert.match(
        e.message,
        /failed with CUDA_ERROR_LAUNCH_FAILED \(719\): unspecified launch failure/,
      );
      return true;
    });
    assert.throws(increment, (e) => code(e) === "STREAM_UNHEALTHY");
    // A profiling window too (its timing event was a DRIVER error of the event record).
    assert.throws(() => server.startProfile(0), (e) => code(e) === "STREAM_UNHEALTHY");
    assert.throws(
      () =>
        server.write([{ descriptor: a.copyDescriptor([4], [1], 4), data: u32([0, 0, 0, 0]) }], 0),
      (e) => code(e) === "STREAM_UNHEALTHY",
    );
    await assert.rejects(
      server.read([a.copyDescriptor([4], [1], 4)], 0),
      (e) => code(e) === "STREAM_UNHEALTHY",
    );
  });
  using fresh = sim(); // a new context is healthy again
  using b = fresh.createWithData(u32([5]), 1);
  assert.deepEqual([...(await fresh.read([b.copyDescriptor([4], [1], 1)], 1))[0]], [5, 0, 0, 0]);
});

Deno.test({
  name: "an event that never completes: TIMEOUT, and the staging memory stays pinned",
}, async () => {
  resetHazards();
  await withSimEnv({ CUDA_SIM_HANG_RECORD_AT: "2" }, async () => {
    const server = sim({ timeoutMs: 100 });
    try {
      using a = server.createWithData(u32([1, 2, 3]), 0); // record 1: the write's staging
      const started = performance.now();
      await assert.rejects(server.read([a.copyDescriptor([3], [1], 4)], 0), (e) => {
        assert.equal(code(e), "TIMEOUT");
        assert.match(String(e), /Timed out after 100 ms waiting for a read: it is not complete/);
        return true;
      });
      assert.ok(performance.now() - started >= 100);
      const pinned = liveAllocations("host");
      server.flush(0); // recycles completed staging
      server.memoryCleanup(0);
      assert.equal(server.stats().pinnedInFlight, 1, "the read's staging buffer is kept");
      assert.equal(liveAllocations("host"), pinned, "and not freed");
    } finally {
      server.destroy(); // destroying the stream releases the simulator's hung record
      await server.drained; // past destroy's grace the drain ends in the background
    }
  });
  assert.equal(hazardCount(), 0);
});

Deno.test("simulator: a cuEventSynchronize parked on a hung event ends when its context is released", async () => {
  await withSimEnv({ CUDA_SIM_HANG_RECORD_AT: "1" }, async () => {
    const server = sim({ timeoutMs: 100 });
    const driver = server.device.driver;
    const { symbols, out64 } = driver;
    server.device.makeCurrent();
    driver.check(symbols.cuEventCreate(out64, 2), "cuEventCreate");
    const event = driver.pointerAt();
    driver.check(symbols.cuEventRecord(event, server.cudaStream(0)), "cuEventRecord"); // hangs
    const parked = driver.waits!.cuEventSynchronize(event);
    let returned: number | undefined;
    void parked.then((result) => returned = result);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(returned, undefined, "parked: the record never completes");
    assert.equal(symbols.cuEventQuery(event), 600, "CUDA_ERROR_NOT_READY");
    server.destroy(); // releases the context (after the drain's timeout: its last work hangs)
    await server.drained;
    assert.equal(await parked, 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED, as the real driver");
  });
});

Deno.test("PTX the driver rejects is a COMPILATION error with the driver's message", () => {
  using server = sim();
  const bad = { ...CUDA_KERNELS.fillF32, id: "bad", ptx: "this is not PTX" };
  assert.throws(() => server.compile(bad), (e) => {
    assert.ok(e instanceof CompilationError);
    assert.match(e.message, /cuModuleLoadDataEx\(bad\) failed with CUDA_ERROR_INVALID_PTX \(218\)/);
    return true;
  });
  const missing = { ...CUDA_KERNELS.fillF32, id: "missing", entryPoint: "nope" };
  assert.throws(() => server.compile(missing), /CUDA_ERROR_NOT_FOUND/);
  // Cached: the second launch fails at once, before any work is enqueued.
  using a = server.createWithData(new Uint8Array(16), 0);
  assert.throws(() =>
    server.execute({
      kernel: bad,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(a.ref()),
    }, 0), CompilationError);
});

Deno.test({
  name: "a GC wait that times out leaves the stream unhealthy and keeps the shared memory pinned",
}, async () => {
  await withSimEnv({ CUDA_SIM_HANG_RECORD_AT: "3" }, async () => {
    const server = sim({ timeoutMs: 100 });
    try {
      const a = server.createWithData(u32([1, 2]), 0); // record 1: the write's staging
      // Cross-stream use: order flushes stream 0 (record 2); finish flushes stream 1 (record 3,
      // which never completes) and the GC stream waits on it.
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 1);
      a.dispose();
      await new Promise((resolve) => setTimeout(resolve, 400)); // the GC wait times out
      assert.equal(server.memoryUsage(0).numberAllocs, 1, "the shared slice stays pinned");
      assert.throws(
        () => server.createWithData(u32([3]), 1),
        (e) => code(e) === "STREAM_UNHEALTHY" && code((e as Error).cause) === "TIMEOUT",
      );
      await assert.rejects(server.sync(1), (e) => code(e) === "TIMEOUT");
    } finally {
      server.destroy();
      await server.drained; // the waits parked on the hung event end with the context
    }
  });
});
