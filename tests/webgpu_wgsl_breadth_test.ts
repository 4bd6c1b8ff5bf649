/**
 * Issue #27: WGSL that plain WebGPU runs runs through the client, bit-identical (the corpus in
 * `_wgsl_corpus_27.ts`), or is refused at the call with a typed error naming what: overrides,
 * device features, and workgroup sizes the runtime cannot evaluate.
 */
import assert from "node:assert/strict";
import {
  CompilationError,
  createClient,
  KernelArgumentError,
  UnsupportedError,
  type WgslKernel,
} from "../mod.ts";
import { type Case27, CORPUS_27 } from "./_wgsl_corpus_27.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const adapterFeatures: ReadonlySet<string> = new Set(adapter?.features ?? []);

/** Runs a case with plain WebGPU; returns each binding's bytes after the dispatch. */
async function runPlain(device: GPUDevice, c: Case27): Promise<Map<number, Uint8Array>> {
  device.pushErrorScope("validation");
  const module = device.createShaderModule({ code: c.source });
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module, entryPoint: c.entryPoint ?? "main", constants: c.constants },
  });
  const buffers = c.plain.map((b) => {
    const usage = b.uniform
      ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST
      : GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const buffer = device.createBuffer({ size: Math.max(16, b.data.byteLength), usage });
    device.queue.writeBuffer(buffer, 0, b.data.buffer as ArrayBuffer);
    return buffer;
  });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: c.plain.map((b, i) => ({ binding: b.binding, resource: { buffer: buffers[i] } })),
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(...c.workgroups);
  pass.end();
  const reads = c.plain.map((b) => {
    if (b.uniform) return undefined;
    const read = device.createBuffer({
      size: buffers[c.plain.indexOf(b)].size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    encoder.copyBufferToBuffer(buffers[c.plain.indexOf(b)], 0, read, 0, read.size);
    return read;
  });
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  assert.equal(error, null, `${c.name}: plain WebGPU ${error?.message}`);
  const out = new Map<number, Uint8Array>();
  for (const [i, read] of reads.entries()) {
    if (read === undefined) continue;
    await read.mapAsync(GPUMapMode.READ);
    const bytes = new Uint8Array(read.getMappedRange().slice(0, c.plain[i].data.byteLength));
    out.set(c.plain[i].binding, bytes);
    read.destroy();
  }
  for (const buffer of buffers) buffer.destroy();
  return out;
}

Deno.test({
  name: "real-world WGSL runs through the client bit-identical to plain WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient();
    const device = await adapter!.requestDevice({
      requiredFeatures: [...adapterFeatures].filter((f) => f === "shader-f16") as GPUFeatureName[],
    });
    try {
      for (const c of CORPUS_27) {
        await t.step({
          name: c.name,
          ignore: c.feature !== undefined && !adapterFeatures.has(c.feature),
          async fn() {
            const expected = await runPlain(device, c);
            const handles = c.buffers.map((i) => client.createWithData(c.plain[i].data));
            try {
              const kernel: WgslKernel = { source: c.source, entryPoint: c.entryPoint };
              client.execute(kernel, {
                threads: c.threads,
                buffers: handles,
                params: c.params,
                overrides: c.overrides,
              });
              const got = await client.readMany(handles);
              c.buffers.forEach((index, k) => {
                const binding = c.plain[index].binding;
                const bytes = new Uint8Array(got[k].buffer, got[k].byteOffset, got[k].byteLength);
                assert.deepEqual(bytes, expected.get(binding), `${c.name}: binding ${binding}`);
              });
              // The launch changed the data (a kernel that did nothing would compare equal).
              const bytes = (a: ArrayBufferView) =>
                [...new Uint8Array(a.buffer, a.byteOffset, a.byteLength)].join();
              assert.ok(got.some((g, k) => bytes(g) !== bytes(c.plain[c.buffers[k]].data)));
            } finally {
              for (const handle of handles) handle.dispose();
            }
          },
        });
      }
    } finally {
      device.destroy();
    }
  },
});

