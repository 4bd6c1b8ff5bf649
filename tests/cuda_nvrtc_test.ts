/**
 * Kernels given as CUDA C, compiled at run time by NVRTC. With NVIDIA's NVRTC
 * (`GPUCOMPUTE_NVRTC_LIBRARY`, which tools/run_tests.sh points at what `tools/fetch_nvrtc.sh`
 * unpacked), the shipped kernels' CUDA C and the CUDA C of `tests/fixtures/ptx/` compile and run on
 * the simulated driver, which executes the PTX NVRTC wrote, exact against CPU references. On the
 * simulated NVRTC (`tests/fixtures/cuda_sim/nvrtc`, entries with empty bodies), a source compiles,
 * loads and launches, a compile error is `COMPILATION` with NVRTC's log and line; without NVRTC a
 * CUDA C kernel is `UNSUPPORTED` naming what was looked for and how to install it, and PTX
 * kernels do not care.
 */
import assert from "node:assert/strict";
import { CompilationError, ComputeError, CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  Nvrtc,
  NVRTC_LIBRARY_ENV,
  nvrtcCandidates,
} from "../runtime/server/cuda/compile/_nvrtc.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

const NVRTC = new URL("./fixtures/cuda_sim/build/libnvrtc_sim.so", import.meta.url).pathname;
const MISSING = new URL("./fixtures/cuda_sim/build/missing/libnvrtc.so", import.meta.url).pathname;
// Opened here, outside the tests (a library opened inside one trips the resource sanitizer);
// the backend reuses this instance.
Nvrtc.open(NVRTC);

/** NVIDIA's NVRTC, or why the tests that need it are skipped. */
const real = (() => {
  const path = Deno.env.get(NVRTC_LIBRARY_ENV);
  if (!path) {
    return {
      skip: `${NVRTC_LIBRARY_ENV} is not set (sh tools/fetch_nvrtc.sh, then tools/run_tests.sh)`,
    };
  }
  try {
    return { nvrtc: Nvrtc.open(path) };
  } catch (error) {
    return { skip: `${path} does not open: ${(error as Error).message}` };
  }
})();
const realName = (what: string) =>
  "nvrtc" in real
    ? `NVRTC ${Math.floor(real.nvrtc!.version / 1000)}.${
      (real.nvrtc!.version % 1000) / 10
    }: ${what}`
    : `NVRTC: ${what} (skipped: ${real.skip})`;

const fillSource: CudaKernel = {
  id: "user.fill_f32",
  entryPoint: "fill_f32",
  blockSize: [128, 1, 1],
  source: `extern "C" __global__ void fill_f32(float* out, unsigned n, float value) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}`,
};

/** Fills 300 floats with 2.5 through `kernel` on a server with `nvrtcLibrary`; returns them. */
async function fill(nvrtcLibrary: string, kernel: CudaKernel): Promise<number[]> {
  using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary });
  using out = server.createWithData(new Uint8Array(4 * 300), 0);
  server.execute({
    kernel,
    count: CubeCount.new1d(3),
    args: new KernelArguments().withBuffer(out.ref())
      .withMetadata({ data: new Uint32Array([300]), staticLength: 1 }).withScalar("f32", [2.5]),
  }, 0);
  const [bytes] = await server.read([out.copyDescriptor([300], [1], 4)], 0);
  return [...new Float32Array(bytes.slice().buffer)];
}

