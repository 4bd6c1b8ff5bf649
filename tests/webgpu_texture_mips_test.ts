/**
 * Mip levels: `createTexture({ mipLevelCount })`, `texture.view({ mipLevel })` written, read and
 * bound (a storage binding stores into one level while a sampled view of the level above is
 * read in the same dispatch), mip-chain generation and a Hi-Z max pyramid run level by level and
 * compared with the CPU, `textureSampleLevel` / `textureNumLevels` / `textureDimensions(t, l)`
 * over every level, ordering across streams, and the typed errors.
 */
import assert from "node:assert/strict";
import { bytes, ignore, throwsWith } from "./_texture_test_helpers.ts";
import { CpuTimelineSignal, createClient, KernelArgumentError } from "../mod.ts";
import { WebGpuTextures } from "../runtime/server/webgpu/memory/textures.ts";

Deno.test({
  name: "mips: every level of a 13x7 rgba8unorm, a 2-D array, a 3-D and depth textures round-trips",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 13,
      height: 7,
      format: "rgba8unorm",
      mipLevelCount: 4,
    });
    assert.equal(image.mipLevelCount, 4);
    const sizes = [[13, 7], [6, 3], [3, 1], [1, 1]]; // max(1, side >> level)
    for (const [level, [w, h]] of sizes.entries()) {
      const view = image.view({ mipLevel: level });
      assert.deepEqual([view.width, view.height, view.depthOrArrayLayers], [w, h, 1]);
      assert.equal(image.view({ mipLevel: level }), view, "one view per level");
      client.write(view, bytes(w * h * 4, level));
    }
    for (const [level, [w, h]] of sizes.entries()) {
      assert.deepEqual(await client.read(image.view({ mipLevel: level })), bytes(w * h * 4, level));
    }
    assert.deepEqual(await client.read(image), bytes(13 * 7 * 4, 0), "the texture is level 0");

    // Layers do not shrink: 5x3 with 3 layers, then 2x1 and 1x1, each with 3 layers.
    using layers = client.createTexture({
      width: 5,
      height: 3,
      depthOrArrayLayers: 3,
      format: "r32float",
      mipLevelCount: 3,
    });
    const layered = [[5, 3], [2, 1], [1, 1]].map(([w, h], level) =>
      Float32Array.from({ length: w * h * 3 }, (_, i) => level * 100 + i + 0.5)
    );
    layered.forEach((data, level) => client.write(layers.view({ mipLevel: level }), data));
    for (const [level, data] of layered.entries()) {
      const view = layers.view({ mipLevel: level });
      assert.equal(view.depthOrArrayLayers, 3);
      assert.deepEqual(await client.read(view), data);
    }

    // A 3-D texture's depth shrinks: 4x2x8, 2x1x4, 1x1x2, 1x1x1.
    using volume = client.createTexture({
      width: 4,
      height: 2,
      depthOrArrayLayers: 8,
      dimension: "3d",
      format: "r32float",
      mipLevelCount: 4,
    });
    const volumes = [[4, 2, 8], [2, 1, 4], [1, 1, 2], [1, 1, 1]];
    for (const [level, [w, h, d]] of volumes.entries()) {
      const view = volume.view({ mipLevel: level });
      assert.deepEqual([view.width, view.height, view.depthOrArrayLayers], [w, h, d]);
      const data = Float32Array.from({ length: w * h * d }, (_, i) => -level - i);
      client.write(view, data);
      assert.deepEqual(await client.read(view), data);
    }

    // Depth levels: depth32float is filled by a render pass into the level, depth16unorm copied.
    for (const format of ["depth32float", "depth16unorm"] as const) {
      using depth = client.createTexture({ width: 6, height: 5, format, mipLevelCount: 3 });
      for (const [level, [w, h]] of [[6, 5], [3, 2], [1, 1]].entries()) {
        const view = depth.view({ mipLevel: level });
        const data = format === "depth32float"
          ? Float32Array.from({ length: w * h }, (_, i) => (i + 1) / (64 * (level + 1)))
          : Uint16Array.from({ length: w * h }, (_, i) => i * 1000 + level);
        client.write(view, data);
        assert.deepEqual(await client.read(view), data, `${format} level ${level}`);
      }
    }
  },
});

