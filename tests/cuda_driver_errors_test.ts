/**
 * The errors a user meets first on a real driver, on the simulated one: `cuInit` failures are
 * `BACKEND_UNAVAILABLE` with the driver's text; PTX newer than the driver names the driver's CUDA
 * version and what the PTX needs, and falls back to the kernel's CUDA C through an NVRTC no newer
 * than the driver; a binary for no GPU names the device; more than 48 KiB of dynamic shared
 * memory is allowed through `cuFuncSetAttribute` up to the device's opt-in limit.
 */
import assert from "node:assert/strict";
import {
  BackendUnavailableError,
  CompilationError,
  CubeCount,
  KernelArguments,
} from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import { Nvrtc } from "../runtime/server/cuda/compile/_nvrtc.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

const build = (name: string) =>
  new URL(`./fixtures/cuda_sim/build/${name}`, import.meta.url).pathname;
const NVRTC_13 = build("libnvrtc_sim.so");
const NVRTC_12 = build("libnvrtc_sim_12.so");
// Opened here, outside the tests (a library opened inside one trips the resource sanitizer).
Nvrtc.open([NVRTC_13]);
Nvrtc.open([NVRTC_12]);
const sim = (options = {}) => CudaServer.create({ library: SIM_LIBRARY, ...options });

/** A fill kernel as nvcc 13 writes it: PTX ISA 9.0, which CUDA 12 drivers refuse. */
const newPtx: CudaKernel = {
  id: "user.fill",
  entryPoint: "fill_f32",
  blockSize: [256, 1, 1],
  ptx: CUDA_KERNELS.fillF32.ptx!.replace(/^\.version 7\.0$/m, ".version 9.0"),
};

async function fillAndRead(server: CudaServer, kernel: CudaKernel, n = 300): Promise<number[]> {
  using out = server.createWithData(new Uint8Array(4 * n), 0);
  server.execute({
    kernel,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(out.ref())
      .withMetadata({ data: new Uint32Array([n]), staticLength: 1 }).withScalar("f32", [2.5]),
  }, 0);
  const [bytes] = await server.read([out.copyDescriptor([n], [1], 4)], 0);
  return [...new Float32Array(bytes.slice().buffer)];
}

