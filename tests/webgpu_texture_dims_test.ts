/**
 * Textures beyond one 2-D image: 1-D, 2-D arrays, cubes, cube arrays and 3-D textures made by
 * `client.createTexture({ depthOrArrayLayers, dimension })`, read by real WebGPU compute kernels
 * (`textureLoad`, `textureSampleLevel`) and written by storage-texture kernels, compared with the
 * CPU; write/read round trips whose rows need padding; the typed errors at the call; and Tint's
 * end-to-end modules on such textures bit-identical to plain WebGPU.
 */
import assert from "node:assert/strict";
import { ignore, throwsWith } from "./_texture_test_helpers.ts";
import { CpuTimelineSignal, createClient, KernelArgumentError } from "../mod.ts";
import { CORPUS_TEXTURE_DIMS } from "./_wgsl_corpus_texture_dims.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { type TextureEntry, WebGpuTextures } from "../runtime/server/webgpu/memory/textures.ts";
import { copyBlocks } from "../runtime/server/webgpu/memory/_texture_copies.ts";

const adapter = await navigator.gpu?.requestAdapter();

/** `n` distinct bytes. */
const bytes = (n: number, salt = 0) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 7 + salt) % 251);

Deno.test({
  name: "texture_3d: textureLoad(t, vec3i, 0) reads every slice where the CPU put it",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, d] = [3, 4, 5]; // rows of 12 bytes: padded to 256 in the staging copy
    const data = Float32Array.from({ length: w * h * d }, (_, i) => i * 1.5 - 7);
    using volume = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: d,
      dimension: "3d",
      format: "r32float",
      data,
    });
    assert.equal(volume.dimension, "3d");
    assert.equal(volume.depthOrArrayLayers, d);
    using out = client.zeros(w * h * d + 3, "f32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_3d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(t);
  let n = size.x * size.y * size.z;
  if (g.x < n) {
    let p = vec3i(i32(g.x % size.x), i32((g.x / size.x) % size.y), i32(g.x / (size.x * size.y)));
    out[g.x] = textureLoad(t, p, 0).x;
  } else if (g.x < n + 3u) {
    out[g.x] = f32(size[g.x - n]);
  }
}`,
    }, { threads: 64, buffers: [volume, out] });
    const got = await client.read(out);
    assert.deepEqual([...got.subarray(0, w * h * d)], [...data]);
    assert.deepEqual([...got.subarray(w * h * d)], [w, h, d]);
  },
});

Deno.test({
  name: "texture_2d_array: textureLoad(t, xy, layer, 0) reads each layer; texture_1d reads a row",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, layers] = [5, 3, 4];
    const data = Uint32Array.from({ length: w * h * layers }, (_, i) => i * 2654435761 >>> 8);
    using layered = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: layers,
      format: "r32uint",
      data,
    });
    using out = client.zeros(w * h * layers + 1, "u32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_2d_array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(t);
  let n = size.x * size.y * textureNumLayers(t);
  if (g.x < n) {
    let xy = vec2i(i32(g.x % size.x), i32((g.x / size.x) % size.y));
    out[g.x] = textureLoad(t, xy, i32(g.x / (size.x * size.y)), 0).x;
  } else if (g.x == n) {
    out[g.x] = textureNumLayers(t);
  }
}`,
    }, { threads: 64, buffers: [layered, out] });
    assert.deepEqual([...await client.read(out)], [...data, layers]);

    const texels = bytes(7 * 4, 3);
    using line = client.createTexture({
      width: 7,
      height: 1,
      dimension: "1d",
      format: "rgba8uint",
    });
    client.write(line, texels);
    using row = client.zeros(7 * 4, "u32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_1d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4u>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < textureDimensions(t)) { out[g.x] = textureLoad(t, i32(g.x), 0); }
}`,
    }, { threads: 8, buffers: [line, row] });
    assert.deepEqual([...await client.read(row)], [...texels]);
  },
});

/** The unorm bytes a sampled vec4f stands for. */
const unorm = (values: Float32Array) => [...values].map((v) => Math.round(v * 255));

Deno.test({
  name: "textureSampleLevel with a nearest sampler picks the CPU's texel of a texture_3d",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, d] = [4, 3, 2];
    const texels = bytes(w * h * d * 4, 11);
    using volume = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: d,
      dimension: "3d",
      format: "rgba8unorm",
      data: texels,
    });
    // Every texel's centre, in texel order.
    const centres = Float32Array.from({ length: w * h * d * 4 }, (_, i) => {
      const t = i >> 2, c = i & 3;
      const at = [t % w, Math.floor(t / w) % h, Math.floor(t / (w * h))];
      return c === 3 ? 0 : (at[c] + 0.5) / [w, h, d][c];
    });
    using uvw = client.createWithData(centres);
    using out = client.zeros(w * h * d * 4, "f32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_3d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> uvw: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4f>;
@compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&out)) { out[g.x] = textureSampleLevel(t, s, uvw[g.x].xyz, 0.0); }
}`,
    }, { threads: w * h * d, buffers: [volume, uvw, out], samplers: [{}] });
    assert.deepEqual(unorm(await client.read(out)), [...texels]);
  },
});

