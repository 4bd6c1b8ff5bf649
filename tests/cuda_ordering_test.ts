/**
 * Two orderings the device needs that no result shows, checked by the simulator's
 * happens-before tracking: a `staging()` buffer a copy still reads is not freed by `destroy`, and
 * a page from `cuMemAllocAsync` on one stream is first used on another only after the allocation.
 */
import assert from "node:assert/strict";
import { CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const n = 256;
const meta = { data: new Uint32Array([n]), staticLength: 1 };

Deno.test("destroy leaves allocated the staging() buffers whose copies are in flight", async () => {
  resetHazards();
  const server = CudaServer.create({ library: SIM_LIBRARY });
  const data = server.createWithData(new Uint8Array(4 * n), 0);
  server.execute({ // holds stream 0 for 20 ms
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata(meta)
      .withScalar("u32", [20_000]),
  }, 0);
  const [staging] = server.staging([16], 0);
  staging.set([1, 2, 3, 4]);
  const target = server.empty(16, 0);
  // Copied straight from the staging buffer, behind the slow kernel.
  server.write([{ descriptor: target.copyDescriptor([16], [1], 1), data: staging }], 0);
  data.dispose();
  target.dispose();
  server.destroy(); // the context's release waits for the copy: it must find its source alive
  await server.drained; // in the background: destroy returned at once
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a stream-ordered page is first used on another stream after its allocation", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  assert.ok(server.device.attributes.memoryPools, "the simulator has memory pools");
  using shared = server.createWithData(new Uint8Array(4 * n), 0);
  const fill = (handle: Handle, value: number) =>
    server.execute({
      kernel: CUDA_KERNELS.fillU32,
      count: CubeCount.threads(n),
      args: new KernelArguments().withBuffer(handle.ref()).withMetadata(meta)
        .withScalar("u32", [value]),
    }, 1);
  fill(shared, 1); // stream 1 has waited on stream 0 up to its current cursor
  // A page of its own (larger than the pool's pages), from cuMemAllocAsync on stream 0, and no
  // order on stream 0 since stream 1 waited on it: only a new cursor orders the two.
  using fresh = server.empty(8 << 20, 0);
  fill(fresh, 7);
  const [bytes] = await server.read([fresh.copyDescriptor([n], [1], 4)], 1);
  assert.deepEqual([...new Uint32Array(bytes.slice().buffer)], Array(n).fill(7));
  assert.equal(hazardCount(), 0, hazardReport());
});
