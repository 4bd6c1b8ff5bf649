/**
 * Typed handles (issue #18, item 2): data keeps its element type from upload to read, and a
 * kernel that would read it as another type is refused naming the binding.
 */
import assert from "node:assert/strict";
import {
  createClient,
  type DType,
  InvalidHandleError,
  KernelArgumentError,
  type WgslKernel,
} from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const double = (type: string): WgslKernel => ({
  id: `double_${type}`,
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<${type}>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] + v[g.x]; }
}`,
});

const vectors: WgslKernel = {
  id: "vec3_lengths",
  source: `
@group(0) @binding(0) var<storage, read> p: array<vec3f>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&out)) { out[g.x] = length(p[g.x]); }
}`,
};

const particles: WgslKernel = {
  id: "particles",
  source: `
struct Particle { position: vec2f, id: u32, mass: f32 }
@group(0) @binding(0) var<storage, read_write> ps: array<Particle>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&ps)) { ps[g.x].mass = ps[g.x].mass * 2.0; }
}`,
};

const mismatch = (binding: string, pattern: RegExp) => (e: unknown) =>
  e instanceof KernelArgumentError && e.argument === binding && pattern.test(e.message);

Deno.test({
  name: "typed handles: types go in and come out, and kernels are checked against them",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("the issue's trap: an Int32Array read by array<f32> is refused", async () => {
      using ints = client.createWithData(new Int32Array([1, 2, 3]));
      assert.equal(ints.dtype, "i32");
      assert.throws(
        () => client.execute(double("f32"), { threads: 3, buffers: [ints] }),
        mismatch(
          "buffers[0]",
          /holds i32 elements, but v: array<f32> holds f32.*handle\.as\("f32"\)/,
        ),
      );
      client.execute(double("i32"), { threads: 3, buffers: [ints] });
      const out = await client.read(ints); // its own type by default
      assert.ok(out instanceof Int32Array);
      assert.deepEqual([...out], [2, 4, 6], "the refused launch changed nothing");
      // Reinterpretation on purpose still works, and says so.
      using bits = ints.as("f32");
      client.execute(double("f32"), { threads: 3, buffers: [bits] });
      const floats = await client.read(bits);
      assert.ok(floats instanceof Float32Array);
      // 2 as f32 bits is subnormal: doubled exactly (bits 4), or flushed to 0 on a device that
      // flushes subnormals (WGSL allows it; NVIDIA's Vulkan driver does)
      assert.ok([4, 0].includes(new Int32Array(floats.buffer)[0]), "2 as f32 bits, doubled");
      using raw = client.createBytes(12);
      client.execute(double("u32"), { threads: 3, buffers: [raw] }); // untyped binds anywhere
    });

    await t.step("typed constructors count elements of their type", async () => {
      const cases: [DType, readonly (number | bigint)[]][] = [];
      using f = client.zeros(3);
      using u = client.full(4, 7, { dtype: "u32" });
      using i = client.arange(5, "i32", { start: -2 });
      using h = client.full(2, 1.5, { dtype: "f16" });
      using g = client.arange(3, "i64", { start: 2 ** 40, step: 3 });
      using e = client.empty(6, "u16");
      cases.push(["f32", [0, 0, 0]], ["u32", [7, 7, 7, 7]], ["i32", [-2, -1, 0, 1, 2]]);
      cases.push(["f16", [1.5, 1.5]], ["i64", [2n ** 40n, 2n ** 40n + 3n, 2n ** 40n + 6n]]);
      const handles = [f, u, i, h, g];
      const read = await client.readMany(handles);
      cases.forEach(([dtype, values], k) => {
        assert.equal(handles[k].dtype, dtype);
        assert.equal(handles[k].length, values.length);
        assert.deepEqual(Array.from(read[k] as ArrayLike<number | bigint>), values);
      });
      assert.equal(e.size(), 12);
      assert.equal(e.length, 6);
      assert.throws(() => client.full(2, 256, { dtype: "u8" }), RangeError, "never wrapped");
      assert.throws(() => client.full(2, 1.5, { dtype: "i32" }), RangeError, "never rounded");
      assert.throws(() => client.full(2, 1n, { dtype: "f32" }), TypeError);
      assert.throws(() => client.arange(300, "u8"), RangeError, "the last element is 299");
      assert.throws(() => client.empty(4, "f128" as DType), TypeError);
    });

    await t.step("reads and writes keep to the handle's type", async () => {
      using v = client.createWithData(new Float32Array([1, 2, 3, 4]));
      await assert.rejects(() => client.read(v, Int32Array), TypeError);
      const bytes = await client.read(v, Uint8Array); // a byte view is always allowed
      assert.equal(bytes.length, 16);
      assert.throws(() => client.write(v, new Int32Array([1])), TypeError);
      client.write(v, new Float32Array([9]), { offset: 2 }); // offset in elements
      client.write(v, new Float32Array([8]).buffer, { offset: 3 }); // raw bytes: on purpose
      assert.deepEqual([...await client.read(v)], [1, 2, 9, 8]);
      assert.throws(() => client.write(v, new Float32Array(2), { offset: 3 }), RangeError);
      assert.throws(() => v.withOffsetStart(2), RangeError, "an f32 handle holds whole floats");
      assert.throws(() => v.as("f64").withOffsetEnd(4), RangeError);
    });

    await t.step("vectors need whole elements; structs are checked by size", async () => {
      using packed = client.createWithData(new Float32Array([3, 4, 0, 0, 5, 12]));
      using out = client.zeros(2);
      assert.throws(
        () => client.execute(vectors, { threads: 2, buffers: [packed, out] }),
        mismatch("buffers[0]", /24 bytes, not a whole number of p's 16-byte elements/),
      );
      using padded = client.createWithData(new Float32Array([3, 4, 0, 0, 6, 8, 0, 0]));
      client.execute(vectors, { threads: 2, buffers: [padded, out] });
      assert.deepEqual([...await client.read(out)], [5, 10]);
      const data = new Float32Array([0, 0, 0, 1.5, 1, 1, 0, 2]);
      using ps = client.createWithData(data);
      client.execute(particles, { threads: 2, buffers: [ps] });
      assert.deepEqual([...await client.read(ps)], [0, 0, 0, 3, 1, 1, 0, 4]);
      using cut = client.createWithData(new Float32Array(6));
      assert.throws(
        () => client.execute(particles, { threads: 2, buffers: [cut] }),
        mismatch("buffers[0]", /not a whole number of ps's 16-byte elements/),
      );
    });

    await t.step("errors name the handle the user knows", async () => {
      const doomed = client.createWithData(new Float32Array(8), { label: "weights" });
      const unnamed = client.zeros(5, "u32");
      await client.sync();
      doomed.dispose();
      unnamed.dispose();
      assert.throws(
        () => client.execute(double("f32"), { threads: 8, buffers: [doomed] }),
        (e) =>
          e instanceof InvalidHandleError &&
          /Handle 'weights' \(f32 × 8, made by createWithData on stream 0\) was used after dispose/
            .test(e.message),
      );
      await assert.rejects(
        () => client.read(unnamed),
        (e) =>
          e instanceof InvalidHandleError &&
          /The handle of u32 × 5 made by zeros on stream 0 was used after dispose/.test(e.message),
      );
      // A handle of another client: named too, never "Memory 11".
      using other = await createClient({ adapter: adapter! });
      using foreign = other.createWithData(new Float32Array(2), { label: "elsewhere" });
      const foreignError = (e: unknown) =>
        e instanceof InvalidHandleError &&
        /Handle 'elsewhere' \(f32 × \d, made by createWithData on stream 0\) belongs to another client/
          .test(e.message);
      await assert.rejects(() => client.read(foreign), foreignError);
      assert.throws(() => client.write(foreign, new Float32Array([1])), foreignError);
      assert.throws(
        () => client.execute(double("f32"), { threads: 2, buffers: [foreign] }),
        foreignError,
      );
    });
  },
});

Deno.test({
  name: "writes of 1- and 2-byte elements land at any offset and length, neighbours untouched",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    for (const dtype of ["u8", "i8", "f16", "i16", "u16"] as const) {
      const unit = dtype.endsWith("8") ? 1 : 2;
      const length = 7;
      // Two handles of one page, side by side: a patched word never reaches the neighbour.
      using before = client.full(length, 5, { dtype });
      using h = client.arange(length, dtype);
      using after = client.full(length, 6, { dtype });
      const model = Array.from({ length }, (_, i) => i);
      let value = 10;
      for (let offset = 0; offset < length; offset++) {
        for (const count of [1, 2, 3]) {
          if (offset + count > length) continue;
          const data = Array.from({ length: count }, () => value++ % 100);
          const array = dtypeArray(dtype, data);
          if (offset % 2 === 1) {
            // Through a slice at an odd byte offset, on another stream.
            using slice = h.withOffsetStart(offset * unit);
            client.write(slice, array, { stream: 1 });
          } else client.write(h, array, { offset, stream: 0 });
          data.forEach((v, i) => model[offset + i] = v);
        }
      }
      const [b, got, a] = await client.readMany([before, h, after], { stream: 2 });
      assert.deepEqual([...got].map(Number), model, dtype);
      assert.deepEqual([...b].map(Number), Array(length).fill(5), dtype);
      assert.deepEqual([...a].map(Number), Array(length).fill(6), dtype);
    }
  },
});

function dtypeArray(dtype: DType, values: number[]) {
  switch (dtype) {
    case "u8":
      return Uint8Array.from(values);
    case "i8":
      return Int8Array.from(values);
    case "f16":
      return Float16Array.from(values);
    case "i16":
      return Int16Array.from(values);
    default:
      return Uint16Array.from(values);
  }
}
