/**
 * CUDA backend costs per task against raw FFI calls of the same driver functions, on the
 * simulated driver (`tests/fixtures/cuda_sim`, built by `deno task bench`) or on the real one
 * with `GPUCOMPUTE_BENCH_CUDA_LIBRARY=/path/to/libcuda.so.1` (and `--allow-env`).
 *
 * - **launch**: `CudaServer.execute` of `fill_f32` (module cache lookup, stream resolve with
 *   health check, parameter marshalling, `cuLaunchKernel`) vs `cuLaunchKernel` alone with
 *   prepared parameters.
 * - **event record + wait**: a launch on alternating streams over one buffer, so every task
 *   makes the multi-stream record an event on the other stream and wait on it (plus the pin of
 *   the shared binding, once per batch, and the batch's GC task at the end of the run) vs
 *   `cuEventRecord` + `cuStreamWaitEvent` alone.
 * - **event GC settled**: {@linkcode TASKS} such launches and a `sync`, timed together (the
 *   batches' GC tasks settle with the sync); vs the raw calls and a `cuEventQuery` loop on the
 *   last event.
 * - **read after a launch**: `execute` then a 4-byte `read` (one event, queried for up to 30 µs,
 *   then a parked non-blocking `cuEventSynchronize`, no timer; also with `waitSpinUs: 0`, parked
 *   at once) vs `cuLaunchKernel` + `cuStreamSynchronize` +
 *   `cuMemcpyDtoHAsync` into pinned memory + `cuStreamSynchronize`.
 * - **1,000 launches**: `execute` 1,000 times on the handles' own stream, and on another stream
 *   than the one the handles were made on, vs `cuLaunchKernel` alone (host time).
 * - **context binding**: what every server operation adds so that servers of several devices can
 *   share the thread: `CudaDevice.makeCurrent` with the context already current (one
 *   `cuCtxGetCurrent` and a comparison) vs `cuCtxGetCurrent` alone.
 *
 * Each iteration times {@linkcode TASKS} tasks ({@linkcode EVENT_TASKS} in the event group); the
 * device is synchronized outside the timing. Divide by the task count for one task. With more
 * GC tasks than the GC bound in flight, `execute` waits for the oldest GC event (back-pressure),
 * and the figure becomes the device's completion latency instead; cross-stream launches make one
 * GC task per stream and batch (`runtime/stream/_hand_over.ts`), so a run of them rarely does.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";

const TASKS = 256;
/** Tasks per iteration of the event group: below the server's GC bound (64 pending tasks), so
 * the figures are host costs, not the simulated device's completion latency. */
const EVENT_TASKS = 32;
const N = 1024;
const library = (() => {
  try {
    return Deno.env.get("GPUCOMPUTE_BENCH_CUDA_LIBRARY");
  } catch {
    return undefined;
  }
})() ?? new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;

const server = CudaServer.create({ library, maxStreams: 4 });
const driver = server.device.driver;
const { symbols, out64 } = driver;
const buffer = server.createWithData(new Uint8Array(N * 4), 0);
const bindings = new KernelArguments().withBuffer(buffer.ref())
  .withMetadata({ data: new Uint32Array([N]), staticLength: 1 }).withScalar("f32", [1]);
const count = CubeCount.new1d(N / 256);
const fill = { kernel: CUDA_KERNELS.fillF32, count, args: bindings };
/** The same device with waits that park at once (`waitSpinUs: 0`), for the read group. */
const parking = CudaServer.create({ library, maxStreams: 4, waitSpinUs: 0 });
const parkingBuffer = parking.createWithData(new Uint8Array(N * 4), 0);
const parkingFill = {
  kernel: CUDA_KERNELS.fillF32,
  count,
  args: new KernelArguments().withBuffer(parkingBuffer.ref())
    .withMetadata({ data: new Uint32Array([N]), staticLength: 1 }).withScalar("f32", [1]),
};
const parkingRead = parkingBuffer.copyDescriptor([1], [1], 4);
server.execute(fill, 0); // loads the module

