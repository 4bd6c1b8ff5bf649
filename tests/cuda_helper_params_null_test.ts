/**
 * A helper's `params: null` is refused as `execute`'s is (`KERNEL_ARGUMENT` naming params), not
 * read as "no params" (which then said a param was missing), on WebGPU and CUDA (simulated driver,
 * NVRTC for the generated CUDA C).
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  createClient,
  elementwise,
  KernelArgumentError,
  listDevices,
  reduction,
} from "../mod.ts";
import { nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const scale = elementwise({ inputs: { v: "f32" }, params: { k: "f32" }, expression: "v * k" });
const sum = reduction({
  inputs: { v: "f32" },
  params: { k: "f32" },
  map: "v * k",
  combine: "a + b",
  identity: "0.0",
});
const backends = [
  { name: "webgpu", ignore: adapter === undefined, open: () => createClient() },
  { name: "cuda", ignore: nvrtcSkip !== undefined, open: simulatedCudaClient },
];

for (const b of backends) {
  Deno.test({
    name: `${b.name}: elementwise and reduction refuse params: null as execute does`,
    ignore: b.ignore,
    async fn() {
      using client = await b.open() as ComputeClient;
      using x = client.createWithData(new Float32Array([1, 2, 3]));
      for (
        const run of [
          () => scale.run(client, { v: x }, { params: null as never }),
          () => sum.run(client, { v: x }, { params: null as never }),
        ]
      ) {
        assert.throws(run, (e) => {
          assert.ok(e instanceof KernelArgumentError, `${b.name}: ${e}`);
          assert.equal(e.argument, "params");
          assert.match(e.message, /must be an object, got null/);
          return true;
        });
      }
      using y = scale.run(client, { v: x }, { params: { k: 2 } });
      assert.deepEqual([...await client.read(y)], [2, 4, 6]);
    },
  });
}
