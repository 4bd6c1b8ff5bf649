/**
 * README.md read as a contract (QA wave 7): textures, override constants, profiles and traces,
 * the claims no other test checked, on WebGPU (the fallback adapter) and, where the claim is
 * backend-neutral or names CUDA, on the simulated CUDA driver.
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  createClient,
  elementwise,
  KernelArgumentError,
  listDevices,
  UnsupportedError,
} from "../mod.ts";
import { nvrtcSkip } from "./_cuda_nvrtc.ts";
import { within } from "./_device_programs.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const noWebgpu = adapter === undefined;
const openWebgpu = () => createClient({ device: adapter! });
const openCuda = () => createClient({ backend: "cuda", library: SIM_LIBRARY });
const backends = [
  { name: "webgpu", ignore: noWebgpu, open: openWebgpu },
  { name: "cuda", ignore: nvrtcSkip !== undefined, open: openCuda },
] as const;

function both(name: string, fn: (client: ComputeClient) => Promise<void>): void {
  for (const b of backends) {
    Deno.test({
      name: `${b.name}: ${name}`,
      ignore: b.ignore,
      async fn() {
        using client = (await b.open()) as ComputeClient;
        await fn(client);
      },
    });
  }
}

// Overrides: "by name, or an `@id(N)` one by "N" as WebGPU keys it", and "a `@workgroup_size`
// written with overrides counts for `threads`". A size read from the default instead of the
// value given by id would launch the wrong number of invocations, silently.
const byId = {
  source: `
@id(0) override W: u32 = 64u;
@id(3) override S: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(W) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = S; }
}`,
};

Deno.test({
  name: 'webgpu: an @id(N) override is set by "N" or by name, its workgroup size counted',
  ignore: noWebgpu,
  async fn() {
    using client = await openWebgpu();
    using out = client.zeros(16, "f32");
    const run = async (overrides: Record<string, number>) => {
      client.write(out, new Float32Array(16));
      client.execute(byId, { threads: 10, buffers: [out], overrides });
      return [...await client.read(out)];
    };
    // Groups of 4: 3 groups, 12 invocations write (64-wide groups would write all 16).
    const expected = [...new Array(12).fill(2.5), 0, 0, 0, 0];
    assert.deepEqual(await run({ "0": 4, "3": 2.5 }), expected);
    assert.deepEqual(await run({ W: 4, S: 2.5 }), expected);
    assert.deepEqual(await run({ "0": 4, S: 2.5 }), expected);
    await client.compile(byId, { overrides: { "0": 2 } });
    assert.throws(
      () => client.execute(byId, { threads: 1, buffers: [out], overrides: { "0": 4, W: 4 } }),
      (e) => e instanceof KernelArgumentError && /overrides\.0.*overrides\.W/.test(e.message),
    );
    assert.throws(
      () => client.execute(byId, { threads: 1, buffers: [out], overrides: { "1": 4 } }),
      (e) => e instanceof KernelArgumentError && /overrides\.1.*not an override/.test(e.message),
    );
    assert.deepEqual(await run({}), new Array(16).fill(1)); // the defaults, usable after
  },
});

// Textures: "View dimension, format and access are checked against the WGSL at the call".
Deno.test({
  name: "webgpu: a texture's sample type and storage access are checked at the call",
  ignore: noWebgpu,
  async fn() {
    using client = await openWebgpu();
    using rgba = client.createTexture({ width: 2, height: 2, format: "rgba8unorm" });
    using uints = client.createTexture({
      width: 2,
      height: 2,
      format: "r32uint",
      data: new Uint32Array([1, 2, 3, 4]),
    });
    using out = client.zeros(4, "u32");
    const loadU32 = {
      source: `
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(2, 2) fn main(@builtin(global_invocation_id) id: vec3u) {
  out[id.y * 2u + id.x] = textureLoad(src, id.xy, 0).x;
}`,
    };
    assert.throws(
      () => client.execute(loadU32, { threads: [2, 2], buffers: [rgba, out] }),
      (e) => e instanceof KernelArgumentError && e.argument === "buffers[0]",
    );
    const writeR32 = {
      source: `
@group(0) @binding(0) var dst: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(1) fn main() { textureStore(dst, vec2u(0u, 0u), vec4u(9u)); }`,
    };
    assert.throws(
      () => client.execute(writeR32, { threads: 1, buffers: [rgba] }),
      (e) => e instanceof KernelArgumentError && e.argument === "buffers[0]",
    );
    // The matching ones run, and read back as the format's array.
    client.execute(loadU32, { threads: [2, 2], buffers: [uints, out] });
    assert.deepEqual([...await client.read(out)], [1, 2, 3, 4]);
    client.execute(writeR32, { threads: 1, buffers: [uints] });
    assert.deepEqual([...await client.read(uints)], [9, 2, 3, 4]);
  },
});

// A 3-D or array view was UNSUPPORTED while the runtime made 2-D textures only; now they compile,
// and a 2-D texture bound where the WGSL declares a 3-D one is a KernelArgumentError at the call
// ("View dimension, layers, format and access are checked against the WGSL at the call").
Deno.test({
  name: "webgpu: texture views other than 2-D compile; a 2-D texture for a 3-D one is refused",
  ignore: noWebgpu,
  async fn() {
    using client = await openWebgpu();
    using tex = client.createTexture({ width: 2, height: 2, format: "r32uint" });
    using out = client.zeros(4, "u32");
    for (
      const type of [
        "texture_3d<u32>",
        "texture_2d_array<u32>",
        "texture_storage_3d<r32uint, read>",
      ]
    ) {
      const kernel = {
        source: `@group(0) @binding(0) var t: ${type};
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = textureDimensions(t).x; }`,
      };
      await client.compile(kernel);
      const launch = () => client.execute(kernel, { threads: 1, buffers: [tex, out] });
      if (type.includes("3d")) {
        assert.throws(
          launch,
          (e) => e instanceof KernelArgumentError && e.message.includes("needs a 3-D texture"),
          type,
        );
      } else {
        launch(); // a 2-D array view of one layer is WebGPU's
        assert.equal((await client.read(out))[0], 2);
      }
    }
    client.write(out, new Uint32Array([5, 6, 7, 8]));
    assert.deepEqual([...await client.read(out)], [5, 6, 7, 8]); // usable after
  },
});

// "textures on CUDA (`UNSUPPORTED`)"; overrides are WGSL's (the CUDA backend has none).
Deno.test({
  name: "cuda: textures and override constants are UNSUPPORTED at the call",
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await openCuda();
    assert.throws(
      () => client.createTexture({ width: 2, height: 2, format: "r32uint" }),
      (e) => e instanceof UnsupportedError && /textures/.test(e.message),
    );
    using x = client.zeros(4, "f32");
    const put = {
      source: `extern "C" __global__ void put(float* p) { p[threadIdx.x] = 3.0f; }`,
      entryPoint: "put",
    };
    const refused = (e: unknown) => e instanceof UnsupportedError && /override/.test(String(e));
    assert.throws(
      () => client.execute(put, { threads: 4, buffers: [x], overrides: { W: 1 } }),
      refused,
    );
    await assert.rejects(() => client.compile(put, { overrides: { W: 1 } }), refused);
    // An empty set sets none: code written for both backends may pass one.
    await client.compile(put, { overrides: {} });
    client.execute(put, { threads: 4, buffers: [x], overrides: {} });
    assert.deepEqual([...await client.read(x)], [3, 3, 3, 3]); // usable after
  },
});

// Profiles: the work is done when `profile()` settles, `result` is fn's value, and `perKernel`
// lists each kernel fn launched on the window's stream (not earlier work), in order, on both.
both("profile: fn's result, per-kernel timings in order, a read right after", async (c) => {
  const add = elementwise({ inputs: { v: "f32" }, expression: "v + 1.0" });
  const twice = elementwise({ inputs: { v: "f32" }, expression: "v * 2.0" });
  using x = c.zeros(1024, "f32", { stream: 1 });
  using other = c.zeros(4, "f32", { stream: 2 });
  add.run(c, { v: x }, { out: x, stream: 1 }); // before the window: not in it
  const { result, duration } = await within(
    c.profile(() => {
      add.run(c, { v: other }, { out: other, stream: 2 }); // not this window's stream
      add.run(c, { v: x }, { out: x });
      twice.run(c, { v: x }, { out: x });
      return 42;
    }, { stream: 1, perKernel: true }),
    5_000,
  );
  assert.equal(result, 42);
  assert.ok(Number.isFinite(duration.milliseconds) && duration.milliseconds >= 0);
  const kernels = duration.kernels ?? [];
  assert.equal(kernels.length, 2, JSON.stringify(kernels));
  for (const k of kernels) {
    assert.equal(k.stream, 1);
    assert.ok(k.end >= k.start, JSON.stringify(k));
  }
  assert.ok(kernels[1].start >= kernels[0].start, "launch order");
  const values = await c.read(x, { stream: 1 });
  assert.ok(values.every((v) => v === 4), `${values.slice(0, 4)}`);
  assert.deepEqual([...await c.read(other, { stream: 2 })], [1, 1, 1, 1]);
});

// Traces: "`client.trace()` records every stream".
both("trace: every stream's kernels, once each, with the stream they ran on", async (c) => {
  const add = elementwise({ inputs: { v: "f32" }, expression: "v + 1.0" });
  using a = c.zeros(8, "f32", { stream: 1 });
  using b = c.zeros(8, "f32", { stream: 2 });
  const recorder = c.trace();
  add.run(c, { v: a }, { out: a, stream: 1 });
  add.run(c, { v: b }, { out: b, stream: 2 });
  add.run(c, { v: b }, { out: b, stream: 2 });
  await c.sync();
  const trace = await within(recorder.stop(), 5_000);
  assert.equal(trace.backend, c.server.properties.backend);
  const kernels = trace.events.filter((e) => e.type === "kernel");
  const on = (s: number) => kernels.filter((k) => k.type === "kernel" && k.stream === s).length;
  assert.deepEqual([on(1), on(2), kernels.length], [1, 2, 3]);
  assert.ok(trace.end >= trace.start);
  assert.deepEqual([...await c.read(b, { stream: 2 })], new Array(8).fill(2));
});
