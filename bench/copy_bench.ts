/**
 * Device-to-device copies: `client.copyTo(handle, other)` until the data landed (`other.sync()`)
 * against the raw API path of the same copy, in one group per pair of devices.
 *
 * - **Two WebGPU devices** (two `GPUDevice`s of the first adapter: the fallback adapter here):
 *   the runtime reads the source in chunks (each a copy into a mapped staging buffer) and writes
 *   each chunk into the destination as it arrives; the raw path copies into one `MAP_READ`
 *   buffer, maps it, `queue.writeBuffer`s the mapped range into the other device and waits for
 *   that queue.
 * - **Two simulated CUDA devices with peer access**: `cuMemcpyPeerAsync` on the destination's
 *   stream, ordered by events on both streams; raw: the same call and `cuStreamSynchronize`.
 * - **Two simulated CUDA devices without peer access**: staged through pinned memory (device to
 *   host on the source's stream, host to device on the destination's after an event); raw: the
 *   same two copies on one stream each, an event between them, `cuStreamSynchronize`.
 *
 * The simulated driver copies with `memcpy` on its stream threads, so its figures are the
 * runtime's host overhead around a copy, not a GPU's bandwidth. Needs
 * `--allow-env=CUDA_SIM_DEVICES,CUDA_SIM_PEER` for the CUDA groups (`deno task bench` grants it).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { createClients, listDevices, type WebGpuClient } from "../mod.ts";
import type { CudaServer } from "../runtime/server/cuda/mod.ts";
import type { CudaClient } from "../runtime/backends/create_client.ts";

const BYTES = 16 << 20;
const data = new Uint32Array(BYTES / 4).map((_, i) => i);
const library = new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url)
  .pathname;

// ---- Two WebGPU devices ----------------------------------------------------------------------

const [adapter] = await listDevices({ backend: "webgpu" });
const webgpu: WebGpuClient[] = adapter === undefined ? [] : await createClients([adapter, adapter]);
const raw = await rawWebGpuPair();

if (webgpu.length === 2 && raw !== undefined) {
  const [a, b] = webgpu;
  const x = a.createWithData(data); // lives for the whole run: a bench file has no teardown
  for (const [name, chunkBytes] of [["4 MiB chunks", 4 << 20], ["one chunk", BYTES]] as const) {
    Deno.bench({
      name: `copyTo, ${name}`,
      group: "copy 16 MiB between two WebGPU devices (fallback adapter)",
      baseline: false,
      async fn() {
        using _copy = a.copyTo(x, b, { chunkBytes });
        await b.sync();
      },
    });
  }
  Deno.bench({
    name: "raw: map a staging buffer, writeBuffer into the other device",
    group: "copy 16 MiB between two WebGPU devices (fallback adapter)",
    baseline: true,
    async fn() {
      const encoder = raw.a.createCommandEncoder();
      encoder.copyBufferToBuffer(raw.source, 0, raw.staging, 0, BYTES);
      raw.a.queue.submit([encoder.finish()]);
      await raw.staging.mapAsync(GPUMapMode.READ);
      raw.b.queue.writeBuffer(raw.target, 0, raw.staging.getMappedRange());
      raw.staging.unmap();
      await raw.b.queue.onSubmittedWorkDone();
    },
  });
}

async function rawWebGpuPair() {
  const gpuAdapter = await navigator.gpu?.requestAdapter();
  if (!gpuAdapter) return undefined;
  const [a, b] = [await gpuAdapter.requestDevice(), await gpuAdapter.requestDevice()];
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const source = a.createBuffer({ size: BYTES, usage });
  a.queue.writeBuffer(source, 0, data);
  const staging = a.createBuffer({
    size: BYTES,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const target = b.createBuffer({ size: BYTES, usage });
  return { a, b, source, staging, target };
}

// ---- Simulated CUDA devices --------------------------------------------------------------------

/** Device 0 and 1 reach each other; device 2 reaches none (its copies are staged). */
const cuda = await (async () => {
  try {
    Deno.env.set("CUDA_SIM_DEVICES", "3");
    Deno.env.set("CUDA_SIM_PEER", "0>1,1>0");
    return await createClients(await listDevices({ backend: "cuda", library }));
  } catch (error) {
    console.warn(`copy_bench: no simulated CUDA devices (${error})`);
    return [];
  }
})();

if (cuda.length === 3) {
  const [a, b, c] = cuda;
  const x = a.createWithData(data); // lives for the whole run: a bench file has no teardown
  for (const [to, group] of [[b, "with"], [c, "without"]] as const) {
    const name = `copy 16 MiB between simulated CUDA devices ${group} peer access`;
    Deno.bench({
      name: "copyTo",
      group: name,
      async fn() {
        using _copy = a.copyTo(x, to);
        await to.sync();
      },
    });
    const rawCopy = group === "with" ? rawPeer(a, to, x) : rawStaged(a, to, x);
    Deno.bench({ name: `raw: ${rawCopy.name}`, group: name, baseline: true, fn: rawCopy.fn });
  }
}

/** Raw peer copy: `cuMemcpyPeerAsync` into a buffer of `to`, then `cuStreamSynchronize`. */
function rawPeer(from: CudaClient, to: CudaClient, x: Parameters<CudaClient["read"]>[0]) {
  const [source, target] = [from.server as CudaServer, to.server as CudaServer];
  using _warm = from.copyTo(x, to); // enables peer access, as the runtime does once per pair
  const { symbols } = source.device.driver;
  const src = source.getResource(x.ref(), 0);
  const y = to.empty(BYTES / 4, "u32");
  const dst = target.getResource(y.ref(), 0);
  const stream = target.cudaStream(0);
  return {
    name: "cuMemcpyPeerAsync, cuStreamSynchronize",
    fn() {
      target.device.makeCurrent();
      symbols.cuMemcpyPeerAsync(
        dst.resource + BigInt(dst.offset),
        target.device.context,
        src.resource + BigInt(src.offset),
        source.device.context,
        BigInt(BYTES),
        stream,
      );
      symbols.cuStreamSynchronize(stream);
    },
  };
}

/** Raw staged copy: device to pinned host on one stream, host to device on the other. */
function rawStaged(from: CudaClient, to: CudaClient, x: Parameters<CudaClient["read"]>[0]) {
  const [source, target] = [from.server as CudaServer, to.server as CudaServer];
  const driver = source.device.driver;
  const { symbols, out64 } = driver;
  const src = source.getResource(x.ref(), 0);
  const y = to.empty(BYTES / 4, "u32");
  const dst = target.getResource(y.ref(), 0);
  source.device.makeCurrent();
  driver.check(symbols.cuMemAllocHost_v2(out64, BigInt(BYTES)), "cuMemAllocHost_v2");
  const pinned = driver.pointerAt();
  driver.check(symbols.cuEventCreate(out64, 2), "cuEventCreate");
  const event = driver.pointerAt();
  const [s1, s2] = [source.cudaStream(0), target.cudaStream(0)];
  return {
    name: "cuMemcpyDtoHAsync, event, cuMemcpyHtoDAsync, cuStreamSynchronize",
    fn() {
      source.device.makeCurrent();
      symbols.cuMemcpyDtoHAsync_v2(pinned, src.resource + BigInt(src.offset), BigInt(BYTES), s1);
      symbols.cuEventRecord(event, s1);
      target.device.makeCurrent();
      symbols.cuStreamWaitEvent(s2, event, 0);
      symbols.cuMemcpyHtoDAsync_v2(dst.resource + BigInt(dst.offset), pinned, BigInt(BYTES), s2);
      symbols.cuStreamSynchronize(s2);
    },
  };
}