const withOverrides: WgslKernel = {
  id: "overrides",
  source: `
override BLOCK: u32 = 64u;
override SCALE: f32;
override FLAG: bool = false;
override K: i32 = -1;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = select(SCALE, f32(K), FLAG); }
}`,
};

Deno.test({
  name: "overrides: set per launch, each set compiled once, misuse named at the call",
  ignore,
  async fn() {
    using client = await createClient();
    using out = client.createWithData(new Float32Array(100));
    const launch = (overrides?: Record<string, number | boolean>) =>
      client.execute(withOverrides, { threads: 100, buffers: [out], overrides });
    launch({ SCALE: 2 });
    assert.deepEqual(await client.read(out), new Float32Array(100).fill(2));
    launch({ SCALE: 2, FLAG: true, K: -7, BLOCK: 8 });
    assert.deepEqual(await client.read(out), new Float32Array(100).fill(-7));
    const misuse: [Record<string, unknown> | undefined, RegExp][] = [
      [undefined, /overrides\.SCALE.*is required.*no default/],
      [{ SCALE: 1, WIDTH: 3 }, /overrides\.WIDTH.*is not an override/],
      [{ SCALE: 1, BLOCK: -1 }, /overrides\.BLOCK.*outside u32/],
      [{ SCALE: 1, BLOCK: 1.5 }, /overrides\.BLOCK.*outside u32/],
      [{ SCALE: 1, K: 2 ** 31 }, /overrides\.K.*outside i32/],
      [{ SCALE: 1e39 }, /overrides\.SCALE.*outside f32/],
      [{ SCALE: 1, FLAG: 1 }, /overrides\.FLAG.*true or false/],
      [{ SCALE: "2" }, /overrides\.SCALE.*takes a number/],
    ];
    for (const [overrides, message] of misuse) {
      assert.throws(
        () => launch(overrides as Record<string, number>),
        (e) => e instanceof KernelArgumentError && message.test(e.message),
        JSON.stringify(overrides),
      );
    }
    await assert.rejects(
      () => client.compile(withOverrides),
      (e) => e instanceof KernelArgumentError && /overrides\.SCALE/.test(e.message),
    );
    await client.compile(withOverrides, { overrides: { SCALE: 3, BLOCK: 32 } });
    // Past the fold (65,535 workgroups of 1): the overridden size counts the workgroups.
    using big = client.createWithData(new Float32Array(70_000));
    client.execute(withOverrides, {
      threads: 70_000,
      buffers: [big],
      overrides: Object.freeze({ SCALE: 5, BLOCK: 1 }),
    });
    const values = await client.read(big);
    assert.equal(values.filter((v) => v === 5).length, 70_000);
  },
});

const f16Kernel: WgslKernel = {
  id: "half",
  source: `enable f16;
@group(0) @binding(0) var<storage, read_write> y: array<f16>;
@compute @workgroup_size(1) fn main() { y[0] = y[0] * 2.0h; }`,
};

Deno.test({
  name: "features: the adapter's are requested; a kernel needing a missing one is UNSUPPORTED",
  ignore,
  async fn() {
    using client = await createClient();
    for (const feature of ["shader-f16", "timestamp-query"]) {
      assert.equal(client.features.has(feature), adapterFeatures.has(feature), feature);
    }
    using bare = await createClient({ features: [] });
    assert.equal(bare.features.size, 0);
    using h = bare.createWithData(new Float16Array([1.5]));
    assert.throws(
      () => bare.execute(f16Kernel, { threads: 1, buffers: [h] }),
      (e) =>
        e instanceof UnsupportedError && /enables f16.*'shader-f16'/.test(e.message) &&
        e.message.includes(bare.server.properties.deviceName),
    );
    await assert.rejects(() => bare.compile(f16Kernel), UnsupportedError);
    const subgroups: WgslKernel = {
      source: `enable subgroups;
@compute @workgroup_size(1) fn main() {}`,
    };
    if (!client.features.has("subgroups")) {
      await assert.rejects(
        () => client.compile(subgroups),
        (e) => e instanceof UnsupportedError && /'subgroups'/.test(e.message),
      );
    }
    await assert.rejects(
      () => createClient({ features: ["no-such-feature"] }),
      (e) => e instanceof UnsupportedError && /'no-such-feature'/.test(e.message),
    );
    // Still usable after the refusals.
    using one = bare.createWithData(new Float32Array(1));
    bare.execute(withOverrides, { threads: 1, buffers: [one], overrides: { SCALE: 4 } });
    assert.deepEqual(await bare.read(one), new Float32Array([4]));
  },
});

