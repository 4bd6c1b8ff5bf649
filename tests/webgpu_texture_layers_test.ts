/**
 * Array layers: `texture.view({ baseArrayLayer, arrayLayerCount })` written and read alone (the
 * other layers kept), a kernel storing into one layer through `texture_storage_2d`, a cube face
 * written through a one-layer view and sampled via `texture_cube`, one dispatch sampling layer 0
 * and storing layer 1 of one texture, a depth32float layer bound as `texture_depth_2d`, and the
 * typed errors.
 */
import assert from "node:assert/strict";
import { bytes, ignore, throwsWith } from "./_texture_test_helpers.ts";
import { CpuTimelineSignal, createClient, KernelArgumentError } from "../mod.ts";
import { WebGpuTextures } from "../runtime/server/webgpu/memory/textures.ts";

Deno.test({
  name: "layers: each layer of a 2-D array (rgba8unorm, r32float) round-trips alone",
  ignore,
  async fn() {
    using client = await createClient();
    // 5x3 rgba8unorm: rows of 20 bytes, padded to 256 in the staging copy.
    using image = client.createTexture({
      width: 5,
      height: 3,
      depthOrArrayLayers: 4,
      format: "rgba8unorm",
    });
    const layer = 5 * 3 * 4;
    for (let z = 3; z >= 0; z--) {
      const view = image.view({ baseArrayLayer: z, arrayLayerCount: 1 });
      assert.deepEqual([view.width, view.height, view.depthOrArrayLayers], [5, 3, 1]);
      assert.equal(image.view({ baseArrayLayer: z, arrayLayerCount: 1 }), view, "one view");
      client.write(view, bytes(layer, z));
    }
    for (let z = 0; z < 4; z++) {
      const view = image.view({ baseArrayLayer: z, arrayLayerCount: 1 });
      assert.deepEqual(await client.read(view), bytes(layer, z), `layer ${z}`);
    }
    const whole = new Uint8Array(layer * 4);
    for (let z = 0; z < 4; z++) whole.set(bytes(layer, z), z * layer);
    assert.deepEqual(await client.read(image), whole);

    // Layers 1 and 2 of an r32float array at mip level 1 (3x2 per layer), then layers 2 to 3
    // by default count; the others stay as written.
    using floats = client.createTexture({
      width: 6,
      height: 4,
      depthOrArrayLayers: 4,
      format: "r32float",
      mipLevelCount: 2,
    });
    const all = Float32Array.from({ length: 3 * 2 * 4 }, (_, i) => i + 0.5);
    client.write(floats.view({ mipLevel: 1 }), all);
    const middle = floats.view({ mipLevel: 1, baseArrayLayer: 1, arrayLayerCount: 2 });
    assert.equal(middle.depthOrArrayLayers, 2);
    assert.deepEqual(await client.read(middle), all.subarray(6, 18));
    client.write(middle, new Float32Array(12).fill(-2));
    const tail = floats.view({ mipLevel: 1, baseArrayLayer: 2 });
    assert.equal(tail.arrayLayerCount, 2);
    assert.deepEqual(
      await client.read(tail),
      Float32Array.from([...new Array(6).fill(-2), ...all.subarray(18)]),
    );
    const expected = all.slice();
    expected.fill(-2, 6, 18);
    assert.deepEqual(await client.read(floats.view({ mipLevel: 1 })), expected);
    assert.deepEqual(
      floats.view({ baseArrayLayer: 0, arrayLayerCount: 4 }),
      floats.view({ mipLevel: 0 }),
      "every layer from 0 is the level",
    );
  },
});