/** One 2x2 reduction step: level `l` of `w`x`h` from the level above (`src` of `sw`x`sh`). */
function reduceCpu(
  src: Float32Array,
  sw: number,
  sh: number,
  op: (a: number, b: number, c: number, d: number) => number,
): Float32Array {
  const [w, h] = [Math.max(1, sw >> 1), Math.max(1, sh >> 1)];
  const at = (x: number, y: number) => src[Math.min(y, sh - 1) * sw + Math.min(x, sw - 1)];
  return Float32Array.from({ length: w * h }, (_, i) => {
    const [x, y] = [(i % w) * 2, Math.floor(i / w) * 2];
    return op(at(x, y), at(x + 1, y), at(x, y + 1), at(x + 1, y + 1));
  });
}

/** A kernel reducing the sampled view `src` (one level) 2x2 into the storage view `dst`. */
const reduceWgsl = (op: string) =>
  `@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(dst);
  if (g.x >= size.x || g.y >= size.y) { return; }
  let last = vec2i(textureDimensions(src)) - 1;
  let p = vec2i(g.xy) * 2;
  let a = textureLoad(src, min(p, last), 0).x;
  let b = textureLoad(src, min(p + vec2i(1, 0), last), 0).x;
  let c = textureLoad(src, min(p + vec2i(0, 1), last), 0).x;
  let d = textureLoad(src, min(p + vec2i(1, 1), last), 0).x;
  textureStore(dst, vec2i(g.xy), vec4f(${op}, 0.0, 0.0, 1.0));
}`;

type Op = (a: number, b: number, c: number, d: number) => number;
for (
  const [what, op, cpu] of [
    ["a box-filtered mip chain", "(a + b + c + d) * 0.25", (a, b, c, d) => (a + b + c + d) / 4],
    ["a Hi-Z max pyramid", "max(max(a, b), max(c, d))", (a, b, c, d) => Math.max(a, b, c, d)],
  ] as [string, string, Op][]
) {
  Deno.test({
    name: `mips: ${what} of a 20x12 r32float, level by level in one texture, is the CPU's`,
    ignore,
    async fn() {
      using client = await createClient();
      const [w, h, levels] = [20, 12, 5]; // 20x12, 10x6, 5x3, 2x1, 1x1
      // Integers below 2^20: every sum and quarter is exact in f32.
      const base = Float32Array.from({ length: w * h }, (_, i) => (i * 37) % 1001);
      using image = client.createTexture({
        width: w,
        height: h,
        format: "r32float",
        mipLevelCount: levels,
        data: base,
      });
      const expected: Float32Array[] = [base];
      for (let l = 1; l < levels; l++) {
        const src = image.view({ mipLevel: l - 1 }), dst = image.view({ mipLevel: l });
        client.execute({ source: reduceWgsl(op) }, {
          threads: [dst.width, dst.height],
          buffers: [src, dst], // two levels of one texture in one dispatch
        });
        expected.push(reduceCpu(expected[l - 1], src.width, src.height, cpu));
      }
      for (let l = 0; l < levels; l++) {
        assert.deepEqual(await client.read(image.view({ mipLevel: l })), expected[l], `level ${l}`);
      }
      assert.equal(expected[levels - 1].length, 1);
    },
  });
}