// Raw: the same function, stream, pointer and parameters, prepared once.
server.compile(CUDA_KERNELS.fillF32);
const ptx = new TextEncoder().encode(CUDA_KERNELS.fillF32.ptx + "\0");
driver.check(symbols.cuModuleLoadData(out64, ptx), "cuModuleLoadData");
const module = driver.pointerAt();
driver.check(
  symbols.cuModuleGetFunction(out64, module, new TextEncoder().encode("fill_f32\0")),
  "cuModuleGetFunction",
);
const fn = driver.pointerAt();
const rawStreams = [0, 1].map(() => {
  driver.check(symbols.cuStreamCreate(out64, 1), "cuStreamCreate");
  return driver.pointerAt();
});
const values = new ArrayBuffer(24);
const at = server.getResource(buffer.ref(), 0);
new DataView(values).setBigUint64(0, at.resource + BigInt(at.offset), true);
new DataView(values).setUint32(8, N, true);
new DataView(values).setFloat32(16, 1, true);
const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
// `values` must stay reachable while the pointers to it are used: keep both in one object.
const raw = { values, params: new BigUint64Array([base, base + 8n, base + 16n]) };
driver.check(symbols.cuEventCreate(out64, 2), "cuEventCreate");
const event = driver.pointerAt();

async function settle(): Promise<void> {
  // Also keeps `buffer` referenced: an unreferenced handle would be collected and its memory
  // released by the handles' FinalizationRegistry safety net.
  if (buffer.disposed) throw new Error("the benchmark buffer was released");
  await server.sync(0);
  for (const s of rawStreams) symbols.cuStreamSynchronize(s); // outside the timing
}

Deno.bench("CudaServer.execute", { group: "launch", baseline: true }, async (b) => {
  b.start();
  for (let i = 0; i < TASKS; i++) server.execute(fill, 0);
  b.end();
  await settle();
});

Deno.bench("raw cuLaunchKernel", { group: "launch" }, async (b) => {
  b.start();
  for (let i = 0; i < TASKS; i++) {
    symbols.cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, rawStreams[0], raw.params, null);
  }
  b.end();
  await settle();
});

Deno.bench("CudaServer.execute on alternating streams", {
  group: "event record + wait",
  baseline: true,
}, async (b) => {
  b.start();
  for (let i = 0; i < EVENT_TASKS; i++) server.execute(fill, i % 2);
  b.end();
  await settle();
});

Deno.bench("raw cuEventRecord + cuStreamWaitEvent", { group: "event record + wait" }, async (b) => {
  b.start();
  for (let i = 0; i < EVENT_TASKS; i++) {
    symbols.cuEventRecord(event, rawStreams[i % 2]);
    symbols.cuStreamWaitEvent(rawStreams[(i + 1) % 2], event, 0);
  }
  b.end();
  await settle();
});

Deno.bench("raw launch + cuEventRecord + cuStreamWaitEvent", {
  group: "event record + wait",
}, async (b) => {
  b.start();
  for (let i = 0; i < EVENT_TASKS; i++) {
    symbols.cuEventRecord(event, rawStreams[i % 2]);
    symbols.cuStreamWaitEvent(rawStreams[(i + 1) % 2], event, 0);
    symbols.cuLaunchKernel(
      fn,
      N / 256,
      1,
      1,
      256,
      1,
      1,
      0,
      rawStreams[(i + 1) % 2],
      raw.params,
      null,
    );
  }
  b.end();
  await settle();
});

Deno.bench("CudaServer.execute on alternating streams, then sync", {
  group: "event GC settled",
  baseline: true,
}, async (b) => {
  b.start();
  for (let i = 0; i < TASKS; i++) server.execute(fill, i % 2);
  await server.sync(0);
  b.end();
  await settle();
});