Deno.test({
  name: "layers: a kernel stores into layer 2 via texture_storage_2d; the other layers are kept",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, layers] = [4, 3, 4];
    const start = Float32Array.from({ length: w * h * layers }, (_, i) => i * 0.25);
    using image = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: layers,
      format: "r32float",
      data: start,
    });
    const program = {
      source: `@group(0) @binding(0) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(dst);
  if (g.x >= size.x || g.y >= size.y) { return; }
  textureStore(dst, vec2i(g.xy), vec4f(f32(g.y * 10u + g.x) + 100.0, 0.0, 0.0, 1.0));
}`,
    };
    client.execute(program, {
      threads: [w, h],
      buffers: [image.view({ baseArrayLayer: 2, arrayLayerCount: 1 })],
    });
    const expected = start.slice();
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) expected[(2 * h + y) * w + x] = y * 10 + x + 100;
    }
    assert.deepEqual(await client.read(image), expected);
    // The device view of a layer is made once (the launch's bind group is found again).
    const entry = WebGpuTextures.entry(image.ref())!;
    assert.equal(entry.view("2d", 0, [2, 1]), entry.view("2d", 0, [2, 1]));
    assert.notEqual(entry.view("2d", 0, [2, 1]), entry.view("2d", 0, [1, 1]));
    assert.notEqual(entry.view("2d-array", 0), entry.view("2d-array", 0, [1, 2]));
    // The whole texture (4 layers) is refused where one layer is declared.
    assert.throws(
      () => client.execute(program, { threads: [w, h], buffers: [image] }),
      (e) =>
        e instanceof KernelArgumentError && e.message.includes("2-D texture of one layer") &&
        e.message.includes("arrayLayerCount: 1"),
    );
  },
});

Deno.test({
  name: "layers: a cube face written through a one-layer view is what texture_cube samples there",
  ignore,
  async fn() {
    using client = await createClient();
    const side = 3; // the middle texel (1, 1) of a 3x3 face is its centre
    using cube = client.createTexture({
      width: side,
      height: side,
      depthOrArrayLayers: 6,
      format: "rgba8unorm",
    });
    const faces = Array.from({ length: 6 }, (_, f) => bytes(side * side * 4, f + 1));
    faces.forEach((face, f) =>
      client.write(cube.view({ baseArrayLayer: f, arrayLayerCount: 1 }), face)
    );
    // +X, -X, +Y, -Y, +Z, -Z: WebGPU's layer order.
    const dirs = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
    using directions = client.createWithData(new Float32Array(dirs.flatMap((d) => [...d, 0])));
    using out = client.zeros(6 * 4, "f32");
    client.execute({
      source: `@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> dirs: array<vec4f, 6>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4f, 6>;
@compute @workgroup_size(6) fn main(@builtin(local_invocation_index) i: u32) {
  out[i] = textureSampleLevel(cube, s, dirs[i].xyz, 0.0);
}`,
    }, { threads: 6, buffers: [cube, directions, out], samplers: [{}] });
    const got = Array.from(await client.read(out), (v) => Math.round(v * 255));
    const centre = (f: number) => [...faces[f].subarray(16, 20)]; // texel (1, 1)
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5].flatMap(centre));
    // The 6 layers of a 12-layer texture bind as a cube too: the second cube of the array.
    using twelve = client.createTexture({
      width: side,
      height: side,
      depthOrArrayLayers: 12,
      format: "rgba8unorm",
    });
    const second = twelve.view({ baseArrayLayer: 6, arrayLayerCount: 6 });
    client.write(second, new Uint8Array(faces.flatMap((f) => [...f])));
    using out2 = client.zeros(6 * 4, "f32");
    client.execute({
      source: `@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> dirs: array<vec4f, 6>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4f, 6>;
@compute @workgroup_size(6) fn main(@builtin(local_invocation_index) i: u32) {
  out[i] = textureSampleLevel(cube, s, dirs[i].xyz, 0.0);
}`,
    }, { threads: 6, buffers: [second, directions, out2], samplers: [{}] });
    const got2 = Array.from(await client.read(out2), (v) => Math.round(v * 255));
    assert.deepEqual(got2, [0, 1, 2, 3, 4, 5].flatMap(centre));
  },
});

