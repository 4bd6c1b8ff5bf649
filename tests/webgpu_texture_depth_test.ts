/**
 * Depth and multisampled textures, comparison samplers and bgra8unorm storage textures:
 * `client.createTexture({ format: "depth32float" | "depth16unorm" })` and `sampleCount: 4`,
 * filled and read back exactly (a render pass fills what WebGPU copies nothing into, a compute
 * pass reads the samples of a multisampled texture), read by real WebGPU compute kernels
 * (`textureLoad`, `textureSampleCompareLevel`, `textureGatherCompare`, a resolve of samples)
 * compared with the CPU; the typed errors; and Tint's end-to-end modules on such textures
 * bit-identical to plain WebGPU.
 */
import assert from "node:assert/strict";
import { ignore, throwsWith } from "./_texture_test_helpers.ts";
import { createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import { CORPUS_TEXTURE_DEPTH } from "./_wgsl_corpus_texture_depth.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";
import { type TextureEntry, WebGpuTextures } from "../runtime/server/webgpu/memory/textures.ts";

const adapter = await navigator.gpu?.requestAdapter();

/** `n` depths in [0, 1], none on a round number, with 0 and 1 themselves. */
const depths = (n: number) =>
  Float32Array.from({ length: n }, (_, i) => i === 0 ? 0 : i === 1 ? 1 : ((i * 0.6180339) % 1));

Deno.test({
  name: "depth32float (several layers) round-trips exactly; depth16unorm keeps its 16-bit values",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, layers] = [5, 3, 4];
    const data = depths(w * h * layers);
    using depth = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: layers,
      format: "depth32float",
      data,
    });
    assert.deepEqual(await client.read(depth), data);
    // Written again: every layer replaced (the render pass clears and writes each layer).
    const again = data.map((v) => 1 - v);
    client.write(depth, again);
    assert.deepEqual(await client.read(depth), again);
    // depth16unorm: the texture holds 16-bit steps of 1/65535 (written and read raw).
    const raw = Uint16Array.from({ length: w * h * 2 }, (_, i) => (i * 4099 + 1) % 65536);
    using d16 = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: 2,
      format: "depth16unorm",
      data: raw,
    });
    assert.deepEqual(await client.read(d16), raw);
  },
});

Deno.test({
  name: "textureLoad of texture_depth_2d and texture_depth_2d_array reads what the CPU put there",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, layers] = [6, 5, 3];
    const data = depths(w * h * layers);
    using one = client.createTexture({
      width: w,
      height: h,
      format: "depth32float",
      data: data.subarray(0, w * h),
    });
    using layered = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: layers,
      format: "depth32float",
      data,
    });
    using out = client.zeros(w * h * (layers + 1), "f32");
    client.execute({
      source: `@group(0) @binding(0) var flat: texture_depth_2d;
@group(0) @binding(1) var arr: texture_depth_2d_array;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(arr);
  let n = size.x * size.y;
  let layers = textureNumLayers(arr);
  if (g.x >= n * (layers + 1u)) { return; }
  let i = g.x % n;
  let p = vec2u(i % size.x, i / size.x);
  let layer = g.x / n;
  // No load out of bounds: select() evaluates both operands, and textureLoad(arr, p, 0u - 1u, 0)
  // was the likely trigger of the device loss this test saw on an H100 (docs/known_issues.md).
  if (layer == 0u) {
    out[g.x] = textureLoad(flat, p, 0);
  } else {
    out[g.x] = textureLoad(arr, p, layer - 1u, 0);
  }
}`,
    }, { threads: w * h * (layers + 1), buffers: [one, layered, out] });
    const got = await client.read(out);
    assert.deepEqual([...got.subarray(0, w * h)], [...data.subarray(0, w * h)]);
    assert.deepEqual([...got.subarray(w * h)], [...data]);
  },
});

