/**
 * The browser suite's group for issue #27 (WGSL breadth): the corpus of real-world-style shaders
 * (`tests/_wgsl_corpus_27.ts`), overrides, a group-1 uniform, named buffers, a blur with a
 * sampler and game of life on r32uint storage textures, each through the client and compared bit
 * for bit with the same WGSL run by a plain WebGPU program in the page (`tests/_plain_webgpu.ts`).
 * Chrome's Tint compiles the WGSL here, where the Deno tests run naga: a case Tint refuses but
 * naga runs is listed in {@linkcode TINT_REFUSES} (and docs/known_issues.md) and skipped with
 * the reason; a case needing a feature the browser's adapter lacks (f16 on SwiftShader) is
 * skipped with the adapter's name.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createClient, KernelArgumentError, type WgslKernel } from "../../mod.ts";
import { bytesOf, type PlainBinding, runPlain } from "../_plain_webgpu.ts";
import {
  BLUR_WGSL,
  type Case27,
  CORPUS_27,
  LIFE_WGSL,
  PASS_WGSL,
  SPREAD_WGSL,
} from "../_wgsl_corpus_27.ts";
import { type PageTestContext, Skip } from "./_page_harness.ts";

/** Corpus cases Chrome's Tint refuses although naga runs them, with why (none so far). */
export const TINT_REFUSES: Readonly<Record<string, string>> = {};

const W = 19; // rows of 76 bytes (rgba8unorm): padded to 256 for copies
const H = 7;

/** A corpus case through the client and through plain WebGPU, compared byte for byte. */
async function corpusCase(c: Case27, features: ReadonlySet<string>, adapter: string) {
  if (c.name in TINT_REFUSES) throw new Skip(`Chrome's Tint refuses it: ${TINT_REFUSES[c.name]}`);
  if (c.feature !== undefined && !features.has(c.feature)) {
    throw new Skip(`the browser's adapter (${adapter}) does not offer ${c.feature}`);
  }
  const bindings: PlainBinding[] = c.plain.map((b) => ({
    group: 0,
    binding: b.binding,
    buffer: b.data as ArrayBufferView<ArrayBuffer>,
    uniform: b.uniform,
  }));
  const plain = await runPlain(c.source, bindings, c.workgroups, {
    entryPoint: c.entryPoint,
    constants: c.constants,
    features: c.feature === undefined ? undefined : [c.feature],
  });
  using client = await createClient();
  const handles = c.buffers.map((i) => client.createWithData(c.plain[i].data));
  try {
    client.execute({ source: c.source, entryPoint: c.entryPoint }, {
      threads: c.threads,
      buffers: handles,
      params: c.params,
      overrides: c.overrides,
    });
    const got = await client.readMany(handles);
    c.buffers.forEach((index, k) => {
      assert.deepEqual(bytesOf(got[k]), plain[index], `binding ${c.plain[index].binding}`);
    });
    // The launch changed the data (a kernel that did nothing would compare equal).
    assert.ok(got.some((g, k) => bytesOf(g).join() !== bytesOf(c.plain[c.buffers[k]].data).join()));
  } finally {
    for (const handle of handles) handle.dispose();
  }
}

const withOverrides: WgslKernel = {
  id: "page.overrides",
  source: `
override BLOCK: u32 = 64u;
override SCALE: f32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = SCALE * f32(BLOCK); }
}`,
};

