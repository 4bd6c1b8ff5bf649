/**
 * `client.timeline.waitSync` on both backends (WebGPU on the fallback adapter, CUDA on the
 * simulated driver) ends at once, as `wait` does, for a value that will never be reached: a failed
 * mark throws `ABORTED`, a destroyed client's unreached value `DESTROYED`, the client's own mark
 * not reached yet `UNSUPPORTED` (its thread's event loop sets it); they used to block the whole
 * timeout and throw `TIMEOUT`.
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  ComputeError,
  CpuTimelineSignal,
  createClient,
  listDevices,
} from "../mod.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const backends = [{
  name: "webgpu",
  ignore: adapter === undefined,
  open: () => createClient({ device: adapter! }) as Promise<ComputeClient>,
}, {
  name: "cuda",
  ignore: false,
  open: () => createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<ComputeClient>,
}];

/** `fn` throws a `ComputeError` with `code` within `ms`. */
function throwsAtOnce(fn: () => void, code: string, ms = 500): void {
  const began = performance.now();
  assert.throws(fn, (e) => e instanceof ComputeError && e.code === code);
  const took = performance.now() - began;
  assert.ok(took < ms, `blocked ${Math.round(took)} ms before throwing`);
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: timeline.waitSync of a failed mark throws ABORTED at once`,
    ignore: b.ignore,
    async fn() {
      using client = await b.open();
      const reached = client.signal({ stream: 0 });
      await client.timeline.wait(reached);
      client.waitFor(new CpuTimelineSignal(), 1, { stream: 1, timeoutMs: 5 }); // times out
      const failed = client.signal({ stream: 1 });
      await assert.rejects(
        client.timeline.wait(failed),
        (e) => (e as ComputeError).code === "ABORTED",
      );
      throwsAtOnce(() => client.timeline.waitSync(failed, { timeoutMs: 5_000 }), "ABORTED");
      await assert.rejects(client.sync({ stream: 1 })); // the wait's failure, reported once
      // A value reached before the failure stays reached; the client still computes.
      client.timeline.waitSync(reached, { timeoutMs: 1 });
      assert.deepEqual([...await client.read(client.createWithData(new Uint32Array([4])))], [4]);
    },
  });

  Deno.test({
    name:
      `${b.name}: timeline.waitSync of a destroyed client's unreached value throws DESTROYED at once`,
    ignore: b.ignore,
    async fn() {
      const client = await b.open();
      const reached = client.signal();
      await client.timeline.wait(reached);
      client.waitFor(new CpuTimelineSignal(), 1); // never set: the next mark is never reached
      const unreached = client.signal();
      client.destroy();
      throwsAtOnce(() => client.timeline.waitSync(unreached, { timeoutMs: 5_000 }), "DESTROYED");
      client.timeline.waitSync(reached, { timeoutMs: 1 }); // reached values stay reached
      // Bad arguments are still refused as such.
      assert.throws(() => client.timeline.waitSync(-1, { timeoutMs: 1 }), RangeError);
    },
  });
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: timeline.waitSync of the client's own unreached mark is refused at once`,
    ignore: b.ignore,
    async fn() {
      using client = await b.open();
      // A mark held behind a wait on a gate: it cannot be reached while this thread blocks.
      const gate = new CpuTimelineSignal();
      client.waitFor(gate, 1, { stream: 1 });
      const mark = client.signal({ stream: 1 });
      throwsAtOnce(() => client.timeline.waitSync(mark, { timeoutMs: 5_000 }), "UNSUPPORTED");
      gate.set(1);
      await client.timeline.wait(mark); // the asynchronous wait is the way
      client.timeline.waitSync(mark, { timeoutMs: 1 }); // reached: returns
      // A value the client never marked may be set by a Worker: that wait still blocks (and
      // times out here).
      throwsAtOnce(
        () => client.timeline.waitSync(mark + 5n, { timeoutMs: 20 }),
        "TIMEOUT",
        2_000,
      );
    },
  });
}