/** The face-centre directions of a cube, in WebGPU's layer order (+X, -X, +Y, -Y, +Z, -Z). */
const FACES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

Deno.test({
  name: "texture_cube and texture_cube_array: each face centre samples its layer's middle texel",
  ignore,
  async fn() {
    using client = await createClient();
    const side = 3; // the middle texel (1, 1) of a 3x3 face is its centre, unambiguous
    const texels = bytes(side * side * 12 * 4, 5);
    using cubes = client.createTexture({
      width: side,
      height: side,
      depthOrArrayLayers: 12,
      format: "rgba8unorm",
      data: texels,
    });
    const dirs = new Float32Array(FACES.flatMap((f) => [...f, 0]));
    using directions = client.createWithData(dirs);
    using out = client.zeros(6 * 4 * 3, "f32");
    const middle = (layer: number) => {
      const at = ((layer * side + 1) * side + 1) * 4;
      return [...texels.subarray(at, at + 4)];
    };
    // The first cube's view (a texture of 6 layers) and the cube array's (12 layers: 2 cubes).
    using six = client.createTexture({
      width: side,
      height: side,
      depthOrArrayLayers: 6,
      format: "rgba8unorm",
      data: texels.subarray(0, side * side * 6 * 4),
    });
    client.execute({
      source: `@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var cubes: texture_cube_array<f32>;
@group(0) @binding(2) var s: sampler;
@group(0) @binding(3) var<storage, read> dirs: array<vec4f, 6>;
@group(0) @binding(4) var<storage, read_write> out: array<vec4f, 18>;
@compute @workgroup_size(6) fn main(@builtin(local_invocation_index) i: u32) {
  out[i] = textureSampleLevel(cube, s, dirs[i].xyz, 0.0);
  out[6u + i] = textureSampleLevel(cubes, s, dirs[i].xyz, 0, 0.0);
  out[12u + i] = textureSampleLevel(cubes, s, dirs[i].xyz, 1, 0.0);
}`,
    }, { threads: 6, buffers: [six, cubes, directions, out], samplers: [{}] });
    const expected = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].flatMap(middle);
    assert.deepEqual(unorm(await client.read(out)), expected);
  },
});

Deno.test({
  name: "texture_storage_3d and texture_storage_2d_array writes read back with client.read",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, d] = [3, 2, 4];
    using volume = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: d,
      dimension: "3d",
      format: "r32float",
    });
    using layers = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: d,
      format: "rgba8uint",
    });
    client.execute({
      source: `@group(0) @binding(0) var v: texture_storage_3d<r32float, write>;
@group(0) @binding(1) var a: texture_storage_2d_array<rgba8uint, write>;
@compute @workgroup_size(4, 4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (any(g >= textureDimensions(v))) { return; }
  let i = (g.z * 2u + g.y) * 3u + g.x;
  textureStore(v, g, vec4f(f32(i) * 0.25 - 1.0, 0.0, 0.0, 1.0));
  textureStore(a, g.xy, g.z, vec4u(i, g.x, g.y, 100u + g.z));
}`,
    }, { threads: [4, 4, 4], buffers: [volume, layers] });
    const n = w * h * d;
    const index = Array.from({ length: n }, (_, i) => i);
    assert.deepEqual([...await client.read(volume)], index.map((i) => i * 0.25 - 1));
    const texel = (i: number) => [i, i % w, Math.floor(i / w) % h, 100 + Math.floor(i / (w * h))];
    assert.deepEqual([...await client.read(layers)], index.flatMap(texel));
  },
});