Deno.test({
  name: "mips: textureSampleLevel at lod 1 and 2, textureNumLevels and textureDimensions(t, l)",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 8,
      height: 8,
      format: "rgba8unorm",
      mipLevelCount: 4,
    });
    for (let l = 0; l < 4; l++) {
      const view = image.view({ mipLevel: l });
      client.write(view, bytes(view.width * view.height * 4, l + 1));
    }
    const sample = (texture: unknown, lod: number) => {
      using out = client.zeros(4 * 16 + 8, "f32");
      client.execute({
        source: `@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(16) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(t, ${lod});
  if (g.x < size.x * size.y) {
    let uv = (vec2f(f32(g.x % size.x), f32(g.x / size.x)) + 0.5) / vec2f(size);
    let v = textureSampleLevel(t, s, uv, ${lod}.0);
    for (var c = 0u; c < 4u; c++) { out[g.x * 4u + c] = round(v[c] * 255.0); }
  }
  if (g.x == 0u) {
    out[64] = f32(textureNumLevels(t));
    out[65] = f32(size.x);
    out[66] = f32(size.y);
  }
}`,
      }, { threads: 16, buffers: [texture as never, out], samplers: [{}] });
      return client.read(out);
    };
    for (const lod of [1, 2]) {
      const side = 8 >> lod;
      const got = await sample(image, lod);
      const texels = Array.from(bytes(side * side * 4, lod + 1));
      assert.deepEqual(Array.from(got.subarray(0, side * side * 4)), texels, `lod ${lod}`);
      assert.deepEqual(Array.from(got.subarray(64, 67)), [4, side, side]);
    }
    // A sampled view of level 2 alone: one level of 2x2, whatever lod asks.
    const got = await sample(image.view({ mipLevel: 2 }), 0);
    assert.deepEqual(Array.from(got.subarray(0, 16)), Array.from(bytes(16, 3)));
    assert.deepEqual(Array.from(got.subarray(64, 67)), [1, 2, 2]);
  },
});