Deno.test("a CUDA C kernel compiles through the simulated NVRTC, loads and launches", async () => {
  resetHazards();
  // The simulated NVRTC's entries have empty bodies and the simulated driver runs what it is
  // given: nothing is written (never the shipped fill_f32 of the same name).
  assert.deepEqual(await fill(NVRTC, fillSource), Array(300).fill(0));
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test({
  name: realName("a CUDA C kernel compiles and runs on the simulated driver, exact"),
  ignore: !("nvrtc" in real),
  async fn() {
    resetHazards();
    assert.deepEqual(await fill(real.nvrtc!.path, fillSource), Array(300).fill(2.5));
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: realName("the shipped kernels' CUDA C compiles and matches a CPU reference"),
  ignore: !("nvrtc" in real),
  async fn() {
    resetHazards();
    using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary: real.nvrtc!.path });
    const source = (k: CudaKernel): CudaKernel => ({
      ...k,
      id: `nvrtc.${k.entryPoint}`,
      ptx: undefined,
    });
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, i) => (i % 50) * 0.5 - 3);
    const b = Float32Array.from({ length: n }, (_, i) => (i % 7) * 2);
    using da = server.createWithData(new Uint8Array(a.buffer.slice(0)), 0);
    using db = server.createWithData(new Uint8Array(b.buffer.slice(0)), 0);
    using out = server.createWithData(new Uint8Array(4 * n), 0);
    const meta = { data: new Uint32Array([n]), staticLength: 1 };
    const read = async () => {
      const [bytes] = await server.read([out.copyDescriptor([n], [1], 4)], 0);
      return [...new Float32Array(bytes.slice().buffer)];
    };
    server.execute({
      kernel: source(CUDA_KERNELS.addF32),
      count: CubeCount.threads(n),
      args: new KernelArguments().withBuffers([da.ref(), db.ref(), out.ref()]).withMetadata(meta),
    }, 0);
    assert.deepEqual(await read(), [...a].map((v, i) => v + b[i]));
    server.execute({
      kernel: source(CUDA_KERNELS.scaleAddF32),
      count: CubeCount.threads(n),
      args: new KernelArguments().withBuffers([da.ref(), db.ref(), out.ref()]).withMetadata(meta)
        .withScalar("f32", [0.75]),
    }, 0);
    assert.deepEqual(await read(), [...a].map((v, i) => Math.fround(v * 0.75 + b[i])));
    server.execute({
      kernel: source(CUDA_KERNELS.sumF32),
      count: CubeCount.new1d(Math.ceil(n / 256)),
      args: new KernelArguments().withBuffers([da.ref(), out.ref()]).withMetadata(meta),
    }, 0);
    const partial = (await read()).slice(0, Math.ceil(n / 256));
    const sums = partial.map((_, p) =>
      [...a.slice(p * 256, (p + 1) * 256)].reduce((s, v) => s + v, 0)
    );
    assert.deepEqual(partial, sums);
    assert.equal(server.stats().moduleLoads, 2, "elementwise.cu and reduce.cu, once each");
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: realName("CUDA C with shared memory, barriers and atomics (tests/fixtures/ptx) runs exact"),
  ignore: !("nvrtc" in real),
  async fn() {
    resetHazards();
    using server = CudaServer.create({ library: SIM_LIBRARY, nvrtcLibrary: real.nvrtc!.path });
    const cu = (name: string) =>
      Deno.readTextFileSync(new URL(`./fixtures/ptx/${name}.cu`, import.meta.url));
    const n = 3000, nbins = 37;
    const data = Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 0);
    using input = server.createWithData(new Uint8Array(data.buffer), 0);
    using bins = server.createWithData(new Uint8Array(4 * nbins), 0);
    server.execute({
      kernel: {
        id: "nvrtc.histogram",
        entryPoint: "histogram",
        blockSize: [128, 1, 1],
        source: cu("atomics"),
      },
      count: CubeCount.new1d(5),
      args: new KernelArguments().withBuffers([input.ref(), bins.ref()])
        .withMetadata({ data: new Uint32Array([n, nbins]), staticLength: 2 }),
    }, 0);
    const expected = new Array(nbins).fill(0);
    for (const v of data) expected[v % nbins]++;
    const [counts] = await server.read([bins.copyDescriptor([nbins], [1], 4)], 0);
    assert.deepEqual([...new Uint32Array(counts.slice().buffer)], expected);

    const width = 45, height = 29;
    const values = Float32Array.from({ length: width * height }, (_, i) => i * 0.5);
    using from = server.createWithData(new Uint8Array(values.buffer), 0);
    using to = server.createWithData(new Uint8Array(4 * width * height), 0);
    server.execute({
      kernel: {
        id: "nvrtc.transpose",
        entryPoint: "transpose",
        blockSize: [16, 16, 1],
        source: cu("transpose"),
      },
      count: CubeCount.new2d(Math.ceil(width / 16), Math.ceil(height / 16)),
      args: new KernelArguments().withBuffers([from.ref(), to.ref()])
        .withMetadata({ data: new Uint32Array([width, height]), staticLength: 2 }),
    }, 0);
    const [bytes] = await server.read([to.copyDescriptor([width * height], [1], 4)], 0);
    const got = new Float32Array(bytes.slice().buffer);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) assert.equal(got[x * height + y], values[y * width + x]);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
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
    assert.match(e.message, /install NVIDIA's NVRTC .*libnvrtc12.* set GPUCOMPUTE_NVRTC_LIBRARY/);
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

Deno.test({
  name: realName("NVRTC's PTX is kept per architecture and source; errors are not kept"),
  ignore: !("nvrtc" in real),
  fn() {
    const nvrtc = real.nvrtc!;
    const source = 'extern "C" __global__ void kept(float* y) { y[threadIdx.x] = 1.0f; }';
    const before = Nvrtc.programs;
    const first = nvrtc.compile("user.kept", source, "kept.cu", "compute_75");
    const again = nvrtc.compile("user.kept", source, "kept.cu", "compute_75");
    assert.equal(again, first);
    assert.equal(Nvrtc.programs - before, 1, "the second compile of one source is the kept PTX");
    const other = nvrtc.compile("user.kept", source, "kept.cu", "compute_80");
    assert.match(first, /\.target sm_75/);
    assert.match(other, /\.target sm_80/, "another architecture is compiled for it");
    assert.equal(Nvrtc.programs - before, 2);
    const broken = source.replace("1.0f;", "1.0f");
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => nvrtc.compile("user.broken", broken, "broken.cu", "compute_75"),
        CompilationError,
      );
    }
    assert.equal(Nvrtc.programs - before, 4, "a failed compile is tried again");
  },
});