Deno.test({
  name:
    "textureSampleCompareLevel and textureGatherCompare with a comparison sampler match the CPU",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h] = [8, 4];
    const data = depths(w * h);
    using depth = client.createTexture({ width: w, height: h, format: "depth32float", data });
    using out = client.zeros(w * h * 5, "f32");
    const source = `@group(0) @binding(0) var t: texture_depth_2d;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct P { reference: f32 }
@group(0) @binding(3) var<uniform> p: P;
@compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = vec2f(textureDimensions(t));
  let xy = vec2f(f32(g.x % u32(size.x)), f32(g.x / u32(size.x)));
  if (g.x >= u32(size.x * size.y)) { return; }
  // The texel's center, and the corner it shares with the texels right and below.
  out[g.x] = textureSampleCompareLevel(t, s, (xy + 0.5) / size, p.reference);
  let four = textureGatherCompare(t, s, (xy + 1.0) / size, p.reference);
  for (var k = 0u; k < 4u; k++) { out[u32(size.x * size.y) * (k + 1u) + g.x] = four[k]; }
}`;
    const reference = 0.5;
    client.execute({ source }, {
      threads: w * h,
      buffers: [depth, out],
      params: { reference },
      samplers: [{ compare: "less" }],
    });
    const got = await client.read(out);
    // "less": the reference is less than the texel's depth (clamp-to-edge past the border).
    const at = (x: number, y: number) =>
      data[Math.min(y, h - 1) * w + Math.min(x, w - 1)] > Math.fround(reference) ? 1 : 0;
    const center = Array.from({ length: w * h }, (_, i) => at(i % w, Math.floor(i / w)));
    assert.deepEqual([...got.subarray(0, w * h)], center);
    assert.ok(center.includes(0) && center.includes(1)); // both outcomes are checked
    // WGSL's gather order: (x, y+1), (x+1, y+1), (x+1, y), (x, y).
    const corners = [[0, 1], [1, 1], [1, 0], [0, 0]];
    for (const [k, [dx, dy]] of corners.entries()) {
      const expected = center.map((_, i) => at(i % w + dx, Math.floor(i / w) + dy));
      assert.deepEqual(
        [...got.subarray(w * h * (k + 1), w * h * (k + 2))],
        expected,
        `gather ${k}`,
      );
    }
  },
});

Deno.test({
  name: "multisampled rgba8unorm / rgba8uint / depth32float: every sample round-trips; a " +
    "resolve kernel averages the samples as the CPU does",
  ignore,
  async fn() {
    using client = await createClient();
    const [w, h, samples] = [5, 3, 4];
    // [y][x][sample][channel]
    const colors = Uint8Array.from({ length: w * h * samples * 4 }, (_, i) => (i * 97 + 31) % 256);
    using unorm = client.createTexture({
      width: w,
      height: h,
      format: "rgba8unorm",
      sampleCount: 4,
      data: colors,
    });
    assert.equal(unorm.sampleCount, 4);
    assert.deepEqual(await client.read(unorm), colors);
    using uint = client.createTexture({
      width: w,
      height: h,
      format: "rgba8uint",
      sampleCount: 4,
      data: colors.map((v) => 255 - v),
    });
    assert.deepEqual(await client.read(uint), colors.map((v) => 255 - v));
    const d = depths(w * h * samples);
    using depth = client.createTexture({
      width: w,
      height: h,
      format: "depth32float",
      sampleCount: 4,
      data: d,
    });
    assert.deepEqual(await client.read(depth), d);
    // The resolve: the average of a texel's samples (unorm) and their sum (uint, exact).
    using mean = client.zeros(w * h * 4, "f32");
    using sum = client.zeros(w * h * 4, "u32");
    client.execute({
      source: `@group(0) @binding(0) var a: texture_multisampled_2d<f32>;
@group(0) @binding(1) var b: texture_multisampled_2d<u32>;
@group(0) @binding(2) var<storage, read_write> mean: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> sum: array<vec4u>;
@compute @workgroup_size(16) fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(a);
  if (g.x >= size.x * size.y) { return; }
  let p = vec2u(g.x % size.x, g.x / size.x);
  var m = vec4f(0.0);
  var s = vec4u(0u);
  for (var i = 0u; i < textureNumSamples(a); i++) {
    m += textureLoad(a, p, i);
    s += textureLoad(b, p, i);
  }
  mean[g.x] = m * 0.25;
  sum[g.x] = s;
}`,
    }, { threads: w * h, buffers: [unorm, uint, mean, sum] });
    const gotMean = await client.read(mean);
    const gotSum = await client.read(sum);
    for (let t = 0; t < w * h; t++) {
      for (let c = 0; c < 4; c++) {
        let m = 0;
        let s = 0;
        for (let k = 0; k < samples; k++) {
          const v = colors[(t * samples + k) * 4 + c];
          m = Math.fround(m + Math.fround(v / 255));
          s += 255 - v;
        }
        assert.ok(Math.abs(gotMean[t * 4 + c] - m * 0.25) < 1e-6, `mean ${t}.${c}`);
        assert.equal(gotSum[t * 4 + c], s, `sum ${t}.${c}`);
      }
    }
  },
});

