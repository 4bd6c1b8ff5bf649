/**
 * A disposed handle, or another client's, given to `execute` is `INVALID_HANDLE` led by the
 * argument it was given as (`buffers[1]`, `buffers.y`), the same on WebGPU (fallback adapter) and
 * CUDA (simulated driver), at the call, on a free and on a held stream; nothing runs and the
 * client stays usable.
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  CpuTimelineSignal,
  createClient,
  InvalidHandleError,
  listDevices,
} from "../mod.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const backends = [
  { name: "webgpu", ignore: adapter === undefined, add: ADD_WGSL, open: () => createClient() },
  {
    name: "cuda",
    ignore: false,
    add: ADD_CUDA,
    open: () => createClient({ backend: "cuda", library: SIM_LIBRARY }),
  },
];

for (const b of backends) {
  Deno.test({
    name: `${b.name}: a disposed handle in execute's buffers is INVALID_HANDLE naming the argument`,
    ignore: b.ignore,
    async fn() {
      using client = await b.open() as ComputeClient;
      using x = client.createWithData(new Uint32Array([1, 2]));
      using y = client.zeros(2, "u32");
      const gone = client.zeros(2, "u32");
      gone.dispose();
      const params = { c: 5, n: 2 };
      const refused = (what: string, run: () => void) =>
        assert.throws(run, (e) => {
          assert.ok(e instanceof InvalidHandleError, `${b.name}: ${e}`);
          assert.match(e.message, new RegExp(`^${what.replace(/[[\].]/g, "\\$&")}: .*dispose`));
          return true;
        });
      const add = b.add as never;
      refused("buffers[1]", () => client.execute(add, { threads: 2, buffers: [x, gone], params }));
      refused("buffers[0]", () => client.execute(add, { threads: 2, buffers: [gone, y], params }));
      refused(
        "buffers.y",
        () => client.execute(add, { threads: 2, buffers: { x, y: gone }, params }),
      );
      using other = await b.open() as ComputeClient; // another client's handle: the same lead
      using theirs = other.zeros(2, "u32");
      const foreign = (what: string, run: () => void) =>
        assert.throws(run, (e) => {
          assert.ok(e instanceof InvalidHandleError, `${b.name}: ${e}`);
          assert.ok(e.message.startsWith(`${what}: `), `${b.name}: ${e.message}`);
          return true;
        });
      foreign(
        "buffers[1]",
        () => client.execute(add, { threads: 2, buffers: [x, theirs], params }),
      );
      foreign(
        "buffers.x",
        () => client.execute(add, { threads: 2, buffers: { x: theirs, y }, params }),
      );
      const gate = new CpuTimelineSignal();
      client.waitFor(gate, 1, { stream: 1 }); // a held stream refuses it at the call too
      refused(
        "buffers[1]",
        () => client.execute(add, { stream: 1, threads: 2, buffers: [x, gone], params }),
      );
      foreign(
        "buffers[0]",
        () => client.execute(add, { stream: 1, threads: 2, buffers: [theirs, y], params }),
      );
      gate.set(1);
      client.execute(add, { threads: 2, buffers: [x, y], params });
      assert.deepEqual([...await client.read(y)], [6, 7]);
    },
  });
}
