/**
 * How blocking CUDA waits with a limit end (`runtime/server/cuda/queue/_wake.ts`): five
 * `waitSync(i, { timeoutMs })` of a timeline signal, each after a ~20 ms kernel, on the simulated
 * driver; prints the `cuEventQuery` calls they made and how they ended (woken by the driver's
 * `cuLaunchHostFunc`, by the periodic fault check, or by naps). With `CUDA_SIM_NO_HOST_FUNC=1` the
 * driver refuses host functions and the waits poll (the fallback).
 *
 * Run: `deno run -A bench/_cuda_woken_waits.ts`, then with `CUDA_SIM_NO_HOST_FUNC=1`.
 *
 * @module
 */
import { CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { wakeCounts } from "../runtime/server/cuda/queue/_wake.ts";
const lib = new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const server = CudaServer.create({ library: lib });
const signal = server.timelineSignal(0);
const data = server.createWithData(new Uint8Array(256), 0);
const symbols = server.device.driver.symbols as {
  cuEventQuery: (e: Deno.PointerValue) => number;
};
const real = symbols.cuEventQuery;
let q = 0;
symbols.cuEventQuery = (e: Deno.PointerValue) => (q++, real(e));
let ms = 0;
for (let i = 1; i <= 5; i++) {
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata({
      data: new Uint32Array([64]),
      staticLength: 1,
    }).withScalar("u32", [20000]),
  }, 0);
  signal.record(i);
  const t = performance.now();
  signal.waitSync(i, { timeoutMs: 5000 });
  ms += performance.now() - t;
}
symbols.cuEventQuery = real;
console.log(
  Deno.env.get("CUDA_SIM_NO_HOST_FUNC") ? "naps" : "woken",
  "5 waits",
  ms.toFixed(0),
  "ms total;",
  q,
  "cuEventQuery;",
  JSON.stringify(wakeCounts),
);
signal.destroy();
server.destroy();
await server.drained;