Deno.test({
  name: "every multisampled format round-trips bit for bit (NaN payloads of halves aside)",
  ignore,
  async fn() {
    using client = await createClient();
    // Each format's host array and bits to write: every byte pattern for the 8-bit formats,
    // signed and unsigned extremes for the integers, -0, subnormals, infinities for the floats.
    const cases = [
      ["rgba8unorm", Uint8Array.from({ length: 256 }, (_, i) => i)],
      ["bgra8unorm", Uint8Array.from({ length: 256 }, (_, i) => 255 - i)],
      ["rgba8uint", Uint8Array.from({ length: 256 }, (_, i) => (i * 7) % 256)],
      ["rgba8sint", Int8Array.from({ length: 256 }, (_, i) => i - 128)],
      ["rgba16uint", Uint16Array.from({ length: 256 }, (_, i) => (i * 65521) % 65536)],
      ["rgba16sint", Int16Array.from({ length: 256 }, (_, i) => ((i * 4099) % 65536) - 32768)],
      [
        "rgba16float",
        Uint16Array.from(
          { length: 256 },
          // Finite halves (subnormals and -0 among them; the exponent field stays below 31)
          // and both infinities: no NaN, whose payload a render target may change.
          (_, i) =>
            i % 16 === 15
              ? [0x7c00, 0xfc00][(i >> 4) % 2]
              : ((i * 2654435761) >>> 16) & 0x7bff | (i & 8) << 12,
        ),
      ],
      [
        "r32float",
        Float32Array.from(
          { length: 64 },
          (_, i) => [-0, 2 ** -140, -Infinity, -1.5][i % 4] * (1 + i),
        ),
      ],
      ["depth16unorm", Uint16Array.from({ length: 64 }, (_, i) => (i * 1031) % 65536)],
    ] as const;
    const bytes: Record<string, number> = { depth16unorm: 2, rgba16float: 8, rgba16uint: 8 };
    for (const [format, data] of cases) {
      const texel = bytes[format] ?? (format === "rgba16sint" ? 8 : 4);
      const width = data.byteLength / (4 * texel * 4); // 4 rows of 4 samples per texel
      using texture = client.createTexture({ width, height: 4, format, sampleCount: 4, data });
      const got = await client.read(texture);
      const back = new Uint8Array(got.buffer, got.byteOffset, got.byteLength);
      assert.deepEqual(back, new Uint8Array(data.buffer), format);
    }
  },
});