Deno.test({
  name: "where the reflection is unsure, the device decides: invalid WGSL or a construct named",
  ignore,
  async fn() {
    using client = await createClient();
    // Valid WGSL (naga computes abstract integers in i64) whose workgroup size the runtime
    // cannot evaluate exactly (a product beyond 2^53): refused, never guessed, the reason named.
    const floorSize = {
      source: "@compute @workgroup_size((0x7FFFFFFF * 0x7FFFFFFF) % 100) fn main() {}",
    };
    await assert.rejects(
      () => client.compile(floorSize),
      (e) =>
        e instanceof UnsupportedError && /valid WGSL/.test(e.message) &&
        /beyond 2\^53/.test(e.message),
    );
    // After the device's answer, a launch is refused with it too.
    using out = client.createBytes(4);
    assert.throws(
      () => client.execute(floorSize, { threads: 1, buffers: [] }),
      (e) => e instanceof UnsupportedError && /valid WGSL/.test(e.message),
    );
    // Invalid WGSL where the runtime could not evaluate the size: the compiler's message.
    await assert.rejects(
      () => client.compile({ source: "@compute @workgroup_size(min(2, F)) fn main() {}" }),
      (e) => e instanceof CompilationError && e.line === 1 && /\bF\b/.test(e.compilerMessage),
    );
    // WGSL the reflection cannot parse: at the call the reflection's error (the device has not
    // answered), from compile() the device compiler's message and line.
    const broken = { source: "@compute @workgroup_size(1)\nfn main() {\n  let = 1;\n}" };
    assert.throws(
      () => client.execute(broken, { threads: 1, buffers: [out] }),
      (e) => e instanceof CompilationError && /reflection cannot read/.test(e.message),
    );
    await assert.rejects(
      () => client.compile(broken),
      (e) =>
        e instanceof CompilationError && e.line === 3 && /expected/.test(e.compilerMessage) &&
        !/reflection/.test(e.compilerMessage),
    );
  },
});

const twoEntries = `override A: u32;
override B: f32;
override UNUSED: f32;
override D: u32 = A * 2u;
fn scale() -> f32 { return B; }
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn viaFunction() { o[0] = scale(); }
@compute @workgroup_size(1) fn viaOverride() { o[0] = f32(D); }
@compute @workgroup_size(1) fn none() { o[0] = 7.0; }`;

Deno.test({
  name: "overrides without a default are required only where the entry point uses them",
  ignore,
  async fn() {
    using client = await createClient();
    using out = client.createWithData(new Float32Array(1));
    const run = async (entryPoint: string, overrides?: Record<string, number>) => {
      client.execute({ source: twoEntries, entryPoint }, { threads: 1, buffers: [out], overrides });
      return (await client.read(out))[0];
    };
    // WebGPU runs an entry point without values for the overrides it does not use.
    assert.equal(await run("none"), 7);
    assert.equal(await run("none", { UNUSED: 1 }), 7);
    // Used through a called function, and through another override's initializer.
    assert.equal(await run("viaFunction", { B: 2.5 }), 2.5);
    assert.equal(await run("viaOverride", { A: 3 }), 6);
    for (const [entryPoint, missing] of [["viaFunction", "B"], ["viaOverride", "A"]]) {
      assert.throws(
        () => client.execute({ source: twoEntries, entryPoint }, { threads: 1, buffers: [out] }),
        (e) => e instanceof KernelArgumentError && e.message.includes(`overrides.${missing}`),
      );
    }
  },
});
