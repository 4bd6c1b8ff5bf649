/**
 * Textures and samplers through the client, in the styles of real shaders (a blur with a
 * linear sampler, game of life on r32uint storage textures, a histogram over a texture_2d<f32>),
 * each bit-identical to the same WGSL run by a plain WebGPU program on the same adapter; and the
 * misuses (a wrong format, a buffer for a texture, a texture for a buffer) refused at the call
 * with a KernelArgumentError naming the binding, the client usable after.
 */
import assert from "node:assert/strict";
import {
  CpuTimelineSignal,
  createClient,
  InvalidHandleError,
  KernelArgumentError,
  UnsupportedError,
} from "../mod.ts";
import { bytesOf, runPlain } from "./_plain_webgpu.ts";
import { BLUR_WGSL, LIFE_WGSL } from "./_wgsl_corpus_27.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const W = 19; // rows of 76 bytes (rgba8unorm): padded to 256 for copies
const H = 7;

const HISTOGRAM_WGSL = `
@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  let size = textureDimensions(image);
  if (id.x >= size.x || id.y >= size.y) { return; }
  let v = textureLoad(image, id.xy, 0).x;
  atomicAdd(&bins[min(u32(v * 16.0), 15u)], 1u);
}`;

const image = Uint8Array.from({ length: W * H * 4 }, (_, i) => (i * 37 + (i >> 3) * 11) & 255);

Deno.test({ name: "a blur with a linear sampler matches plain WebGPU", ignore }, async () => {
  using client = await createClient();
  using src = client.createTexture({ width: W, height: H, format: "rgba8unorm", data: image });
  using dst = client.createTexture({ width: W, height: H, format: "rgba8unorm" });
  client.execute({ source: BLUR_WGSL }, {
    threads: [W, H],
    buffers: { src, dst },
    samplers: { smp: { magFilter: "linear", minFilter: "linear" } },
  });
  const got = await client.read(dst);
  assert.ok(got instanceof Uint8Array && got.length === W * H * 4);
  const [, , plain] = await runPlain(BLUR_WGSL, [
    { group: 0, binding: 0, texture: { width: W, height: H, format: "rgba8unorm", data: image } },
    { group: 0, binding: 1, sampler: { magFilter: "linear", minFilter: "linear" } },
    { group: 0, binding: 2, texture: { width: W, height: H, format: "rgba8unorm" }, storage: true },
  ], [3, 1]);
  assert.deepEqual(got, plain);
  assert.notDeepEqual(got, image);
  // The round trip of the source is exact.
  assert.deepEqual(await client.read(src), image);
});

Deno.test(
  { name: "game of life on r32uint storage textures matches plain WebGPU", ignore },
  async () => {
    using client = await createClient();
    const cells = Uint32Array.from({ length: W * H }, (_, i) => ((i * 7) % 5 === 0 ? 1 : 0));
    using a = client.createTexture({ width: W, height: H, format: "r32uint", data: cells });
    using b = client.createTexture({ width: W, height: H, format: "r32uint" });
    // Two generations, ping-pong, on two streams: ordered by texture identity.
    client.execute({ source: LIFE_WGSL }, { threads: [W, H], buffers: [a, b], stream: 1 });
    client.execute({ source: LIFE_WGSL }, { threads: [W, H], buffers: [b, a], stream: 2 });
    const got = await client.read(a, { stream: 3 });
    assert.ok(got instanceof Uint32Array);
    const [, once] = await runPlain(LIFE_WGSL, [
      {
        group: 0,
        binding: 0,
        texture: { width: W, height: H, format: "r32uint", data: cells },
        storage: true,
      },
      { group: 0, binding: 1, texture: { width: W, height: H, format: "r32uint" }, storage: true },
    ], [3, 1]);
    const [, twice] = await runPlain(LIFE_WGSL, [
      {
        group: 0,
        binding: 0,
        texture: {
          width: W,
          height: H,
          format: "r32uint",
          data: new Uint32Array(once.buffer as ArrayBuffer),
        },
        storage: true,
      },
      { group: 0, binding: 1, texture: { width: W, height: H, format: "r32uint" }, storage: true },
    ], [3, 1]);
    assert.deepEqual(bytesOf(got), twice);
    assert.notDeepEqual(bytesOf(got), bytesOf(cells));
  },
);