Deno.test({
  name: realName(
    "the architecture follows what NVRTC compiles for: a device newer than all of it gets its " +
      "newest (the driver JIT-compiles the PTX), one older than all of it a COMPILATION error",
  ),
  ignore: !("nvrtc" in real),
  async fn() {
    const nvrtc = real.nvrtc!;
    const archs = nvrtc.supportedArchs();
    assert.ok(archs.includes(75) && archs.length > 1, `NVRTC lists ${archs}`);
    const newest = archs[archs.length - 1], oldest = archs[0];
    assert.equal(nvrtc.archFor("k", [7, 5]), "compute_75");
    assert.equal(nvrtc.archFor("k", [Math.floor(newest / 10) + 5, 0]), `compute_${newest}`);
    assert.throws(
      () => nvrtc.archFor("user.k", [Math.floor(oldest / 10) - 1, 0]),
      (error: unknown) =>
        error instanceof CompilationError && error.kernel === "user.k" &&
        error.message.includes(`compute_${oldest} to compute_${newest}`) &&
        error.message.includes(NVRTC_LIBRARY_ENV),
    );
    // On a simulated device newer than this NVRTC knows, a CUDA C kernel compiles for NVRTC's
    // newest architecture and runs (the device's own would be an invalid option).
    const cc = Math.floor(newest / 10) + 1;
    await withSimEnv({ CUDA_SIM_CC: `${cc}0` }, async () => {
      resetHazards();
      assert.deepEqual(await fill(nvrtc.path, { ...fillSource, id: "user.fill_newer" }), [
        ...Array(300).fill(2.5),
      ]);
      assert.equal(hazardCount(), 0, hazardReport());
    });
  },
});
