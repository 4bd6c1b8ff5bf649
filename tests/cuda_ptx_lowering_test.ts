/**
 * `lowerPtxIsa` (./cuda): nvcc 13's PTX (ISA 9.0) is refused by a CUDA 12.0 driver with a
 * COMPILATION error that names the fix; lowered to 8.0 it loads and runs exactly (the JIT still
 * checks every instruction against the lowered ISA).
 */
import assert from "node:assert/strict";
import { CompilationError, CubeCount, KernelArguments } from "../backend.ts";
import { CudaServer, lowerPtxIsa } from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

const saxpy = Deno.readTextFileSync(new URL("./fixtures/ptx/saxpy.ptx", import.meta.url));

Deno.test("lowerPtxIsa rewrites only the header, and only downwards", () => {
  assert.match(saxpy, /^\.version 9\.0$/m);
  const lowered = lowerPtxIsa(saxpy, "8.0");
  assert.match(lowered, /^\.version 8\.0$/m);
  assert.equal(lowered.replace(".version 8.0", ".version 9.0"), saxpy);
  assert.equal(lowerPtxIsa(lowered, "8.5"), lowered, "never raised");
  assert.throws(() => lowerPtxIsa(saxpy, "8"), TypeError);
  assert.throws(() => lowerPtxIsa(saxpy, "5.0"), RangeError);
  assert.throws(() => lowerPtxIsa(".target sm_75", "8.0"), /no \.version/);
});

Deno.test("nvcc 13's PTX on a CUDA 12.0 driver: refused naming lowerPtxIsa, then run lowered", async () => {
  await withSimEnv({ CUDA_SIM_DRIVER_VERSION: "12000" }, async () => {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    const kernel = (ptx: string) => ({
      id: "user.saxpy",
      ptx,
      entryPoint: "saxpy",
      blockSize: [64, 1, 1] as [number, number, number],
    });
    assert.throws(() => server.compile(kernel(saxpy)), (e) => {
      assert.ok(e instanceof CompilationError);
      assert.match(e.message, /lowerPtxIsa\(ptx, "8\.0"\)/);
      return true;
    });
    const n = 1000, a = 2.5;
    const x = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 100);
    const y = Float32Array.from({ length: n }, (_, i) => (i % 7) - 3);
    using hx = server.createWithData(new Uint8Array(x.buffer.slice(0)), 0);
    using hy = server.createWithData(new Uint8Array(y.buffer.slice(0)), 0);
    const args = new KernelArguments().withBuffers([hx.ref(), hy.ref()])
      .withMetadata({ data: Uint32Array.of(n), staticLength: 1 })
      .withScalar("f32", [a]);
    server.execute(
      { kernel: kernel(lowerPtxIsa(saxpy, "8.0")), count: CubeCount.new1d(16), args },
      0,
    );
    const [bytes] = await server.read([hy.copyDescriptor([n * 4], [1], 1)], 0);
    const got = new Float32Array(bytes.slice().buffer);
    for (let i = 0; i < n; i++) assert.equal(got[i], Math.fround(a * x[i] + y[i]), `y[${i}]`);
  });
});