Deno.test(
  { name: "a histogram over a texture_2d<f32> (r32float) matches plain WebGPU", ignore },
  async () => {
    using client = await createClient();
    const values = Float32Array.from({ length: W * H }, (_, i) => ((i * 0.137) % 1));
    using tex = client.createTexture({ width: W, height: H, format: "r32float", data: values });
    using bins = client.zeros(16, "u32");
    client.execute({ source: HISTOGRAM_WGSL }, { threads: [W, H], buffers: { image: tex, bins } });
    const got = await client.read(bins);
    const [, plain] = await runPlain(HISTOGRAM_WGSL, [
      { group: 0, binding: 0, texture: { width: W, height: H, format: "r32float", data: values } },
      { group: 0, binding: 1, buffer: new Uint32Array(16) },
    ], [3, 1]);
    assert.deepEqual(bytesOf(got), plain);
    assert.equal(got.reduce((s, n) => s + n, 0), W * H);
    assert.deepEqual(await client.read(tex), values);
  },
);

Deno.test(
  { name: "texture misuse is refused at the call, the client usable after", ignore },
  async () => {
    using client = await createClient();
    using floats = client.createTexture({ width: W, height: H, format: "r32float" });
    using uints = client.createTexture({ width: W, height: H, format: "r32uint" });
    using buffer = client.zeros(16, "u32");
    const refuse = (run: () => void, argument: string, text: RegExp) =>
      assert.throws(run, (error) => {
        assert.ok(error instanceof KernelArgumentError, String(error));
        assert.equal(error.argument, argument);
        assert.match(error.message, text);
        return true;
      });
    const life = { source: LIFE_WGSL };
    refuse(
      () => client.execute(life, { threads: [W, H], buffers: [floats, uints] }),
      "buffers[0]",
      /r32float.*needs the format r32uint/,
    );
    refuse(
      () => client.execute(life, { threads: [W, H], buffers: { cur: buffer, next: uints } }),
      "buffers.cur",
      /is a buffer, but cur.*is a texture/,
    );
    const histogram = { source: HISTOGRAM_WGSL };
    refuse(
      () => client.execute(histogram, { threads: 1, buffers: [floats, floats] }),
      "buffers[1]",
      /is a texture \(r32float.*storage buffer/,
    );
    refuse(
      () => client.execute(histogram, { threads: 1, buffers: { image: floats, binz: buffer } }),
      "buffers.binz",
      /not a storage or texture binding/,
    );
    // A sampler makes the kernel's float textures filterable: r32float is not, unless the device
    // has float32-filterable (then it binds and filters as WebGPU allows).
    using dst = client.createTexture({ width: W, height: H, format: "rgba8unorm" });
    const blurFloats = () =>
      client.execute({ source: BLUR_WGSL }, {
        threads: [W, H],
        buffers: [floats, dst],
        samplers: [{ magFilter: "linear" }],
      });
    if (client.features.has("float32-filterable")) {
      blurFloats();
      await client.sync();
      using plainDevice = await createClient({ features: [] });
      using f = plainDevice.createTexture({ width: W, height: H, format: "r32float" });
      using d = plainDevice.createTexture({ width: W, height: H, format: "rgba8unorm" });
      refuse(
        () =>
          plainDevice.execute({ source: BLUR_WGSL }, {
            threads: [W, H],
            buffers: [f, d],
            samplers: [{ magFilter: "linear" }],
          }),
        "buffers[0]",
        /unfilterable-float.*filterable/,
      );
    } else refuse(blurFloats, "buffers[0]", /unfilterable-float.*filterable/);
    using src = client.createTexture({ width: W, height: H, format: "rgba8unorm" });
    refuse(
      () =>
        client.execute({ source: BLUR_WGSL }, {
          threads: [W, H],
          buffers: [src, dst],
          samplers: [{ magFilter: "cubic" as "linear" }],
        }),
      "samplers[0].magFilter",
      /nearest, linear/,
    );
    assert.throws(() => client.write(uints, new Float32Array(W * H)), TypeError);
    assert.throws(
      () => client.createTexture({ width: 0, height: 1, format: "r32uint" }),
      RangeError,
    );
    assert.throws(
      () => client.createTexture({ width: 1, height: 1, format: "bgra9" as "r32uint" }),
      TypeError,
    );
    // Usable after: a real launch still runs.
    client.write(uints, new Uint32Array(W * H).fill(1));
    using out = client.createTexture({ width: W, height: H, format: "r32uint" });
    client.execute(life, { threads: [W, H], buffers: { cur: uints, next: out } });
    assert.deepEqual(await client.read(out), new Uint32Array(W * H)); // all neighbours alive: 8
    floats.dispose();
    await assert.rejects(client.read(floats), /after dispose/);
  },
);

Deno.test(
  { name: "a texture written and used otherwise by one launch is refused at the call", ignore },
  async () => {
    using client = await createClient();
    using tex = client.createTexture({
      width: 2,
      height: 2,
      format: "r32float",
      data: new Float32Array([1, 2, 3, 4]),
    });
    const declared: Record<string, string> = {
      sampled: "texture_2d<f32>",
      read: "texture_storage_2d<r32float, read>",
      write: "texture_storage_2d<r32float, write>",
      read_write: "texture_storage_2d<r32float, read_write>",
    };
    const uses: Record<string, (v: string) => string> = {
      sampled: (v) => `_ = textureLoad(${v}, id.xy, 0);`,
      read: (v) => `_ = textureLoad(${v}, id.xy);`,
      write: (v) => `textureStore(${v}, id.xy, vec4f(f32(id.x + 2u * id.y) * 10.0));`,
      read_write: (v) => `textureStore(${v}, id.xy, textureLoad(${v}, id.xy) + 1.0);`,
    };
    const kernel = (a: string, b: string) => ({
      source: `@group(0) @binding(0) var t0: ${declared[a]};
@group(0) @binding(1) var t1: ${declared[b]};
@compute @workgroup_size(2, 2) fn main(@builtin(global_invocation_id) id: vec3u) {
  ${uses[a]("t0")} ${uses[b]("t1")}
}`,
    });
    // WebGPU (wgpu) rejects these at submit: one binding writes, the other uses it otherwise.
    for (
      const [a, b] of [["sampled", "write"], ["sampled", "read_write"], ["read", "write"], [
        "read",
        "read_write",
      ], ["write", "read_write"]]
    ) {
      assert.throws(() => client.execute(kernel(a, b), { threads: [2, 2], buffers: [tex, tex] }), (
        error,
      ) => {
        assert.ok(error instanceof KernelArgumentError, `${a} + ${b}: ${error}`);
        assert.equal(error.argument, "buffers[1]");
        assert.match(error.message, /already bound as buffers\[0\]/);
        return true;
      });
    }
    // Refused before anything ran: the texels are untouched and the stream has no error.
    assert.deepEqual(await client.read(tex), new Float32Array([1, 2, 3, 4]));
    // The same usage twice is allowed and runs.
    client.execute(kernel("sampled", "read"), { threads: [2, 2], buffers: [tex, tex] });
    client.execute(kernel("read_write", "read_write"), { threads: [2, 2], buffers: [tex, tex] });
    assert.deepEqual(await client.read(tex), new Float32Array([3, 4, 5, 6]));
    client.execute(kernel("write", "write"), { threads: [2, 2], buffers: [tex, tex] });
    assert.deepEqual(await client.read(tex), new Float32Array([0, 10, 20, 30]));
  },
);

Deno.test(
  { name: "read(texture, type): the format's arrays or a byte view, else a TypeError", ignore },
  async () => {
    using client = await createClient();
    const texels = new Float32Array([1, 2, 3, 4]);
    using floats = client.createTexture({ width: 2, height: 2, format: "r32float", data: texels });
    await assert.rejects(client.read(floats as never, Int32Array), (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /r32float texture reads as Float32Array.*asked as Int32Array/);
      return true;
    });
    const bytes = await client.read(floats as never, Uint8Array);
    assert.ok(bytes instanceof Uint8Array);
    assert.deepEqual(bytes, new Uint8Array(texels.buffer));
    assert.deepEqual(await client.read(floats as never, Float32Array, { stream: 1 }), texels);
    const halves = Uint16Array.from({ length: 4 }, (_, i) => 0x3c00 + i); // 1, 1.0009...
    using half = client.createTexture({ width: 1, height: 1, format: "rgba16float", data: halves });
    assert.deepEqual(await client.read(half as never, Uint16Array), halves);
  },
);