Deno.bench("raw launch + cuEventRecord + cuStreamWaitEvent, then cuEventQuery", {
  group: "event GC settled",
}, async (b) => {
  b.start();
  for (let i = 0; i < TASKS; i++) {
    symbols.cuEventRecord(event, rawStreams[i % 2]);
    symbols.cuStreamWaitEvent(rawStreams[(i + 1) % 2], event, 0);
    symbols.cuLaunchKernel(
      fn,
      N / 256,
      1,
      1,
      256,
      1,
      1,
      0,
      rawStreams[(i + 1) % 2],
      raw.params,
      null,
    );
  }
  symbols.cuEventRecord(event, rawStreams[(TASKS + 1) % 2]);
  for (let polls = 0; symbols.cuEventQuery(event) !== 0; polls++) {
    await new Promise((resolve) => setTimeout(resolve, polls < 8 ? 0 : 1));
  }
  b.end();
  await settle();
});

Deno.bench("CudaDevice.makeCurrent, already current", {
  group: "context binding",
  baseline: true,
}, (b) => {
  const device = server.device;
  b.start();
  for (let i = 0; i < TASKS; i++) device.makeCurrent();
  b.end();
});

Deno.bench("raw cuCtxGetCurrent", { group: "context binding" }, (b) => {
  const current = new BigUint64Array(1);
  b.start();
  for (let i = 0; i < TASKS; i++) symbols.cuCtxGetCurrent(current);
  b.end();
});

// A 4-byte read after one launch: the round trip the host waits make.
const pinned = (() => {
  driver.check(symbols.cuMemAllocHost_v2(out64, 4n), "cuMemAllocHost_v2");
  return driver.pointerAt();
})();
const word = buffer.copyDescriptor([1], [1], 4);

Deno.bench("CudaServer.execute + read of 4 bytes", {
  group: "read after a launch",
  baseline: true,
}, async () => {
  server.execute(fill, 0);
  await server.read([word], 0);
});

// The same with waits that park a `cuEventSynchronize` at once (`waitSpinUs: 0`; the default
// queries the event for up to 30 µs first): the thread hop's cost.
Deno.bench("CudaServer.execute + read of 4 bytes, parked at once (waitSpinUs: 0)", {
  group: "read after a launch",
}, async () => {
  // Also keeps the handle referenced (else the FinalizationRegistry safety net releases it).
  if (parkingBuffer.disposed) throw new Error("the benchmark buffer was released");
  parking.execute(parkingFill, 0);
  await parking.read([parkingRead], 0);
});

Deno.bench("raw cuLaunchKernel + cuStreamSynchronize + cuMemcpyDtoH", {
  group: "read after a launch",
}, () => {
  symbols.cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, rawStreams[0], raw.params, null);
  symbols.cuStreamSynchronize(rawStreams[0]);
  symbols.cuMemcpyDtoHAsync_v2(pinned, at.resource + BigInt(at.offset), 4n, rawStreams[0]);
  symbols.cuStreamSynchronize(rawStreams[0]);
});

const LAUNCHES = 1000;
// Handles made on stream 0 and launched on stream 1: the first launch orders stream 1 after
// stream 0; the others find it synchronized.
Deno.bench("CudaServer.execute x1000", { group: "1,000 launches", baseline: true }, async (b) => {
  b.start();
  for (let i = 0; i < LAUNCHES; i++) server.execute(fill, 0);
  b.end();
  await settle();
});

Deno.bench("CudaServer.execute x1000 on another stream than the handles'", {
  group: "1,000 launches",
}, async (b) => {
  b.start();
  for (let i = 0; i < LAUNCHES; i++) server.execute(fill, 1);
  b.end();
  await settle();
});

Deno.bench("raw cuLaunchKernel x1000", { group: "1,000 launches" }, async (b) => {
  b.start();
  for (let i = 0; i < LAUNCHES; i++) {
    symbols.cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, rawStreams[0], raw.params, null);
  }
  b.end();
  await settle();
});
