/**
 * Calls take effect in program order on their stream whatever wraps them: `profile`,
 * `withStream`, a stream held by `waitFor`. Each case reads (or disposes) right after the wrapper
 * returns, on real compute (the WebGPU fallback adapter).
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, createClient, listDevices, type WebGpuClient } from "../mod.ts";
import { increment } from "./_wgsl_kernels.ts";
import { within } from "./_device_programs.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const ignore = adapter === undefined; // no WebGPU adapter on this machine

const open = async (): Promise<WebGpuClient> => await createClient({ device: adapter! });
const bump = (client: WebGpuClient, x: Parameters<WebGpuClient["read"]>[0], stream?: number) =>
  client.execute(increment, { threads: 4, buffers: [x], stream });

Deno.test({
  name: "a read right after profile() sees the work fn launched",
  ignore,
  async fn() {
    using client = await open();
    using x = client.createWithData(new Uint32Array([7, 8, 9, 10]));
    const profiled = client.profile(() => bump(client, x)); // not awaited
    assert.deepEqual([...await client.read(x)], [8, 9, 10, 11]);
    const { duration } = await profiled;
    assert.ok(duration.milliseconds >= 0);
    // An async fn: its synchronous part runs at once too.
    const again = client.profile(async () => {
      bump(client, x);
      await Promise.resolve();
    });
    assert.deepEqual([...await client.read(x)], [9, 10, 11, 12]);
    await again;
  },
});

Deno.test({
  name: "a handle may be disposed right after profile() that uses it",
  ignore,
  async fn() {
    using client = await open();
    using y = client.createWithData(new Uint32Array(4));
    const x = client.createWithData(new Uint32Array([1, 2, 3, 4]));
    const profiled = client.profile(() => {
      bump(client, x);
      client.execute(increment, { threads: 4, buffers: [y] });
    }, { stream: 2 });
    x.dispose(); // the launch holds what it needs
    await profiled;
    assert.deepEqual([...await client.read(y, { stream: 2 })], [1, 1, 1, 1]);
    await client.sync({ stream: 2 }); // nothing recorded: the launch was valid
  },
});

Deno.test({
  name: "a read right after withStream() sees its work, on that stream and on another",
  ignore,
  async fn() {
    using client = await open();
    using x = client.createWithData(new Uint32Array([1, 1, 1, 1]), { stream: 1 });
    client.withStream(2, () => bump(client, x));
    const other = client.read(x, { stream: 3 });
    const same = client.read(x, { stream: 2 });
    assert.deepEqual([...await other], [2, 2, 2, 2]);
    assert.deepEqual([...await same], [2, 2, 2, 2]);
  },
});

Deno.test({
  name: "reads right after held calls see them, on the held stream and on another",
  ignore,
  async fn() {
    using client = await open();
    using x = client.createWithData(new Uint32Array([5, 5, 5, 5]));
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1, { stream: 1 });
    bump(client, x, 1); // held
    const profiled = client.profile(() => bump(client, x), { stream: 1 }); // held too
    const same = client.read(x, { stream: 1 });
    const other = client.read(x, { stream: 2 }); // uses held memory: after the held calls
    x.dispose(); // the held calls keep their own references
    await new Promise((resolve) => setTimeout(resolve, 20));
    gate.set(1);
    assert.deepEqual([...await within(same, 5_000)], [7, 7, 7, 7]);
    assert.deepEqual([...await within(other, 5_000)], [7, 7, 7, 7]);
    await within(profiled, 5_000);
    await client.sync({ stream: 1 });
  },
});