const INIT_FAILURES: readonly [number, RegExp][] = [
  [35, /the installed driver is too old: cuInit returned CUresult 35 \(35\), "unknown error"/],
  [
    803,
    /the driver library and the loaded kernel module are of different versions: cuInit returned CUDA_ERROR_SYSTEM_DRIVER_MISMATCH \(803\), "system has unsupported display driver \/ cuda driver combination", CUDA 13\.0 driver/,
  ],
  [
    304,
    /an operating-system call failed .*: cuInit returned CUDA_ERROR_OPERATING_SYSTEM \(304\), "OS call failed or operation not supported on this OS"/,
  ],
  [999, /unknown error: cuInit returned CUDA_ERROR_UNKNOWN \(999\), "unknown error"/],
  [34, /NVIDIA's stub libcuda .*: cuInit returned CUDA_ERROR_STUB_LIBRARY \(34\)/],
];

Deno.test("cuInit failures are BACKEND_UNAVAILABLE with the driver's text", async () => {
  for (const [code, message] of INIT_FAILURES) {
    await withSimEnv({ CUDA_SIM_INIT_ERROR: String(code) }, () => {
      assert.throws(() => sim(), (e) => {
        assert.ok(e instanceof BackendUnavailableError, `${code}: ${e}`);
        assert.match(e.message, message);
        assert.deepEqual(e.tried, [SIM_LIBRARY]);
        return true;
      });
    });
  }
  using server = sim(); // and the next attempt, with the driver fixed, works
  assert.equal(server.properties.backend, "cuda");
});

Deno.test("PTX newer than the driver names the driver's CUDA version and what the PTX needs", async () => {
  await withSimEnv({ CUDA_SIM_DRIVER_VERSION: "12020" }, () => {
    using server = sim();
    assert.throws(() => server.compile(newPtx), (e) => {
      assert.ok(e instanceof CompilationError);
      const versionLine = newPtx.ptx!.split("\n").findIndex((l) => l.startsWith(".version")) + 1;
      assert.equal(e.line, versionLine);
      for (
        const part of [
          "cuModuleLoadDataEx(user.fill) failed with CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222): " +
          "the provided PTX was compiled with an unsupported toolchain.",
          "the module is PTX ISA 9.0 (.version 9.0: CUDA 13.0 or newer) for sm_75; the driver " +
          "is CUDA 12.2 (cuDriverGetVersion 12020), which loads PTX ISA up to 8.2, on an sm_75 " +
          "device",
          "give the kernel's CUDA C as `source` too (NVRTC then compiles it for this driver), " +
          "or PTX of .version 8.2 or lower",
          `ptxas application ptx input, line ${versionLine}; fatal   : Unsupported .version 9.0; ` +
          "current version is '8.2'",
        ]
      ) assert.ok(e.message.includes(part), `${part}\nin: ${e.message}`);
      return true;
    });
  });
});

Deno.test("PTX newer than the driver falls back to NVRTC no newer than the driver", async () => {
  resetHazards();
  const withSource = { ...newPtx, source: CUDA_KERNELS.fillF32.source };
  await withSimEnv({ CUDA_SIM_DRIVER_VERSION: "12020" }, async () => {
    // NVRTC 13.0 comes first: a search that took the first that loads would use it, whose PTX
    // (ISA 9.0) this driver refuses as well.
    using server = sim({ nvrtcLibrary: [NVRTC_13, NVRTC_12] });
    // The simulated NVRTC declares the entries of the CUDA C with empty bodies, and the simulated
    // driver runs the PTX it is given: the launch runs and writes nothing (tests/cuda_nvrtc_test.ts
    // runs what the real NVRTC compiles).
    assert.deepEqual(await fillAndRead(server, withSource), Array(300).fill(0));
    assert.equal(server.stats().moduleLoads, 2, "the refused PTX, then NVRTC 12.0's");
    using only13 = sim({ nvrtcLibrary: NVRTC_13 });
    assert.throws(() => only13.compile(withSource), (e) => {
      assert.ok(e instanceof CompilationError);
      assert.match(
        e.message,
        /the PTX came from NVRTC 13\.0 \(.*libnvrtc_sim\.so\), newer than the driver: install the NVRTC of CUDA 12\.2 or older/,
      );
      assert.match(e.message, /its own PTX was refused too/);
      return true;
    });
  });
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a shipped kernel on a driver older than its PTX tries its CUDA C and names every version", async () => {
  await withSimEnv({ CUDA_SIM_DRIVER_VERSION: "10020" }, () => {
    using server = sim({ nvrtcLibrary: [NVRTC_13, NVRTC_12] });
    assert.throws(() => server.compile(CUDA_KERNELS.fillF32), (e) => {
      assert.ok(e instanceof CompilationError);
      assert.match(e.message, /PTX ISA 7\.0 \(\.version 7\.0: CUDA 11\.0 or newer\)/);
      assert.match(e.message, /the driver is CUDA 10\.2 \(cuDriverGetVersion 10020\)/);
      assert.match(e.message, /the PTX came from NVRTC 12\.0 .*newer than the driver/);
      return true;
    });
  });
});

Deno.test("a binary for no GPU of this device names the device and the driver", () => {
  using server = sim();
  const binary = { ...newPtx, id: "user.cubin", ptx: "\x7fELF\x02\x01\x01" };
  assert.throws(() => server.compile(binary), (e) => {
    assert.ok(e instanceof CompilationError);
    assert.match(
      e.message,
      /CUDA_ERROR_NO_BINARY_FOR_GPU \(209\): no kernel image is available for execution on the device: the module is no PTX \(it has no \.version\); the driver is CUDA 13\.0 \(cuDriverGetVersion 13000\), which loads PTX ISA up to 9\.0, on an sm_75 device/,
    );
    return true;
  });
});

Deno.test("dynamic shared memory above 48 KiB is allowed up to the device's opt-in limit", async () => {
  resetHazards();
  using server = sim();
  const shared = (bytes: number, kernel = CUDA_KERNELS.fillF32) => ({
    ...kernel,
    sharedMemoryBytes: bytes,
  });
  assert.deepEqual(await fillAndRead(server, shared(60_000)), Array(300).fill(2.5));
  assert.deepEqual(await fillAndRead(server, shared(65_536)), Array(300).fill(2.5));
  assert.throws(
    () => server.compile(shared(65_537)),
    /asks for 65537 bytes of dynamic shared memory; with its 0 static bytes the device allows 65536 \(65536 per block, opt-in\)/,
  );
  // sum_f32 has 4 KiB of static shared memory.
  assert.throws(
    () => server.compile(shared(62_000, CUDA_KERNELS.sumF32)),
    /asks for 62000 bytes .* with its 4096 static bytes the device allows 61440/,
  );
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("an sm_90 device allows 227 KiB of shared memory per block", async () => {
  await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
    using server = sim();
    assert.equal(server.device.attributes.maxSharedMemoryPerBlockOptin, 232_448);
    const kernel = { ...CUDA_KERNELS.fillF32, sharedMemoryBytes: 200_000 };
    assert.deepEqual(await fillAndRead(server, kernel), Array(300).fill(2.5));
  });
});