const copyLayerWgsl = `@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(dst);
  if (g.x >= size.x || g.y >= size.y) { return; }
  textureStore(dst, vec2i(g.xy), vec4f(textureLoad(src, vec2i(g.xy), 0).x * 2.0, 0.0, 0.0, 1.0));
}`;

Deno.test({
  name: "layers: one dispatch samples layer 0 and stores layer 1 of one texture",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h] = [5, 3];
    const start = Float32Array.from({ length: w * h * 3 }, (_, i) => i - 7.5);
    using image = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: 3,
      format: "r32float",
      data: start,
    });
    const layer = (z: number) => image.view({ baseArrayLayer: z, arrayLayerCount: 1 });
    client.execute({ source: copyLayerWgsl }, { threads: [w, h], buffers: [layer(0), layer(1)] });
    const expected = start.slice();
    for (let i = 0; i < w * h; i++) expected[w * h + i] = start[i] * 2;
    assert.deepEqual(await client.read(image), expected);
    // The same layer sampled and stored, or a range that holds it, is refused at the call.
    for (const src of [layer(1), image.view({ baseArrayLayer: 0, arrayLayerCount: 2 })]) {
      const source = src.arrayLayerCount === 1
        ? copyLayerWgsl
        : copyLayerWgsl.replace("texture_2d<f32>", "texture_2d_array<f32>")
          .replace("textureLoad(src, vec2i(g.xy), 0)", "textureLoad(src, vec2i(g.xy), 0, 0)");
      assert.throws(
        () => client.execute({ source }, { threads: [w, h], buffers: [src, layer(1)] }),
        (e) =>
          e instanceof KernelArgumentError && e.message.includes("buffers[1]") &&
          e.message.includes("already bound as buffers[0]"),
      );
    }
    // The runtime stays usable, the texture unchanged by the refused launches.
    assert.deepEqual(await client.read(image), expected);
  },
});

Deno.test({
  name: "layers: a depth32float layer binds as texture_depth_2d and reads its layer",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h] = [4, 2];
    using depth = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: 3,
      format: "depth32float",
    });
    const layers = [0, 1, 2].map((z) =>
      Float32Array.from({ length: w * h }, (_, i) => (z * 8 + i + 1) / 32)
    );
    layers.forEach((data, z) =>
      client.write(depth.view({ baseArrayLayer: z, arrayLayerCount: 1 }), data)
    );
    for (let z = 0; z < 3; z++) {
      const view = depth.view({ baseArrayLayer: z, arrayLayerCount: 1 });
      assert.deepEqual(await client.read(view), layers[z], `layer ${z}`);
    }
    using out = client.zeros(w * h, "f32");
    client.execute({
      source: `@group(0) @binding(0) var d: texture_depth_2d;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
  out[i] = textureLoad(d, vec2i(i32(i % 4u), i32(i / 4u)), 0);
}`,
    }, {
      threads: w * h,
      buffers: [depth.view({ baseArrayLayer: 2, arrayLayerCount: 1 }), out],
    });
    assert.deepEqual(await client.read(out), layers[2]);
  },
});