Deno.test({
  name: "write/read round trips of every layer and slice (rows that need padding)",
  ignore,
  async fn() {
    using client = await createClient();
    for (const dimension of ["3d", "2d"] as const) {
      const floats = Float32Array.from({ length: 3 * 2 * 5 }, (_, i) => i / 3 - 2);
      using f = client.createTexture({
        width: 3,
        height: 2,
        depthOrArrayLayers: 5,
        dimension,
        format: "r32float",
      });
      client.write(f, floats);
      assert.deepEqual(await client.read(f), floats, `r32float ${dimension}`);
      const texels = bytes(3 * 2 * 5 * 4, 1);
      using u = client.createTexture({
        width: 3,
        height: 2,
        depthOrArrayLayers: 5,
        dimension,
        format: "rgba8unorm",
        data: texels,
      });
      assert.deepEqual(await client.read(u), texels, `rgba8unorm ${dimension}`);
    }
    const line = Float32Array.from({ length: 70 }, (_, i) => i * i);
    using l = client.createTexture({ width: 70, height: 1, dimension: "1d", format: "r32float" });
    client.write(l, line);
    assert.deepEqual(await client.read(l), line);
  },
});

Deno.test({
  name: "bad shapes are typed errors at the call, naming the option or the binding",
  ignore,
  async fn() {
    using client = await createClient();
    const limits = adapter!.limits;
    const make = (o: Record<string, unknown>) =>
      client.createTexture({ width: 4, height: 4, format: "r32float", ...o });
    throwsWith(() => make({ dimension: "1d" }), RangeError, "height must be 1");
    throwsWith(
      () => make({ height: 1, dimension: "1d", depthOrArrayLayers: 2 }),
      RangeError,
      "depthOrArrayLayers must be 1",
    );
    throwsWith(() => make({ dimension: "4d" }), TypeError, "dimension");
    throwsWith(() => make({ depthOrArrayLayers: 0 }), RangeError, "depthOrArrayLayers");
    throwsWith(() => make({ depthOrArrayLayers: 1.5 }), RangeError, "depthOrArrayLayers");
    throwsWith(
      () => make({ depthOrArrayLayers: limits.maxTextureArrayLayers + 1 }),
      RangeError,
      "maxTextureArrayLayers",
    );
    throwsWith(
      () => make({ dimension: "3d", width: limits.maxTextureDimension3D + 1 }),
      RangeError,
      "maxTextureDimension3D",
    );
    throwsWith(
      () => make({ dimension: "1d", height: 1, width: limits.maxTextureDimension1D + 1 }),
      RangeError,
      "maxTextureDimension1D",
    );
    using volume = make({ dimension: "3d", depthOrArrayLayers: 2 });
    throwsWith(
      () => client.write(volume, new Float32Array(16)),
      RangeError,
      "A 3-D 4x4x2 r32float texture takes 32 elements, got 16",
    );

    const read = (type: string) => ({
      source: `@group(0) @binding(0) var t: ${type};
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = textureDimensions(t).x; }`,
    });
    using out = client.zeros(1, "u32");
    using flat = make({});
    using layered = make({ depthOrArrayLayers: 6 });
    using oblong = make({ height: 2, depthOrArrayLayers: 6 });
    using seven = make({ depthOrArrayLayers: 7 });
    const refusals: [string, unknown, string][] = [
      [
        "texture_3d<f32>",
        flat,
        `is a r32float 2-D 4x4 texture, but t: texture_3d<f32> needs a 3-D`,
      ],
      ["texture_2d<f32>", volume, "is a r32float 3-D 4x4x2 texture, but t: texture_2d<f32>"],
      ["texture_2d<f32>", layered, "2-D 4x4 with 6 layers texture, but t: texture_2d<f32> needs"],
      ["texture_1d<f32>", flat, "needs a 1-D texture"],
      ["texture_cube<f32>", oblong, "2-D 4x2 with 6 layers texture, but t: texture_cube<f32>"],
      ["texture_cube<f32>", seven, "needs a 2-D texture of 6 square layers"],
      ["texture_cube_array<f32>", seven, "6 per cube"],
      ["texture_2d_array<f32>", volume, "needs a 2-D texture"],
      ["texture_storage_2d<r32float, write>", layered, "needs a 2-D texture of one layer"],
      ["texture_storage_3d<r32float, write>", layered, "needs a 3-D texture"],
    ];
    for (const [type, texture, message] of refusals) {
      assert.throws(
        () => client.execute(read(type), { threads: 1, buffers: [texture as typeof flat, out] }),
        (e) =>
          e instanceof KernelArgumentError && e.message.includes("buffers[0]") &&
          e.message.includes(message),
        type,
      );
    }
    // A depth cube takes a depth texture (depth textures: webgpu_texture_depth_test.ts).
    assert.throws(
      () => client.execute(read("texture_depth_cube"), { threads: 1, buffers: [layered, out] }),
      (e) => e instanceof KernelArgumentError && e.message.includes("reads depth texels"),
    );
    // Still usable: a 2-D array view of one layer is WebGPU's, and binds.
    client.execute(read("texture_2d_array<f32>"), { threads: 1, buffers: [flat, out] });
    assert.deepEqual([...await client.read(out)], [4]);
  },
});

