/**
 * The parts of the server contract that changed after the CUDA backend was written (leases,
 * malformed launches, kernels without an id), checked on the simulated driver.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Bindings, CubeCount } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { f32, meta } from "./_bytes.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  simDriver,
} from "./fixtures/cuda_sim.ts";

Deno.test("getResource orders the stream after the binding's writers; the lease pins the memory", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const n = 256;
  const data = server.createWithData(f32(Array(n).fill(1)), 1);
  server.execute({ // a slow write on stream 1
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    bindings: new Bindings().withBuffer(data.binding()).withMetadata(meta(n)).withScalar("u32", [
      2000,
    ]),
  }, 1);
  using lease = server.getResource(data.binding(), 2);
  const id = data.memory.id;
  data.dispose();
  assert.equal(id.released, false, "the lease keeps the memory");
  // Our own copy on stream 2, in the runtime's order: it must see the slow kernel's write.
  const host = new Float32Array(n);
  const { symbols } = simDriver;
  simDriver.check(
    symbols.cuMemcpyDtoHAsync_v2(
      Deno.UnsafePointer.of(host),
      lease.resource + BigInt(lease.offset),
      BigInt(lease.size),
      server.cudaStream(2),
    ),
    "cuMemcpyDtoHAsync_v2",
  );
  simDriver.check(symbols.cuStreamSynchronize(server.cudaStream(2)), "cuStreamSynchronize");
  assert.deepEqual([...host], Array(n).fill(2));
  assert.equal(hazardCount(), 0, hazardReport());
  lease.release();
  await server.sync(0);
  assert.equal(id.released, true);
});
