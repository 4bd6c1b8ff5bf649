import assert from "node:assert/strict";
import { createClient, CubeCount } from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { fillLinear, matmulTiled, scale } from "../examples/kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "client on WebGPU: params, cross-stream producers and a coalesced typed read",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter at all on this machine
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const n = 300; // not a multiple of the workgroup size
    using x = client.createBytes(n * 4, { stream: 1 });
    using m = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]), { stream: 2 });
    using out = client.createBytes(4 * 4, { stream: 3 });
    client.execute(fillLinear, {
      stream: 1,
      count: CubeCount.new1d(Math.ceil(n / 64)),
      buffers: [x],
      params: { start: 3, step: 0.5 },
    });
    client.execute(scale, { stream: 2, threads: 6, buffers: [m], params: { factor: -1 } });
    // out (2x2) = m (2x3) * x[0..6] viewed as 3x2, consumed on stream 3 with no manual sync.
    client.execute(matmulTiled, {
      stream: 3,
      threads: [2, 2],
      buffers: [m, x, out],
      params: { M: 2, N: 2, K: 3 },
    });
    const [xs, outs] = await client.readMany([x, out], Float32Array, { stream: 3 });
    const xRef = Array.from({ length: n }, (_, i) => 3 + 0.5 * i);
    assert.deepEqual([...xs], xRef);
    const mRef = [-1, -2, -3, -4, -5, -6];
    const expected = [0, 1, 2, 3].map((i) => {
      const [r, c] = [Math.floor(i / 2), i % 2];
      return [0, 1, 2].reduce((acc, k) => acc + mRef[r * 3 + k] * xRef[k * 2 + c], 0);
    });
    assert.deepEqual([...outs], expected);
    const { duration } = await client.profile(() =>
      client.execute(scale, { count: CubeCount.new1d(5), buffers: [x], params: { factor: 2 } })
    );
    assert.equal(duration.timing, client.server.properties.deviceTimer ? "device" : "system");
    assert.ok(duration.milliseconds >= 0 && duration.milliseconds < 10_000);
  },
});

Deno.test({
  name: "client on WebGPU: one coalesced read of 16 handles of mixed sizes and offsets",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter at all on this machine
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const sizes = [4, 7, 256, 1, 3000, 12, 64, 5, 1024, 2, 300, 8, 4096, 9, 33, 70_000];
    const data = sizes.map((size, k) =>
      Uint8Array.from({ length: size }, (_, i) => (i * 31 + k) % 251)
    );
    const handles = data.map((bytes, k) => client.createWithData(bytes, { stream: k % 3 }));
    const tail = handles[2].withOffsetStart(100); // a range that starts inside its slice
    const before = (client.server as WebGpuServer).stats().mapAsync;
    const read = await client.readMany([...handles, tail]);
    assert.equal((client.server as WebGpuServer).stats().mapAsync - before, 1);
    read.slice(0, sizes.length).forEach((bytes, k) =>
      assert.deepEqual(bytes, data[k], `handle ${k}`)
    );
    assert.deepEqual(read[sizes.length], data[2].slice(100));
    for (const handle of [...handles, tail]) handle.dispose();
  },
});

Deno.test({
  name: "an adopted device without timestamp-query: wall-clock profiles, never destroyed by us",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter at all on this machine
  async fn() {
    const device = await adapter!.requestDevice(); // no optional features
    const client = await createClient({ device });
    assert.equal(client.server.properties.deviceTimer, false);
    using data = client.createWithData(new Float32Array([1, 2, 3]));
    const { duration } = await client.profile(() =>
      client.execute(scale, { threads: 3, buffers: [data], params: { factor: 3 } })
    );
    assert.equal(duration.timing, "system");
    assert.ok(duration.milliseconds >= 0);
    assert.deepEqual([...await client.read(data, Float32Array)], [3, 6, 9]);
    client.destroy();
    // The caller's device is still usable: the server adopted it and must not destroy it.
    const buffer = device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ });
    await buffer.mapAsync(GPUMapMode.READ);
    buffer.destroy();
    device.destroy();
  },
});
