/**
 * The browser suite's group for the fourth QA wave's WGSL corpus (`tests/_wgsl_corpus_qa4.ts`),
 * for Tint's modules on textures beyond 2-D (`tests/_wgsl_corpus_texture_dims.ts`) and on depth,
 * multisampled and bgra8unorm storage textures (`tests/_wgsl_corpus_texture_depth.ts`), for a mip
 * chain built level by level in one texture:
 * each case through the client and through a plain WebGPU program in the page, compared bit for
 * bit, where Chrome's Tint compiles the WGSL (the Deno tests run naga). Tint's uniformity
 * analysis is stricter than naga's: a case it refuses in plain WebGPU is skipped with the reason.
 *
 * Tint takes a load from `read_write` storage as non-uniform, so a barrier under a branch on a
 * `var<storage, read>` value (gridnet moments) fails to compile widened (`widenReadOnlyStorage`):
 * the client runs the declared module then, copying read-only slices that share a page with a
 * writable binding (`compile/_settle.ts`, `launch/_read_only_copies.ts`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { widenReadOnlyStorage } from "../../runtime/server/webgpu/compile/_reflect.ts";
import { runPlain } from "../_plain_webgpu.ts";
import { runTileReverse, tileReverse } from "../_read_only_alias_case.ts";
import { CORPUS_QA4 } from "../_wgsl_corpus_qa4.ts";
import type { CorpusCase } from "../_wgsl_corpus_qa_base.ts";
import { CORPUS_TEXTURE_DIMS } from "../_wgsl_corpus_texture_dims.ts";
import { CORPUS_TEXTURE_DEPTH } from "../_wgsl_corpus_texture_depth.ts";
import { runCorpusCase } from "../_wgsl_corpus_run.ts";
import { type PageTestContext, Skip } from "./_page_harness.ts";

/** The errors the device's compiler reports for `code`, joined (empty when it compiles). */
async function compilerErrors(code: string): Promise<string> {
  const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
  try {
    const info = await device.createShaderModule({ code }).getCompilationInfo();
    return info.messages.filter((m) => m.type === "error").map((m) => m.message).join("\n");
  } finally {
    device.destroy();
  }
}

/** Each case through the client and plain WebGPU in the page; one Tint refuses is skipped. */
async function inPage(t: PageTestContext, cases: readonly CorpusCase[]): Promise<void> {
  const adapter = (await navigator.gpu.requestAdapter())!;
  using client = await createClient();
  for (const c of cases) {
    await t.step(c.name, async () => {
      if (c.features?.some((f) => !adapter.features.has(f))) throw new Skip("feature");
      const plain = await runPlain(c.source, c.plain, c.workgroups, c).then(
        () => undefined,
        (e: Error) => e.message,
      );
      if (plain !== undefined) throw new Skip(`Tint refuses it: ${plain.split("\n")[1]}`);
      await runCorpusCase(client, c);
    });
  }
}