Deno.test(
  { name: "write(texture, data, { offset }): a texture is written whole", ignore },
  async () => {
    using client = await createClient();
    using tex = client.createTexture({ width: 2, height: 1, format: "r32uint" });
    assert.throws(() => client.write(tex, new Uint32Array([7, 8]), { offset: 1 }), (error) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /offset must be 0 for a texture/);
      return true;
    });
    client.write(tex, new Uint32Array([5, 6]), { offset: 0 });
    assert.deepEqual(await client.read(tex), new Uint32Array([5, 6]));
  },
);

Deno.test(
  { name: "external textures are UNSUPPORTED, not compile errors", ignore },
  async () => {
    using client = await createClient();
    using out = client.zeros(1);
    // (Depth and multisampled textures are made since wave 15: webgpu_texture_depth_test.ts.)
    for (const type of ["texture_external"]) {
      const kernel = {
        source: `@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(0) var t: ${type};
@compute @workgroup_size(1) fn main() { o[0] = f32(textureDimensions(t).x); }`,
      };
      const unsupported = (error: unknown) => {
        assert.ok(error instanceof UnsupportedError, `${type}: ${error}`);
        assert.equal(error.code, "UNSUPPORTED");
        assert.match(error.message, new RegExp(`t: ${type.replace(/<.*/, "")}.*\\(line 2\\)`));
        return true;
      };
      await assert.rejects(client.compile(kernel), unsupported); // valid WGSL, for the device
      assert.throws(() => client.execute(kernel, { threads: 1, buffers: [out, out] }), unsupported);
    }
    client.write(out, new Float32Array([5]));
    assert.deepEqual(await client.read(out), new Float32Array([5]));
  },
);

