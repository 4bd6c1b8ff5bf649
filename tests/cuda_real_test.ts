/**
 * The CUDA suites on the real driver (`libcuda.so.1`, or `$GPUCOMPUTE_CUDA_LIBRARY`) wherever a
 * machine has one with a device: the conformance suite, random cross-stream programs checked
 * against the sequential reference, and the shipped reduction and matmul kernels checked against
 * a CPU reference; the shipped PTX loading on the driver at hand; with two devices, two servers
 * running interleaved programs, and two clients running random programs of copies and waits
 * between the devices. Test names carry the device and the driver's CUDA version.
 * Skipped, with the reason, where there is no driver or no device (CI).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CUDA_KERNELS, CudaDevice, CudaServer } from "../runtime/server/cuda/mod.ts";
import { cudaVersionName } from "../runtime/server/cuda/_ptx_version.ts";
import { serverConformance } from "./server_conformance.ts";
import { checkShippedKernels, command, run, runInterleaved } from "./_cuda_programs.ts";
import { CUDA_PROGRAM_KERNELS, deviceCommand, runOnDevices } from "./_device_programs.ts";
import { createClients, listDevices } from "../mod.ts";
import { CubeCount, KernelArguments } from "../backend.ts";
import { wakeCounts } from "../runtime/server/cuda/queue/_wake.ts";

const found = (() => {
  try {
    using device = CudaDevice.open();
    if (/cuda_sim/.test(device.name)) return { unavailable: "the library found is the simulator" };
    const count = new Int32Array(1);
    device.driver.check(device.driver.symbols.cuDeviceGetCount(count), "cuDeviceGetCount");
    const cc = device.attributes.computeCapability.join("");
    const label = `${device.name}, sm_${cc}, ${cudaVersionName(device.driverVersion)} driver`;
    return { label, devices: count[0] };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
})();
const unavailable = "unavailable" in found ? found.unavailable : undefined;
const ignore = unavailable !== undefined;
const skipped = (name: string) =>
  ignore ? `${name} (skipped: ${unavailable})` : `${name} (${"label" in found && found.label})`;

Deno.test({
  name: skipped("real driver: CudaServer conforms to the ComputeServer contract"),
  ignore,
  async fn(t) {
    await serverConformance(t, {
      createServer: () => Promise.resolve(CudaServer.create()),
      kernels: {
        fill: CUDA_KERNELS.fillU32,
        scaleAdd: CUDA_KERNELS.scaleAddF32,
        increment: CUDA_KERNELS.incrementU32,
      },
      cubeSize: 256,
    });
  },
});

Deno.test({
  name: skipped("real driver: random cross-stream programs match the sequential reference"),
  ignore,
  async fn() {
    using server = CudaServer.create({ maxStreams: 8 });
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), (p) => run(server, p)),
      { numRuns: 500 },
    );
  },
});

Deno.test({
  name: skipped("real driver: sum and both matmul variants match a CPU reference"),
  ignore,
  async fn() {
    using server = CudaServer.create();
    await checkShippedKernels(server);
  },
});

Deno.test({
  name: skipped("real driver: every shipped kernel loads from its PTX (ISA 7.0)"),
  ignore,
  fn() {
    using server = CudaServer.create();
    for (const kernel of Object.values(CUDA_KERNELS)) server.compile(kernel);
    assert.equal(server.stats().moduleLoads, 3, "no module went through NVRTC");
  },
});

Deno.test({
  name: skipped("real driver: a blocking wait with a timeout is woken by the driver, not polled"),
  ignore,
  async fn() {
    using server = CudaServer.create();
    using signal = server.timelineSignal(0);
    const n = 64;
    using data = server.createWithData(new Uint8Array(4 * n), 0);
    const before = { ...wakeCounts };
    for (let i = 1; i <= 5; i++) {
      server.execute({
        kernel: CUDA_KERNELS.slowF32,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(data.ref())
          .withMetadata({ data: new Uint32Array([n]), staticLength: 1 }).withScalar("u32", [
            20_000,
          ]),
      }, 0); // ~20 ms of __nanosleep
      signal.record(i);
      signal.waitSync(i, { timeoutMs: 10_000 });
    }
    assert.equal(wakeCounts.naps - before.naps, 0, "no nap loop");
    assert.ok(wakeCounts.posts - before.posts >= 3, JSON.stringify(wakeCounts));
    const [bytes] = await server.read([data.copyDescriptor([1], [1], 4)], 0);
    assert.equal(new Float32Array(bytes.buffer)[0], 5);
  },
});

const twoDevices = (("devices" in found && found.devices) || 0) >= 2;
Deno.test({
  name: twoDevices
    ? skipped("real driver: two servers on two devices run interleaved random programs")
    : "real driver: two servers on two devices (skipped: " +
      (unavailable ?? "the machine has one device") + ")",
  ignore: !twoDevices,
  async fn() {
    using first = CudaServer.create({ ordinal: 0, maxStreams: 4 });
    using second = CudaServer.create({ ordinal: 1, maxStreams: 4 });
    const program = fc.array(command, { minLength: 1, maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(
        program,
        program,
        fc.array(fc.nat(1)),
        (a, b, order) =>
          runInterleaved([{ server: first, program: a }, { server: second, program: b }], order),
      ),
      { numRuns: 100 },
    );
  },
});

Deno.test({
  name: twoDevices
    ? skipped("real driver: copies and waits between two devices (random client programs)")
    : "real driver: copies and waits between two devices (skipped: " +
      (unavailable ?? "the machine has one device") + ")",
  ignore: !twoDevices,
  async fn() {
    const [a, b] = await listDevices({ backend: "cuda" });
    using clients = await createClients([a, b]);
    const pair = [clients[0], clients[1]] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(deviceCommand, { minLength: 1, maxLength: 24 }),
        (p) => runOnDevices(pair, CUDA_PROGRAM_KERNELS, p),
      ),
      { numRuns: 200 },
    );
    // A large copy both ways, whatever the route (peer where the devices allow it).
    const data = Uint32Array.from({ length: 1 << 22 }, (_, i) => i);
    using x = pair[0].createWithData(data);
    using y = pair[0].copyTo(x, pair[1]);
    using z = pair[1].copyTo(y, pair[0]);
    assert.equal((await pair[0].read(z)).findIndex((v, i) => v !== i), -1);
  },
});