Deno.test({
  name: "a bgra8unorm storage texture (bgra8unorm-storage) is written in BGRA byte order",
  ignore: ignore || !adapter!.features.has("bgra8unorm-storage"),
  async fn() {
    using client = await createClient();
    assert.ok(client.features.has("bgra8unorm-storage"));
    using image = client.createTexture({ width: 3, height: 2, format: "bgra8unorm" });
    const source = `@group(0) @binding(0) var t: texture_storage_2d<bgra8unorm, write>;
@compute @workgroup_size(6) fn main(@builtin(local_invocation_index) i: u32) {
  textureStore(t, vec2u(i % 3u, i / 3u), vec4f(f32(i), f32(i + 10u), f32(i + 20u), 255.0) / 255.0);
}`;
    client.execute({ source }, { threads: 6, buffers: [image] });
    const expected = Array.from({ length: 6 }, (_, i) => [i + 20, i + 10, i, 255]).flat();
    assert.deepEqual([...await client.read(image)], expected);
    // A device made without the feature refuses the kernel, naming it.
    using bare = await createClient({ features: [] });
    using other = bare.createTexture({ width: 3, height: 2, format: "bgra8unorm" });
    assert.throws(
      () => bare.execute({ source }, { threads: 6, buffers: [other] }),
      (e) => e instanceof UnsupportedError && e.message.includes("'bgra8unorm-storage'"),
    );
  },
});

Deno.test({
  name: "a depth image past one staging buffer is a RangeError (WebGPU copies depth whole)",
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    try {
      // Staging buffers of 1,024 bytes: images of 4x2 (512 bytes with rows padded to 256) go two
      // layers a copy; a 4x8 image (2,048 bytes) would need copies of rows, which WebGPU refuses
      // for depth textures ("partial copy"): refused at the call instead of failing at submit.
      const small = new WebGpuTextures(device, 1024);
      const run = (encode: (e: GPUCommandEncoder) => void) => {
        const encoder = device.createCommandEncoder();
        encode(encoder);
        device.queue.submit([encoder.finish()]);
      };
      using layered = small.create({
        width: 4,
        height: 2,
        depthOrArrayLayers: 3,
        dimension: "2d",
        format: "depth16unorm",
      });
      const raw = Uint16Array.from({ length: 24 }, (_, i) => i * 2711);
      const write = small.write(layered.record.tag as TextureEntry, new Uint8Array(raw.buffer));
      run(write.encode!);
      write.done!();
      const read = small.read(layered.record.tag as TextureEntry);
      run(read.task.encode!);
      assert.deepEqual(new Uint16Array((await read.result()).buffer), raw);
      using tall = small.create({
        width: 4,
        height: 8,
        depthOrArrayLayers: 1,
        dimension: "2d",
        format: "depth16unorm",
      });
      const entry = tall.record.tag as TextureEntry;
      throwsWith(() => small.read(entry), RangeError, "whole images only");
      throwsWith(() => small.write(entry, new Uint8Array(64)), RangeError, "whole images only");
    } finally {
      device.destroy();
    }
  },
});

