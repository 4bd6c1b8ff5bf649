/**
 * The committed PTX (`runtime/server/cuda/kernels/ptx.ts`) is current: it was generated from the
 * `.cu` sources as they are (SHA-256 per source, always checked), and, where the same nvcc is
 * installed, recompiling gives the same text. Every shipped kernel also loads and resolves on
 * the simulated driver, so the simulator implements each entry point the runtime ships.
 */
import assert from "node:assert/strict";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { PTX_COMPILER, PTX_MODULES } from "../runtime/server/cuda/kernels/ptx.ts";
import { compileAll, nvccVersion, sha256, sources } from "../tools/ptx.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

Deno.test("the committed PTX was generated from the current .cu sources (run `deno task ptx`)", async () => {
  const current = await sources();
  assert.deepEqual(Object.keys(PTX_MODULES).sort(), current.map((s) => s.name));
  for (const { name, text } of current) {
    assert.equal(PTX_MODULES[name].sourceSha256, await sha256(text), `${name}.cu changed`);
  }
});

const compiler = await nvccVersion().catch(() => undefined);

Deno.test({
  name: compiler === undefined
    ? "recompiling gives the committed PTX (skipped: nvcc is not installed)"
    : compiler !== PTX_COMPILER
    ? `recompiling gives the committed PTX (skipped: nvcc is "${compiler}", the PTX came from "${PTX_COMPILER}")`
    : "recompiling with nvcc gives the committed PTX",
  ignore: compiler !== PTX_COMPILER,
  async fn() {
    for (const module of await compileAll()) {
      assert.equal(module.ptx, PTX_MODULES[module.name].ptx, `${module.name}.ptx is stale`);
    }
  },
});

Deno.test("every shipped kernel loads on the simulated driver", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  for (const kernel of Object.values(CUDA_KERNELS)) server.compile(kernel);
  assert.equal(server.stats().moduleLoads, 3); // one per .cu file
});