Deno.test({
  name: "a held stream and a captured graph: layered textures checked at the call, run in order",
  ignore,
  async fn() {
    using client = await createClient();
    const produced = new CpuTimelineSignal();
    using layers = client.createTexture({
      width: 2,
      height: 2,
      depthOrArrayLayers: 3,
      format: "r32uint",
    });
    using volume = client.createTexture({
      width: 2,
      height: 2,
      depthOrArrayLayers: 3,
      dimension: "3d",
      format: "r32uint",
    });
    const layered = {
      source: `@group(0) @binding(0) var t: texture_storage_2d_array<r32uint, read_write>;
@compute @workgroup_size(2, 2, 3) fn main(@builtin(global_invocation_id) g: vec3u) {
  textureStore(t, g.xy, g.z, textureLoad(t, g.xy, g.z) + vec4u(g.z + 1u));
}`,
    };
    client.waitFor(produced, 1, { stream: 1 });
    const start = Uint32Array.from({ length: 12 }, (_, i) => i * 10);
    client.write(layers, start, { stream: 1 }); // held until produced reaches 1
    client.execute(layered, { threads: [2, 2, 3], buffers: [layers], stream: 1 }); // held
    // Refused at the call though the stream is held: a 3-D texture for a 2-D array.
    assert.throws(
      () => client.execute(layered, { threads: [2, 2, 3], buffers: [volume], stream: 1 }),
      (e) => e instanceof KernelArgumentError && e.message.includes("3-D 2x2x3"),
    );
    const read = client.read(layers, { stream: 1 });
    produced.set(1);
    const layer = (i: number) => Math.floor(i / 4) + 1; // what one launch adds to texel i
    const once = [...start].map((v, i) => v + layer(i));
    assert.deepEqual([...await read], once);
    using graph = await client.capture(() => {
      client.execute(layered, { threads: [2, 2, 3], buffers: [layers] });
    });
    graph.replay();
    graph.replay();
    assert.deepEqual([...await client.read(layers)], once.map((v, i) => v + 2 * layer(i)));
  },
});

Deno.test({
  name: "a texture past the staging buffer limit is written and read in blocks of layers or rows",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    try {
      const run = (encode: (encoder: GPUCommandEncoder) => void) => {
        const encoder = device.createCommandEncoder();
        encode(encoder);
        device.queue.submit([encoder.finish()]);
      };
      const shapes = [
        // Images of 1,024 bytes staged (rows padded to 256), at most 2 a block: 3 blocks.
        { shape: { width: 3, height: 4, depthOrArrayLayers: 5, dimension: "3d" }, max: 2048 },
        // Images of 2,560 bytes, past 1,100: blocks of 2 rows of 512 bytes, 6 in all.
        { shape: { width: 70, height: 5, depthOrArrayLayers: 2, dimension: "2d" }, max: 1100 },
      ] as const;
      for (const [k, { shape, max }] of shapes.entries()) {
        const format = k === 0 ? "r32float" : "rgba8unorm";
        const blocks = copyBlocks(shape, k === 0 ? 256 : 512, max);
        assert.equal(blocks.length, k === 0 ? 3 : 6);
        const small = new WebGpuTextures(device, max);
        const whole = new WebGpuTextures(device);
        const n = shape.width * shape.height * shape.depthOrArrayLayers * 4;
        const texels = bytes(n, k);
        using handle = small.create({ ...shape, format });
        const entry = handle.record.tag as TextureEntry;
        // Written in blocks, read whole; then written whole, read in blocks.
        const write = small.write(entry, texels);
        run(write.encode!);
        write.done!();
        const read = whole.read(entry);
        run(read.task.encode!);
        assert.deepEqual(await read.result(), texels, `${format}: blocks written`);
        const again = bytes(n, k + 5);
        const rewrite = whole.write(entry, again);
        run(rewrite.encode!);
        rewrite.done!();
        const reread = small.read(entry);
        run(reread.task.encode!);
        assert.deepEqual(await reread.result(), again, `${format}: blocks read`);
      }
    } finally {
      device.destroy();
    }
  },
});

Deno.test({
  name:
    "Tint's modules on 2-D array, cube array, 3-D and 3-D storage textures run like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_TEXTURE_DIMS) await t.step(c.name, () => runCorpusCase(client, c));
  },
});