Deno.test(
  { name: "textures while a stream is held by waitFor, and in a captured graph", ignore },
  async () => {
    using client = await createClient();
    const produced = new CpuTimelineSignal();
    using tex = client.createTexture({ width: 2, height: 1, format: "r32float" });
    client.waitFor(produced, 1, { stream: 1 });
    client.write(tex, new Float32Array([1, 2]), { stream: 1 }); // held until produced reaches 1
    using made = client.createTexture({
      width: 2,
      height: 1,
      format: "r32float",
      data: new Float32Array([3, 4]),
      stream: 1,
    });
    const read = client.read(tex, { stream: 1 });
    produced.set(1);
    assert.deepEqual(await read, new Float32Array([1, 2]));
    assert.deepEqual(await client.read(made, { stream: 1 }), new Float32Array([3, 4]));
    const increment = {
      source: `@group(0) @binding(0) var t: texture_storage_2d<r32float, read_write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (all(id.xy < textureDimensions(t))) { textureStore(t, id.xy, textureLoad(t, id.xy) + 1.0); }
}`,
    };
    using graph = await client.capture(() => {
      client.execute(increment, { threads: [2, 1], buffers: [tex] });
    });
    graph.replay();
    graph.replay();
    assert.deepEqual(await client.read(tex), new Float32Array([3, 4]));
  },
);

Deno.test(
  { name: "a texture disposed right after a held call is kept until the call ran", ignore },
  async () => {
    using client = await createClient();
    using out = client.zeros(2, "f32", { stream: 1 });
    const copy = {
      source: `@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(2) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < 2u) { o[id.x] = textureLoad(t, id.xy, 0).x; }
}`,
    };
    const produced = new CpuTimelineSignal();
    client.waitFor(produced, 1, { stream: 1 });
    {
      using tex = client.createTexture({ width: 2, height: 1, format: "r32float", stream: 1 });
      client.write(tex, new Float32Array([7, 8]), { stream: 1 }); // held, then disposed
      client.execute(copy, { threads: 2, buffers: [tex, out], stream: 1 }); // held, then disposed
    }
    using kept = client.createTexture({
      width: 2,
      height: 1,
      format: "r32float",
      data: new Float32Array([5, 6]),
    });
    const read = client.read(kept, { stream: 1 }); // held
    kept.dispose();
    produced.set(1);
    assert.deepEqual(await read, new Float32Array([5, 6]));
    assert.deepEqual(await client.read(out, { stream: 1 }), new Float32Array([7, 8]));
  },
);

Deno.test(
  { name: "another client's texture: INVALID_HANDLE that does not say copyTo", ignore },
  async () => {
    using a = await createClient();
    using b = await createClient();
    using tex = a.createTexture({ width: 2, height: 1, format: "r32float", label: "heights" });
    const refused = (error: unknown) => {
      assert.ok(error instanceof InvalidHandleError, String(error));
      assert.match(error.message, /^Texture 'heights' \(made by createTexture on stream 0\)/);
      assert.match(error.message, /textures do not move between clients/);
      assert.doesNotMatch(error.message, /copyTo|bytes/); // copyTo takes no texture
      return true;
    };
    assert.throws(() => b.write(tex, new Float32Array(2)), refused);
    await assert.rejects(b.read(tex), refused);
  },
);
