/**
 * The float rule (issue #26, item 9): floats round to nearest as NumPy does, a finite value that
 * would overflow to Infinity is a `RangeError` (a `KernelArgumentError` naming the param for
 * `params`), and NaN / ±Infinity given explicitly are kept. The same for `full`, `arange`,
 * `scalars` and `params`; integer types are never rounded.
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError, type WgslKernel } from "../mod.ts";
import { ScalarArgument } from "../backend.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** Whether `fn` throws a `RangeError` whose message names `what` and `value`. */
function refuses(fn: () => unknown, what: RegExp): void {
  assert.throws(fn, (e) => e instanceof RangeError && what.test(e.message), String(what));
}

Deno.test("ScalarArgument: floats round to nearest, overflow to Infinity is refused", () => {
  const f32 = ScalarArgument.from("f32", [16777217, 1e-46, 3.4028235e38, NaN, -Infinity]);
  const view = new DataView(f32.bytes.buffer);
  const got = [0, 1, 2, 3, 4].map((i) => view.getFloat32(i * 4, true));
  assert.deepEqual(got, [16777216, 0, 3.4028234663852886e38, NaN, -Infinity]);
  refuses(() => ScalarArgument.from("f32", [1e40]), /f32 scalar 0 1e\+40 overflows f32/);
  refuses(() => ScalarArgument.from("f16", [70000]), /70000 overflows f16 \(largest 65504\)/);
  const f16 = ScalarArgument.from("f16", [65519, 2049]); // 65519 rounds down to 65504
  const half = new DataView(f16.bytes.buffer);
  assert.deepEqual([half.getFloat16(0, true), half.getFloat16(2, true)], [65504, 2048]);
});

Deno.test({
  name: "full, arange and params on a device: round to nearest, refuse overflow, keep NaN",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const n = 5;

    await t.step("full", async () => {
      refuses(() => client.full(n, 1e40), /value 1e\+40 overflows f32/);
      refuses(() => client.full(n, -1e40, { dtype: "f32" }), /value -1e\+40 overflows f32/);
      refuses(() => client.full(n, 70000, { dtype: "f16" }), /value 70000 overflows f16/);
      refuses(() => client.full(n, 1.5, { dtype: "i32" }), /value 1.5 does not fit i32/);
      refuses(() => client.full(n, 2 ** 32, { dtype: "u32" }), /does not fit u32/);
      using a = client.full(n, 16777217);
      using b = client.full(n, 65519, { dtype: "f16" });
      using c = client.full(n, NaN);
      using d = client.full(n, -Infinity, { dtype: "f16" });
      using e = client.full(n, 1e300, { dtype: "f64" });
      const [ga, gb, gc, gd, ge] = await client.readMany([a, b, c, d, e]);
      assert.deepEqual([...ga], Array(n).fill(16777216));
      assert.deepEqual([...gb], Array(n).fill(65504));
      assert.ok([...gc].every(Number.isNaN));
      assert.deepEqual([...gd], Array(n).fill(-Infinity));
      assert.deepEqual([...ge], Array(n).fill(1e300));
    });

    await t.step("arange", async () => {
      refuses(() => client.arange(3, "f32", { start: 1e39 }), /start 1e\+39 overflows f32/);
      refuses(
        () => client.arange(3, "f16", { start: 60000, step: 5000 }),
        /the last element 70000 overflows f16/,
      );
      refuses(() => client.arange(3, "i32", { step: 0.5 }), /step 0.5 is not an integer/);
      using a = client.arange(3, "f32", { start: 16777217, step: 2 });
      using b = client.arange(2, "f16", { start: 65000, step: 519 });
      const [ga, gb] = await client.readMany([a, b]);
      assert.deepEqual([...ga], [16777216, 16777220, 16777220]); // ties to even
      assert.deepEqual([...gb], [64992, 65504]); // f16 steps by 32 there
    });

    await t.step("params", async () => {
      const kernel: WgslKernel = {
        source: `
struct P { a: f32, b: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { out[0] = p.a; out[1] = p.b; }`,
      };
      using out = client.zeros(2);
      assert.throws(
        () => client.execute(kernel, { threads: 1, buffers: [out], params: { a: 1e39, b: 0 } }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "params.a" &&
          /1e\+39, beyond the largest f32/.test(e.message),
      );
      client.execute(kernel, {
        threads: 1,
        buffers: [out],
        params: { a: 16777217, b: 3.4028235e38 }, // both round to a finite f32
      });
      assert.deepEqual([...await client.read(out)], [16777216, 3.4028234663852886e38]);
    });
  },
});