/** The group, by name, for `runGroups`. */
export const issue27Group = {
  "WGSL breadth (#27): bit-identical to plain WebGPU in the page": async (t: PageTestContext) => {
    const adapter = (await navigator.gpu.requestAdapter())!;
    const features: ReadonlySet<string> = new Set(adapter.features);
    const { vendor, architecture, description } = adapter.info;
    const name = [vendor, architecture, description].filter(Boolean).join(" ") || "?";
    for (const c of CORPUS_27) {
      await t.step(`corpus: ${c.name}`, () => corpusCase(c, features, name));
    }
    using client = await createClient();
    await t.step(
      "overrides: a set per launch, the workgroup size from one, misuse named",
      async () => {
        using out = client.createWithData(new Float32Array(100));
        client.execute(withOverrides, { threads: 100, buffers: [out], overrides: { SCALE: 2 } });
        assert.deepEqual(await client.read(out), new Float32Array(100).fill(128));
        const overrides = { SCALE: 0.5, BLOCK: 8 };
        client.execute(withOverrides, { threads: 100, buffers: [out], overrides });
        assert.deepEqual(await client.read(out), new Float32Array(100).fill(4));
        assert.throws(
          () => client.execute(withOverrides, { threads: 100, buffers: [out] }),
          (e) => e instanceof KernelArgumentError && /overrides\.SCALE.*no default/.test(e.message),
        );
      },
    );
    await t.step("a per-pass uniform in group 1", async () => {
      const src = Float32Array.from({ length: 200 }, (_, i) => Math.sin(i) * 3.7);
      using input = client.createWithData(src);
      using output = client.zeros(200);
      const params = { gain: 1.75, bias: -0.25, frame: 7, _pad: 0 };
      client.execute({ source: PASS_WGSL }, { threads: 200, buffers: [input, output], params });
      const uniform = new ArrayBuffer(16);
      new Float32Array(uniform, 0, 2).set([1.75, -0.25]);
      new Uint32Array(uniform, 8, 1)[0] = 7;
      const [, plain] = await runPlain(PASS_WGSL, [
        { group: 0, binding: 0, buffer: src },
        { group: 0, binding: 1, buffer: new Float32Array(200) },
        { group: 1, binding: 0, buffer: new Uint8Array(uniform), uniform: true },
      ], [4]);
      const got = await client.read(output);
      assert.deepEqual(bytesOf(got), plain);
      assert.notEqual(got.join(), new Float32Array(200).join());
    });
    await t.step("named buffers over groups 2 and 0, in any key order", async () => {
      const a = Uint32Array.from({ length: 70 }, (_, i) => i + 1);
      const b = Uint32Array.from({ length: 70 }, (_, i) => 3 * i);
      using ha = client.createWithData(a);
      using hb = client.createWithData(b);
      using out = client.zeros(70, "u32");
      client.execute({ source: SPREAD_WGSL }, { threads: 70, buffers: { b: hb, out, a: ha } });
      const [plain] = await runPlain(SPREAD_WGSL, [
        { group: 0, binding: 1, buffer: new Uint32Array(70) },
        { group: 0, binding: 3, buffer: b },
        { group: 2, binding: 0, buffer: a },
      ], [2]);
      assert.deepEqual(bytesOf(await client.read(out)), plain);
      assert.throws(
        () => client.execute({ source: SPREAD_WGSL }, { threads: 70, buffers: { a: ha, b: hb } }),
        (e) => e instanceof KernelArgumentError && e.argument === "buffers.out",
      );
    });
    await t.step("a blur with a linear sampler", async () => {
      const image = Uint8Array.from(
        { length: W * H * 4 },
        (_, i) => (i * 37 + (i >> 3) * 11) & 255,
      );
      using src = client.createTexture({ width: W, height: H, format: "rgba8unorm", data: image });
      using dst = client.createTexture({ width: W, height: H, format: "rgba8unorm" });
      const linear = { magFilter: "linear", minFilter: "linear" } as const;
      client.execute({ source: BLUR_WGSL }, {
        threads: [W, H],
        buffers: { src, dst },
        samplers: { smp: linear },
      });
      const [, , plain] = await runPlain(BLUR_WGSL, [
        {
          group: 0,
          binding: 0,
          texture: { width: W, height: H, format: "rgba8unorm", data: image },
        },
        { group: 0, binding: 1, sampler: linear },
        {
          group: 0,
          binding: 2,
          texture: { width: W, height: H, format: "rgba8unorm" },
          storage: true,
        },
      ], [3, 1]);
      const got = await client.read(dst);
      assert.ok(got instanceof Uint8Array);
      assert.deepEqual(got, plain);
      assert.notEqual(got.join(), image.join());
    });
    await t.step("game of life on r32uint storage textures, two streams", async () => {
      const cells = Uint32Array.from({ length: W * H }, (_, i) => ((i * 7) % 5 === 0 ? 1 : 0));
      using a = client.createTexture({ width: W, height: H, format: "r32uint", data: cells });
      using b = client.createTexture({ width: W, height: H, format: "r32uint" });
      client.execute({ source: LIFE_WGSL }, { threads: [W, H], buffers: [a, b], stream: 1 });
      client.execute({ source: LIFE_WGSL }, { threads: [W, H], buffers: [b, a], stream: 2 });
      const got = await client.read(a, { stream: 3 });
      let plain = bytesOf(cells);
      for (let generation = 0; generation < 2; generation++) {
        const data = new Uint32Array(plain.buffer as ArrayBuffer);
        [, plain] = await runPlain(LIFE_WGSL, [
          {
            group: 0,
            binding: 0,
            texture: { width: W, height: H, format: "r32uint", data },
            storage: true,
          },
          {
            group: 0,
            binding: 1,
            texture: { width: W, height: H, format: "r32uint" },
            storage: true,
          },
        ], [3, 1]);
      }
      assert.ok(got instanceof Uint32Array);
      assert.deepEqual(bytesOf(got), plain);
      assert.notEqual(got.join(), cells.join());
    });
  },
};
