import assert from "node:assert/strict";
import { createClient, CubeCount, type ProfileDuration } from "../mod.ts";
import { currentStreamId } from "../backend.ts";
import { CpuTimelineSignal } from "../sync/cpu_signal.ts";
import type { WebGpuServer, WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { WebGpuProfiler } from "../runtime/server/webgpu/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const noAdapter = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const timer = adapter?.features.has("timestamp-query") ?? false;

/**
 * A loop of `params.iters` dependent steps per invocation: with the launch's size fixed, 10x the
 * iterations is 10x the work on a CPU adapter (which runs every invocation in turn) and on a GPU
 * (which runs them all at once: its time is one invocation's loop).
 */
const spin: WgslKernel = {
  id: "test.spin",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
struct Params { iters: u32 }
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= arrayLength(&v)) { return; }
  var x = v[g.x] + g.x;
  for (var i = 0u; i < params.iters; i++) { x = x * 1664525u + (x >> 7u) + 1013904223u; }
  v[g.x] = x;
}`,
};
const LIGHT = 128;
/** The light kernel's iterations; the heavy one (stream 2) runs 10x as many. */
const ITERS = 3000;

async function spinClient() {
  const client = await createClient({ adapter: adapter! });
  const light = client.createBytes(LIGHT * 64 * 4, { stream: 1 });
  const heavy = client.createBytes(LIGHT * 64 * 4, { stream: 2 });
  let iters = ITERS;
  const run = (stream: 1 | 2) =>
    client.execute(spin, {
      stream,
      count: CubeCount.new1d(LIGHT),
      buffers: [stream === 1 ? light : heavy],
      params: { iters: stream === 1 ? iters : 10 * iters },
    });
  run(1);
  run(2);
  await client.sync(); // compiled and warm
  return {
    client,
    server: client.server as WebGpuServer,
    run,
    light,
    /**
     * Scales the iterations until the light kernel takes 2 ms at least: a GPU runs ITERS in
     * microseconds, where a launch's own cost would blur the 10x (a CPU adapter needs none).
     */
    async calibrate() {
      for (let tries = 0; tries < 4; tries++) {
        const { duration } = await client.profile(() => run(1), { stream: 1 });
        if (duration.milliseconds >= 2) return;
        iters = Math.min(2 ** 24, Math.ceil(iters * 3 / Math.max(duration.milliseconds, 0.01)));
      }
    },
    [Symbol.dispose]() {
      light.dispose();
      heavy.dispose();
      client.destroy();
    },
  };
}

Deno.test({
  name: "per-stream windows: a kernel with 10x the work reads 10x, alone or overlapping",
  ignore: noAdapter || !timer,
  async fn() {
    using setup = await spinClient();
    const { client, server, run } = setup;
    await setup.calibrate();
    // The device here is a CPU shared with other processes: contention only ever adds time, so
    // the minimum over runs estimates each kernel's cost; sample until the estimate settles.
    // Contention also stretches the longer kernel more than the short one (measured up to 1.6x
    // with a load average of 8 on 2 cores), hence the wider tolerance above 10. Under such load
    // the heavy kernel's minimum settles last: up to 16 rounds (an idle machine stops after 2).
    // Contention can also stretch the light kernel's every run (a CI run beside two other test
    // processes read 31 ms against 213: 6.8x), hence 5 below; a window that took in the other
    // stream's kernel would read about 1x (light) or 11x (a whole-device window), checked apart.
    const alone = { light: Infinity, heavy: Infinity };
    const overlap = { light: Infinity, heavy: Infinity };
    const ratio = (m: { light: number; heavy: number }) => m.heavy / m.light;
    const settled = (r: number) => r >= 5 && r <= 16;
    for (let round = 0; round < 16; round++) {
      const light = await client.profile(() => run(1), { stream: 1 });
      const heavy = await client.profile(() => run(2), { stream: 2 });
      alone.light = Math.min(alone.light, light.duration.milliseconds);
      alone.heavy = Math.min(alone.heavy, heavy.duration.milliseconds);
      // Both windows open; the heavy kernel is submitted first and runs inside stream 1's window.
      const t1 = server.startProfile(1);
      const t2 = server.startProfile(2);
      run(2);
      client.flush({ stream: 2 });
      run(1);
      const [o1, o2] = await Promise.all([server.endProfile(1, t1), server.endProfile(2, t2)]);
      assert.equal(o1.timing, "device");
      overlap.light = Math.min(overlap.light, o1.milliseconds);
      overlap.heavy = Math.min(overlap.heavy, o2.milliseconds);
      if (round >= 1 && settled(ratio(alone)) && settled(ratio(overlap))) break;
    }
    const figures = JSON.stringify({ alone, overlap });
    assert.ok(settled(ratio(alone)), `alone: heavy / light should be 10 (5..16): ${figures}`);
    assert.ok(
      settled(ratio(overlap)),
      `overlapping: heavy / light should be 10 (5..16): ${figures}`,
    );
    // A whole-device window would add the heavy kernel to the light one (about 11x).
    assert.ok(overlap.light < 2 * alone.light, `overlap does not leak into the light window`);
  },
});

Deno.test({
  name: "profile(fn, { stream }) runs fn on that stream and does not submit other streams",
  ignore: noAdapter,
  async fn() {
    using setup = await spinClient();
    const { client, server, run } = setup;
    run(2); // queued on stream 2, not submitted (maxTasks is 32)
    const before = server.stats().submits;
    const { result, duration } = await client.profile(() => currentStreamId(), { stream: 5 });
    assert.equal(result, 5);
    assert.equal(duration.milliseconds, 0);
    assert.equal(
      server.stats().submits,
      before,
      "opening and closing a window on 5 submits nothing",
    );
    const inner = await client.profile(() => {
      run(1);
      return currentStreamId();
    }, { stream: 1 });
    assert.equal(inner.result, 1);
    assert.equal(server.stats().submits, before + 1, "only stream 1 was submitted");
    await client.sync();
    assert.equal(server.stats().submits, before + 2, "stream 2's kernel waited for the sync");
  },
});

Deno.test({
  name: "per-kernel timings: one entry per dispatch of the window's stream, in order",
  ignore: noAdapter || !timer,
  async fn() {
    using setup = await spinClient();
    const { client, run, light } = setup;
    const { duration } = await client.profile(async () => {
      run(1);
      run(2); // another stream: not in the window
      // the current stream
      client.execute(spin, {
        count: CubeCount.new2d(2, 2),
        buffers: [light],
        params: { iters: 1 },
      });
      run(1);
      await client.sync(); // one submission interleaves streams 1 and 2: passes still split
    }, { stream: 1, perKernel: true });
    const kernels = duration.kernels!;
    assert.equal(kernels.length, 3);
    assert.deepEqual(kernels.map((k) => [k.kernel, k.stream]), [
      ["test.spin", 1],
      ["test.spin", 1],
      ["test.spin", 1],
    ]);
    assert.deepEqual(kernels.map((k) => k.workgroups), [[LIGHT, 1, 1], [2, 2, 1], [LIGHT, 1, 1]]);
    for (const [i, k] of kernels.entries()) {
      assert.ok(k.end >= k.start, `kernel ${i} ends after it starts`);
      if (i > 0) assert.ok(k.start >= kernels[i - 1].end - 1e-3, `kernel ${i} after ${i - 1}`);
    }
    const sum = kernels.reduce((total, k) => total + (k.end - k.start), 0);
    assert.ok(Math.abs(sum - duration.milliseconds) < 1e-3, `${sum} vs ${duration.milliseconds}`);
    const plain = await client.profile(() => run(1), { stream: 1 });
    assert.equal(plain.duration.kernels, undefined);
  },
});

Deno.test({
  name: "windows that always overlap recycle their query sets",
  ignore: noAdapter || !timer,
  async fn() {
    using setup = await spinClient();
    const { client, server } = setup;
    using data = client.createBytes(256, { stream: 3 });
    let open = server.startProfile(3);
    const ends: Promise<ProfileDuration>[] = [];
    for (let i = 0; i < 130; i++) { // more passes than one set holds; a window always open
      const next = server.startProfile(3);
      client.execute(spin, {
        stream: 3,
        count: CubeCount.newSingle(),
        buffers: [data],
        params: { iters: 1 },
      });
      ends.push(server.endProfile(3, open)); // slots are recycled when the close is submitted
      open = next;
    }
    ends.push(server.endProfile(3, open));
    for (const duration of await Promise.all(ends)) assert.equal(duration.timing, "device");
    assert.equal(server.stats().querySets, 1, "one set of 128 slots serves every window");
  },
});

Deno.test({
  name: "per-kernel timings need timestamp-query: UNSUPPORTED without it",
  ignore: noAdapter,
  fn() {
    const profiler = new WebGpuProfiler({} as GPUDevice, { timestamps: false });
    assert.throws(() => profiler.start(0, { perKernel: true }), { code: "UNSUPPORTED" });
    assert.throws(() => profiler.start(0, { perKernel: 1 as unknown as boolean }), TypeError);
    profiler.destroy();
  },
});

Deno.test({
  name: "profile: bad arguments are TypeErrors naming them; fn's error closes the window",
  ignore: noAdapter || !timer,
}, async () => {
  using client = await createClient({ adapter: adapter! });
  using v = client.createBytes(64 * 4);
  const launch = () =>
    client.execute(spin, { count: CubeCount.new1d(1), buffers: [v], params: { iters: 1 } });
  let ran = 0;
  await assert.rejects(client.profile(42 as never), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /fn must be a function, got 42/);
    return true;
  });
  await assert.rejects(client.profile(() => ran++, null as never), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /options must be an object, got null/);
    return true;
  });
  assert.equal(ran, 0, "fn does not run when the arguments are refused");
  // fn's own error, thrown or rejected, comes back as is; its launches ran; the window closed.
  const boom = new RangeError("boom");
  await assert.rejects(
    client.profile(() => (launch(), ran++, Promise.reject(boom))),
    (e) => e === boom,
  );
  await assert.rejects(
    client.profile(() => {
      launch();
      throw boom;
    }),
    (e) => e === boom,
  );
  const { duration } = await client.profile(launch, { perKernel: true });
  assert.deepEqual(duration.kernels?.map((k) => k.kernel), ["test.spin"]);
  assert.equal(ran, 1);
});

Deno.test({
  name: "profile: fn's error on a held stream comes back at once; the window closes once it opens",
  ignore: noAdapter,
}, async () => {
  using client = await createClient({ adapter: adapter! });
  const server = client.server;
  const ends: unknown[] = [];
  const endProfile = server.endProfile.bind(server);
  server.endProfile = (stream, token) => (ends.push(token), endProfile(stream, token));
  const signal = new CpuTimelineSignal();
  client.waitFor(signal, 1, { stream: 1 }); // stream 1 is held until the signal reaches 1
  const boom = new RangeError("boom");
  const profiled = client.profile(() => {
    throw boom;
  }, { stream: 1 });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    profiled.then(() => "resolved", (error) => error),
    new Promise((resolve) => timer = setTimeout(() => resolve("still pending"), 2000)),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, boom, "not held behind the stream's wait");
  assert.equal(ends.length, 0, "the window has not opened yet");
  signal.set(1);
  await client.sync({ stream: 1 });
  assert.equal(ends.length, 1, "the window opened and closed in the stream's order");
});

Deno.test({
  name: "endProfile with another stream than the window's: refused, the window stays open",
  ignore: noAdapter || !timer,
}, async () => {
  using client = await createClient({ adapter: adapter! });
  using v = client.createBytes(64 * 4, { stream: 1 });
  const server = client.server;
  const token = server.startProfile(1, { perKernel: true });
  client.execute(spin, {
    count: CubeCount.new1d(1),
    buffers: [v],
    stream: 1,
    params: { iters: 1 },
  });
  // It used to close the window without submitting stream 1's work in it: 0 ms, no kernels.
  await assert.rejects(server.endProfile(2, token), {
    code: "PROFILE_NOT_REGISTERED",
    message: /opened on stream 1, not on stream 2/,
  });
  const duration = await server.endProfile(1, token);
  assert.deepEqual(duration.kernels?.map((k) => k.kernel), ["test.spin"]);
  assert.ok(duration.milliseconds > 0);
});