Deno.test({
  name: "mips: a cube of 3 levels samples each face's level 1 at lod 1",
  ignore,
  async fn() {
    using client = await createClient();
    using cube = client.createTexture({
      width: 4,
      height: 4,
      depthOrArrayLayers: 6,
      format: "rgba8unorm",
      mipLevelCount: 3,
    });
    // Level 0 all zeros; level 1 one color per face (2x2 texels each); level 2 all 255.
    client.write(cube, new Uint8Array(4 * 4 * 6 * 4));
    const face = (f: number) => [f * 40 + 10, 200 - f * 30, f, 255];
    const level1 = Uint8Array.from({ length: 2 * 2 * 6 * 4 }, (_, i) => face(i >> 4)[i % 4]);
    client.write(cube.view({ mipLevel: 1 }), level1);
    client.write(cube.view({ mipLevel: 2 }), new Uint8Array(6 * 4).fill(255));
    using out = client.zeros(6 * 4 + 1, "f32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(6) fn main(@builtin(local_invocation_index) i: u32) {
  var dirs = array(vec3f(1, 0, 0), vec3f(-1, 0, 0), vec3f(0, 1, 0), vec3f(0, -1, 0),
    vec3f(0, 0, 1), vec3f(0, 0, -1));
  let v = textureSampleLevel(t, s, dirs[i], 1.0);
  for (var c = 0u; c < 4u; c++) { out[i * 4u + c] = round(v[c] * 255.0); }
  if (i == 0u) { out[24] = f32(textureNumLevels(t)); }
}`,
    }, { threads: 6, buffers: [cube, out], samplers: [{}] });
    const expected = [0, 1, 2, 3, 4, 5].flatMap(face);
    assert.deepEqual(Array.from(await client.read(out)), [...expected, 3]);
  },
});

Deno.test({
  name: "mips: a launch storing level 1 on stream 1 runs before one sampling it on stream 2",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 4,
      height: 4,
      format: "r32float",
      mipLevelCount: 2,
      data: new Float32Array(16).fill(8),
    });
    const [top, level1] = [image.view({ mipLevel: 0 }), image.view({ mipLevel: 1 })];
    client.write(level1, new Float32Array(4).fill(-1), { stream: 2 });
    client.execute({ source: reduceWgsl("a + b + c + d") }, {
      threads: [2, 2],
      buffers: [top, level1],
      stream: 1,
    });
    using out = client.zeros(4, "f32");
    client.execute({
      source: `@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  out[g.x] = textureLoad(t, vec2i(i32(g.x % 2u), i32(g.x / 2u)), 1).x;
}`,
    }, { threads: 4, buffers: [image, out], stream: 2 });
    assert.deepEqual(await client.read(out, { stream: 2 }), new Float32Array(4).fill(32));
  },
});

Deno.test({
  name: "mips: typed errors for levels, views, lengths and a storage binding of many levels",
  ignore,
  async fn() {
    using client = await createClient();
    const make = (extra: object) =>
      client.createTexture({ width: 13, height: 7, format: "r32float", ...extra });
    throwsWith(() => make({ mipLevelCount: 5 }), RangeError, "mipLevelCount", "1 to 4", "5");
    throwsWith(() => make({ mipLevelCount: 0 }), RangeError, "mipLevelCount");
    throwsWith(
      () =>
        client.createTexture({
          width: 8,
          height: 1,
          dimension: "1d",
          format: "r32float",
          mipLevelCount: 2,
        }),
      RangeError,
      "mipLevelCount must be an integer from 1 to 1 (WebGPU's 1-D textures have one level",
    );
    // A 3-D texture's depth counts: 2x2x16 takes 5 levels.
    make({ width: 2, height: 2, depthOrArrayLayers: 16, dimension: "3d", mipLevelCount: 5 })
      .dispose();
    throwsWith(() => make({ mipLevelCount: 1.5 }), RangeError, "mipLevelCount");
    throwsWith(
      () =>
        client.createTexture({
          width: 8,
          height: 8,
          depthOrArrayLayers: 20, // layers do not count: 8 -> 4 levels
          format: "r32float",
          mipLevelCount: 5,
        }),
      RangeError,
      "mipLevelCount",
      "1 to 4",
    );
    throwsWith(
      () =>
        client.createTexture({
          width: 8,
          height: 8,
          format: "rgba8unorm",
          sampleCount: 4,
          mipLevelCount: 2,
        }),
      RangeError,
      "mipLevelCount must be 1 for a multisampled texture",
    );
    using image = make({ mipLevelCount: 4 });
    throwsWith(() => image.view({ mipLevel: 4 }), RangeError, "mipLevel", "0 to 3", "4");
    throwsWith(() => image.view({ mipLevel: -1 }), RangeError, "mipLevel");
    throwsWith(() => image.view(undefined as never), TypeError, "mipLevel");
    throwsWith(
      () => client.write(image.view({ mipLevel: 1 }), new Float32Array(13 * 7)),
      RangeError,
      "Mip level 1 (2-D 6x3)",
      "takes 18 elements, got 91",
    );
    throwsWith(() => client.write(image, new Float32Array(18)), RangeError, "takes 91");
    // The server checks the level of the ref it is given too (the backend contract).
    const server = client.server as unknown as {
      readTexture(ref: unknown, stream: number): Promise<Uint8Array>;
      writeTexture(ref: unknown, data: Uint8Array, stream: number): void;
    };
    const { TextureViewRef } = await import("../runtime/core/handles/texture_view_ref.ts");
    const base = image.ref();
    const past = new TextureViewRef(base.slice, { ...base, dtype: undefined } as never, 7);
    await assert.rejects(() => server.readTexture(past, 0), RangeError);
    throwsWith(
      () => server.writeTexture(past, new Uint8Array(4), 0),
      RangeError,
      "mipLevel",
      "0 to 3",
    );

    const store = `@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(1) fn main() { textureStore(dst, vec2i(0), textureLoad(src, vec2i(0), 0)); }`;
    throwsWith(
      () =>
        client.execute({ source: store }, {
          threads: 1,
          buffers: [image.view({ mipLevel: 0 }), image],
        }),
      KernelArgumentError,
      "buffers[1]",
      "4 mip levels",
      "texture.view({ mipLevel: n })",
    );
    // Every level sampled while level 1 is stored: one subresource two ways, which WebGPU refuses.
    throwsWith(
      () =>
        client.execute({ source: store }, {
          threads: 1,
          buffers: [image, image.view({ mipLevel: 1 })],
        }),
      KernelArgumentError,
      "buffers[1]",
      "other mip levels",
    );
    // A refusal of a view names its level: r32float where the WGSL stores rgba8unorm.
    throwsWith(
      () =>
        client.execute({
          source: `@group(0) @binding(0) var dst: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1) fn main() { textureStore(dst, vec2i(0), vec4f(1.0)); }`,
        }, { threads: 1, buffers: [image.view({ mipLevel: 2 })] }),
      KernelArgumentError,
      "buffers[0]",
      "is mip level 2 of a r32float 2-D 13x7 texture",
      "needs the format rgba8unorm",
    );
    // The same level sampled and stored: refused too.
    const one = image.view({ mipLevel: 2 });
    throwsWith(
      () => client.execute({ source: store }, { threads: 1, buffers: [one, one] }),
      KernelArgumentError,
      "buffers[1]",
    );
    // The runtime stays usable, and the views of a level are made once (bind groups are reused).
    const entry = WebGpuTextures.entry(image.ref())!;
    assert.equal(entry.view("2d", 1), entry.view("2d", 1));
    assert.notEqual(entry.view("2d", 1), entry.view("2d", 2));
    assert.notEqual(entry.view("2d", 1), entry.view("2d"));
    client.execute({ source: store }, {
      threads: 1,
      buffers: [image.view({ mipLevel: 2 }), image.view({ mipLevel: 3 })],
    });
    image.dispose();
    throwsWith(() => image.view({ mipLevel: 1 }), Error, "after dispose");
    throwsWith(() => client.write(one, new Float32Array(3)), Error, "after dispose");
  },
});

Deno.test({
  name: "mips: a captured mip chain replays after each new level 0; a held stream binds views",
  ignore,
  async fn() {
    using client = await createClient();
    using image = client.createTexture({
      width: 8,
      height: 4,
      format: "r32float",
      mipLevelCount: 4, // 8x4, 4x2, 2x1, 1x1
    });
    const chain = () => {
      for (let l = 1; l < 4; l++) {
        const src = image.view({ mipLevel: l - 1 }), dst = image.view({ mipLevel: l });
        client.execute({ source: reduceWgsl("max(max(a, b), max(c, d))") }, {
          threads: [dst.width, dst.height],
          buffers: { src, dst },
        });
      }
    };
    using graph = await client.capture(chain);
    for (const peak of [5, 77, 3]) {
      const base = new Float32Array(32).fill(1);
      base[(peak * 7) % 32] = peak;
      client.write(image, base);
      graph.replay();
      assert.deepEqual(await client.read(image.view({ mipLevel: 3 })), new Float32Array([peak]));
      assert.deepEqual(
        await client.read(image.view({ mipLevel: 2 })),
        reduceCpu(reduceCpu(base, 8, 4, Math.max), 4, 2, Math.max),
      );
    }
    // A held stream: the launch with views waits, and runs in order once released.
    const produced = new CpuTimelineSignal();
    client.waitFor(produced, 1, { stream: 1 });
    client.write(image, new Float32Array(32).fill(9), { stream: 1 });
    client.execute({ source: reduceWgsl("a + b + c + d") }, {
      threads: [4, 2],
      buffers: [image.view({ mipLevel: 0 }), image.view({ mipLevel: 1 })],
      stream: 1,
    });
    const read = client.read(image.view({ mipLevel: 1 }), { stream: 1 });
    produced.set(1);
    assert.deepEqual(await read, new Float32Array(8).fill(36));
  },
});
