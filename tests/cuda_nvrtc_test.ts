/**
 * Kernels given as CUDA C, compiled at run time by NVRTC: on the simulated NVRTC
 * (`tests/fixtures/cuda_sim/nvrtc`), a source compiles and runs, a compile error is `COMPILATION`
 * with NVRTC's log and line; without NVRTC a CUDA C kernel is `UNSUPPORTED` naming what was
 * looked for, and PTX kernels do not care.
 */
import assert from "node:assert/strict";
import { CompilationError, ComputeError, CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  Nvrtc,
  NVRTC_LIBRARY_ENV,
  nvrtcCandidates,
} from "../runtime/server/cuda/compile/_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const NVRTC = new URL("./fixtures/cuda_sim/build/libnvrtc_sim.so", import.meta.url).pathname;
const MISSING = new URL("./fixtures/cuda_sim/build/missing/libnvrtc.so", import.meta.url).pathname;
// Opened here, outside the tests (a library opened inside one trips the resource sanitizer);
// the backend reuses this instance.
Nvrtc.open(NVRTC);

const fillSource: CudaKernel = {
  id: "user.fill_f32",
  entryPoint: "fill_f32",
  blockSize: [128, 1, 1],
  source: `extern "C" __global__ void fill_f32(float* out, unsigned n, float value) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}`,
};

Deno.test("a CUDA C kernel compiles through NVRTC and runs", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary: NVRTC });
  using out = server.createWithData(new Uint8Array(4 * 300), 0);
  server.execute({
    kernel: fillSource,
    count: CubeCount.new1d(3),
    args: new KernelArguments().withBuffer(out.ref())
      .withMetadata({ data: new Uint32Array([300]), staticLength: 1 }).withScalar("f32", [2.5]),
  }, 0);
  const [bytes] = await server.read([out.copyDescriptor([300], [1], 4)], 0);
  assert.deepEqual([...new Float32Array(bytes.slice().buffer)], Array(300).fill(2.5));
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("an NVRTC compile error is COMPILATION with the log and the line", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary: NVRTC });
  const broken = { ...fillSource, id: "user.broken", source: '// line 1\n\n#error expected a ";"' };
  assert.throws(() => server.compile(broken), (e) => {
    assert.ok(e instanceof CompilationError);
    assert.equal(e.line, 3);
    assert.match(e.compilerMessage, /user\.broken\.cu\(3\): error: expected a ";"/);
    assert.match(e.message, /Kernel 'user\.broken' failed to compile at line 3/);
    return true;
  });
});

Deno.test("without NVRTC a CUDA C kernel is UNSUPPORTED; PTX kernels still run", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary: MISSING });
  assert.throws(() => server.compile(fillSource), (e) => {
    assert.ok(e instanceof ComputeError && e.code === "UNSUPPORTED");
    assert.match(
      e.message,
      /needs NVRTC, which is not installed \(looked for .*missing\/libnvrtc\.so/,
    );
    return true;
  });
  server.compile(CUDA_KERNELS.fillF32);
});

Deno.test("NVRTC is searched from the driver's CUDA major down: never newer than the driver", () => {
  const saved = Deno.env.get(NVRTC_LIBRARY_ENV);
  Deno.env.delete(NVRTC_LIBRARY_ENV);
  try {
    // A CUDA 12.2 driver refuses NVRTC 13's PTX (ISA 9.0): libnvrtc.so.13 is not even looked for.
    assert.deepEqual(nvrtcCandidates(undefined, 12020), [
      "libnvrtc.so.12",
      "libnvrtc.so.11",
      "libnvrtc.so",
    ]);
    assert.deepEqual(nvrtcCandidates(undefined, 13000).slice(0, 2), [
      "libnvrtc.so.13",
      "libnvrtc.so.12",
    ]);
  } finally {
    if (saved !== undefined) Deno.env.set(NVRTC_LIBRARY_ENV, saved);
  }
  assert.deepEqual(nvrtcCandidates(["/a", "/b"], 12020), ["/a", "/b"]);
});