Deno.test({
  name: "layers: out-of-range layers, layers of a 3-D texture and wrong lengths are typed errors",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 4,
      height: 2,
      depthOrArrayLayers: 3,
      format: "r32float",
    });
    throwsWith(() => image.view({ baseArrayLayer: 3 }), RangeError, "baseArrayLayer", "0 to 2");
    throwsWith(() => image.view({ baseArrayLayer: -1 }), RangeError, "baseArrayLayer");
    throwsWith(() => image.view({ baseArrayLayer: 0.5 }), RangeError, "baseArrayLayer");
    throwsWith(
      () => image.view({ baseArrayLayer: 1, arrayLayerCount: 3 }),
      RangeError,
      "arrayLayerCount",
      "1 to 2",
    );
    throwsWith(() => image.view({ arrayLayerCount: 0 }), RangeError, "arrayLayerCount");
    // A misspelt option is refused, not ignored (it would bind every layer).
    throwsWith(() => image.view({ layer: 2 } as never), TypeError, "no option 'layer'");
    using volume = client.createTexture({
      width: 2,
      height: 2,
      depthOrArrayLayers: 2,
      dimension: "3d",
      format: "r32float",
    });
    throwsWith(() => volume.view({ baseArrayLayer: 0 }), TypeError, "baseArrayLayer", "3-D");
    throwsWith(() => volume.view({ arrayLayerCount: 1 }), TypeError, "arrayLayerCount", "3-D");
    throwsWith(
      () =>
        client.write(image.view({ baseArrayLayer: 1, arrayLayerCount: 1 }), new Float32Array(24)),
      RangeError,
      "Layer 1",
      "takes 8 elements, got 24",
    );
    throwsWith(
      () => client.write(image.view({ baseArrayLayer: 1 }), new Float32Array(8)),
      RangeError,
      "Layers 1 to 2",
      "takes 16 elements",
    );
    // Two layers where texture_2d declares one: refused at the call, naming the view's layers.
    using out = client.zeros(8, "f32");
    assert.throws(
      () =>
        client.execute({
          source: `@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
  out[i] = textureLoad(t, vec2i(i32(i % 4u), i32(i / 4u)), 0).x;
}`,
        }, { threads: 8, buffers: [image.view({ baseArrayLayer: 1 }), out] }),
      (e) =>
        e instanceof KernelArgumentError && e.message.includes("layers 1 to 2 of mip level 0") &&
        e.message.includes("a 2-D texture of one layer"),
    );
    // The server checks the layers of the ref it is given too (the backend contract).
    const server = client.server as unknown as {
      readTexture(ref: unknown, stream: number): Promise<Uint8Array>;
      writeTexture(ref: unknown, data: Uint8Array, stream: number): void;
    };
    const { TextureViewRef } = await import("../runtime/core/handles/texture_view_ref.ts");
    const base = image.ref();
    const past = new TextureViewRef(base.slice, { ...base, dtype: undefined } as never, 0, 2, 2);
    await assert.rejects(() => server.readTexture(past, 0), RangeError);
    assert.throws(() => server.writeTexture(past, new Uint8Array(64), 0), RangeError);
    assert.deepEqual(await client.read(image), new Float32Array(24), "nothing was written");
    // ...and of the ref a launch binds.
    assert.throws(
      () =>
        client.execute({
          source: `@group(0) @binding(0) var t: texture_2d_array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = textureLoad(t, vec2i(0), 0, 0).x; }`,
        }, { threads: 1, buffers: [past, out] }),
      (e) =>
        e instanceof KernelArgumentError && e.message.includes("buffers[0]") &&
        e.message.includes("layers 2 to 3") && e.message.includes("has 3 array layers"),
    );
  },
});

Deno.test({
  name: "layers: a launch on layer views waits for a held write of another stream to one of them",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 4,
      height: 2,
      depthOrArrayLayers: 2,
      format: "r32float",
    });
    const layer = (z: number) => image.view({ baseArrayLayer: z, arrayLayerCount: 1 });
    const produced = new CpuTimelineSignal();
    client.waitFor(produced, 1, { stream: 1 });
    client.write(layer(0), new Float32Array(8).fill(4), { stream: 1 });
    // Stream 2 samples layer 0 and stores layer 1: ordered after stream 1's write to layer 0.
    client.execute({ source: copyLayerWgsl }, {
      threads: [4, 2],
      buffers: [layer(0), layer(1)],
      stream: 2,
    });
    const read = client.read(layer(1), { stream: 2 });
    produced.set(1);
    assert.deepEqual(await read, new Float32Array(8).fill(8));
    assert.deepEqual(
      await client.read(image),
      Float32Array.from([...new Array(8).fill(4), ...new Array(8).fill(8)]),
    );
  },
});