Deno.test({
  name: "depth and multisampled textures: WebGPU's rules are typed errors naming the option",
  ignore,
  async fn() {
    using client = await createClient();
    const base = { width: 4, height: 4 } as const;
    throwsWith(
      () => client.createTexture({ ...base, format: "rgba8unorm", sampleCount: 2 }),
      RangeError,
      "sampleCount must be 1 or 4",
    );
    throwsWith(
      () => client.createTexture({ ...base, format: "r32uint", sampleCount: 4 }),
      RangeError,
      "r32uint cannot be multisampled",
    );
    throwsWith(
      () =>
        client.createTexture({
          ...base,
          format: "rgba8unorm",
          sampleCount: 4,
          depthOrArrayLayers: 2,
        }),
      RangeError,
      "depthOrArrayLayers must be 1 for a multisampled texture",
    );
    throwsWith(
      () =>
        client.createTexture({
          ...base,
          depthOrArrayLayers: 4,
          dimension: "3d",
          format: "depth32float",
        }),
      RangeError,
      `dimension must be "2d" for a depth32float texture`,
    );
    // A depth outside [0, 1] would be clamped by the depth write, a subnormal one may be flushed
    // to 0 (llvmpipe does): refused, not changed.
    const bad = (v: number) => new Float32Array(16).fill(0.5).fill(v, 3, 4);
    for (const v of [1.5, -0.25, NaN, 2 ** -130]) {
      throwsWith(
        () => client.createTexture({ ...base, format: "depth32float", data: bad(v) }),
        RangeError,
        `got ${v} at element 3`,
      );
    }
    // -0 is the same depth as 0; the smallest normal float is kept.
    using edge = client.createTexture({
      ...base,
      format: "depth32float",
      data: bad(-0).fill(2 ** -126, 5, 6),
    });
    const edges = [...await client.read(edge)];
    // Element 3 only: a zero of either sign (llvmpipe wrote 0, an H100 through Vulkan kept -0;
    // WGSL lets a device ignore a zero's sign). Every other value is exact.
    assert.ok(edges[3] === 0, `element 3 (-0 written): ${edges[3]}`);
    edges[3] = 0;
    assert.deepEqual(edges, [...bad(0).fill(2 ** -126, 5, 6)]);
    using depth = client.createTexture({ ...base, format: "depth32float" });
    using color = client.createTexture({ ...base, format: "r32float" });
    using msaa = client.createTexture({ ...base, format: "rgba8unorm", sampleCount: 4 });
    using out = client.zeros(1, "f32");
    const kernel = (decl: string, use = "f32(textureDimensions(t).x)") => ({
      source: `@group(0) @binding(0) var t: ${decl};
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = ${use}; }`,
    });
    const refusals: [string, unknown, string][] = [
      ["texture_depth_2d", color, "reads depth texels (a depth32float or depth16unorm texture)"],
      ["texture_storage_2d<r32float, write>", depth, "needs the format r32float"],
      ["texture_2d<f32>", msaa, "needs a texture of one sample per texel"],
      ["texture_multisampled_2d<f32>", color, "needs a multisampled texture (sampleCount: 4)"],
      ["texture_depth_multisampled_2d", msaa, "reads depth texels"],
    ];
    for (const [decl, texture, message] of refusals) {
      throwsWith(
        () => client.execute(kernel(decl), { threads: 1, buffers: [texture as typeof depth, out] }),
        KernelArgumentError,
        "buffers[0]",
        message,
      );
    }
    // A sampler for a sampler_comparison binding, and a comparison sampler for a sampler one.
    const compare = `@group(0) @binding(0) var t: texture_depth_2d;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = textureSampleCompareLevel(t, s, vec2f(0.5), 0.5); }`;
    throwsWith(
      () =>
        client.execute({ source: compare }, {
          threads: 1,
          buffers: [depth, out],
          samplers: [{ magFilter: "nearest" }],
        }),
      KernelArgumentError,
      "samplers[0]",
      "sampler_comparison, which needs compare",
    );
    const plainSampler = compare.replace("sampler_comparison", "sampler")
      .replace(
        "textureSampleCompareLevel(t, s, vec2f(0.5), 0.5)",
        "textureSampleLevel(t, s, vec2f(0.5), 0)",
      );
    throwsWith(
      () =>
        client.execute({ source: plainSampler }, {
          threads: 1,
          buffers: [depth, out],
          samplers: [{ compare: "less" }],
        }),
      KernelArgumentError,
      "samplers[0]",
      "has compare",
    );
    // A depth texture binds where a texture_2d<f32> is read without a sampler (unfilterable).
    client.write(depth, new Float32Array(16).fill(0.25));
    client.execute(kernel("texture_2d<f32>", "textureLoad(t, vec2u(1), 0).x"), {
      threads: 1,
      buffers: [depth, out],
    });
    assert.deepEqual([...await client.read(out)], [0.25]);
  },
});

Deno.test({
  name:
    "Tint's modules on depth, multisampled and bgra8unorm storage textures run like plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    for (const c of CORPUS_TEXTURE_DEPTH) {
      await t.step({
        name: c.name,
        ignore: c.features?.some((f) => !adapter!.features.has(f)),
        fn: () => runCorpusCase(client, c),
      });
    }
  },
});