/** The group, by name, for `runGroups`. */
export const qa4Group = {
  "WGSL corpus, fourth wave: bit-identical to plain WebGPU in the page": (t: PageTestContext) =>
    inPage(t, CORPUS_QA4),
  // Tint's modules on 2-D array, cube array and 3-D textures (`_wgsl_corpus_texture_dims.ts`).
  "textures beyond 2-D: bit-identical to plain WebGPU in the page": (t: PageTestContext) =>
    inPage(t, CORPUS_TEXTURE_DIMS),
  // Tint's modules on depth, multisampled and bgra8unorm storage textures, and the render pass
  // that fills what WebGPU copies nothing into (depth32float, multisampled), read back exactly.
  "depth and multisampled textures: bit-identical to plain WebGPU, filled and read exactly": async (
    t: PageTestContext,
  ) => {
    await inPage(t, CORPUS_TEXTURE_DEPTH);
    using client = await createClient();
    const depths = Float32Array.from({ length: 3 * 2 * 2 }, (_, i) => (i * 0.618034) % 1);
    using depth = client.createTexture({
      width: 3,
      height: 2,
      depthOrArrayLayers: 2,
      format: "depth32float",
      data: depths,
    });
    assert.deepEqual(await client.read(depth), depths);
    const colors = Uint8Array.from({ length: 3 * 2 * 4 * 4 }, (_, i) => (i * 97 + 31) % 256);
    using msaa = client.createTexture({
      width: 3,
      height: 2,
      format: "rgba8unorm",
      sampleCount: 4,
      data: colors,
    });
    assert.deepEqual(await client.read(msaa), colors);
  },
  // Mip levels under Tint: each level of one texture box-filtered from the level above (a sampled
  // view of level l - 1 and a storage view of level l in one dispatch), compared with the CPU.
  "a mip chain of one texture, level by level, is the CPU's": async () => {
    using client = await createClient();
    const base = Float32Array.from({ length: 6 * 4 }, (_, i) => (i * 37) % 101);
    using image = client.createTexture({
      width: 6,
      height: 4,
      format: "r32float",
      mipLevelCount: 3, // 6x4, 3x2, 1x1
      data: base,
    });
    const source = `@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (any(g.xy >= textureDimensions(dst))) { return; }
  let p = vec2i(g.xy) * 2;
  let s = textureLoad(src, p, 0).x + textureLoad(src, p + vec2i(1, 0), 0).x +
    textureLoad(src, p + vec2i(0, 1), 0).x + textureLoad(src, p + vec2i(1, 1), 0).x;
  textureStore(dst, g.xy, vec4f(s * 0.25, 0.0, 0.0, 1.0));
}`;
    let expected = base;
    for (let level = 1; level < 3; level++) {
      const src = image.view({ mipLevel: level - 1 }), dst = image.view({ mipLevel: level });
      client.execute({ source }, { threads: [dst.width, dst.height], buffers: [src, dst] });
      const above = expected;
      expected = Float32Array.from({ length: dst.width * dst.height }, (_, i) => {
        const [x, y] = [(i % dst.width) * 2, Math.floor(i / dst.width) * 2];
        const at = (dx: number, dy: number) => above[(y + dy) * src.width + x + dx];
        return (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)) / 4;
      });
      assert.deepEqual(await client.read(dst), expected, `level ${level}`);
    }
  },
  // Array layers under Tint: layer 0 sampled and layer 1 stored in one dispatch (different
  // subresources of one texture), then one layer of a cube array read alone.
  "one layer of a texture sampled and another stored in one dispatch": async () => {
    using client = await createClient();
    const [w, h] = [4, 3];
    const start = Float32Array.from({ length: w * h * 3 }, (_, i) => i - 5.5);
    using image = client.createTexture({
      width: w,
      height: h,
      depthOrArrayLayers: 3,
      format: "r32float",
      data: start,
    });
    const layer = (z: number) => image.view({ baseArrayLayer: z, arrayLayerCount: 1 });
    client.execute({
      source: `@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (any(g.xy >= textureDimensions(dst))) { return; }
  textureStore(dst, g.xy, vec4f(textureLoad(src, g.xy, 0).x * 3.0, 0.0, 0.0, 1.0));
}`,
    }, { threads: [w, h], buffers: [layer(0), layer(1)] });
    const expected = start.slice();
    for (let i = 0; i < w * h; i++) expected[w * h + i] = start[i] * 3;
    assert.deepEqual(await client.read(image), expected);
    assert.deepEqual(await client.read(layer(2)), start.subarray(2 * w * h));
  },
  "a barrier under a branch on read-only storage, read-only slices on the output's page":
    async () => {
      // Tint refuses the widened module, so the client must run the declared one.
      assert.equal(await compilerErrors(tileReverse.source), "");
      assert.match(await compilerErrors(widenReadOnlyStorage(tileReverse.source)), /uniform/);
      using client = await createClient();
      await runTileReverse(client);
    },
};
