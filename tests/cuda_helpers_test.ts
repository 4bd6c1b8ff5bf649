/**
 * The helpers on CUDA (#28): `elementwise`, `reduce`, `reduction` and `dot` run on a CUDA client
 * from the same call as on WebGPU, their CUDA C generated from the same specification, compiled by
 * NVIDIA's NVRTC and executed by the simulated driver's PTX interpreter, against the same CPU
 * references as tests/webgpu_helpers_test.ts (tests/_helper_cases.ts), at small sizes.
 */
import assert from "node:assert/strict";
import { elementwise, KernelArgumentError, reduce, reduction } from "../mod.ts";
import { helperSteps } from "./_helper_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

Deno.test({
  name: nvrtcName("helpers on CUDA: the WebGPU helper cases, run on the simulated device"),
  ignore: nvrtcSkip !== undefined,
  async fn(t) {
    resetHazards();
    using client = await simulatedCudaClient();
    await helperSteps(t, client, [[3, 4], [1, 1000], [257, 3], [4100, 2]]);
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("helpers on CUDA: integer types, WGSL built-ins in expressions, bad input"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 1000;
    const mix = elementwise({
      inputs: { a: "i32", b: "u32" },
      params: { k: "i32", f: "f32" },
      output: "i32",
      expression: "select(a * k, i32(b) - 3i, a < 0) + i32(f32(b) * f) + clamp(a, -2i, 2i)",
    });
    const a = Int32Array.from({ length: n }, (_, i) => (i % 13) - 6);
    const b = Uint32Array.from({ length: n }, (_, i) => i * 7);
    using ha = client.createWithData(a);
    using hb = client.createWithData(b);
    using out = mix.run(client, { a: ha, b: hb }, { params: { k: -3, f: 0.5 } });
    const expected = Array.from(
      a,
      (x, i) => (x < 0 ? b[i] - 3 : x * -3) + Math.trunc(b[i] * 0.5) + Math.min(Math.max(x, -2), 2),
    );
    assert.deepEqual([...await client.read(out)], expected);

    const bits = elementwise({
      inputs: { x: "f32" },
      output: "u32",
      expression: "bitcast<u32>(x) ^ 0x80000000u",
    });
    const x = Float32Array.from({ length: 300 }, (_, i) => i - 150.25);
    using hx = client.createWithData(x);
    using flipped = bits.run(client, { x: hx });
    const words = new Uint32Array(x.buffer);
    assert.deepEqual(
      [...await client.read(flipped)],
      [...words].map((w) => (w ^ 0x80000000) >>> 0),
    );

    // Integer sums wrap as u32 does; u32 max/min use the type's extremes as identities.
    const big = Uint32Array.from({ length: 3000 }, (_, i) => 0xfff00000 + i * 977);
    using hbig = client.createWithData(big);
    using sum = reduce(client, hbig);
    using top = reduce(client, hbig, { op: "max", shape: [3, 1000], axis: 1 });
    const wrapped = big.reduce((s, v) => (s + v) >>> 0, 0);
    assert.deepEqual([...await client.read(sum)], [wrapped]);
    assert.deepEqual(
      [...await client.read(top)],
      [0, 1, 2].map((r) => Math.max(...big.subarray(r * 1000, (r + 1) * 1000))),
    );
    const count = reduction({
      inputs: { v: "i32" },
      params: { at: "i32" },
      output: "u32",
      map: "select(0u, 1u, v >= at)",
      combine: "a + b",
      identity: "0u",
    });
    using counted = count.run(client, { v: ha }, { params: { at: 2 } });
    assert.deepEqual([...await client.read(counted)], [a.filter((v) => v >= 2).length]);
    assert.throws(() => mix.run(client, { a: ha }), RangeError);
    assert.throws(() => mix.run(client, { a: ha, b: hx }), TypeError);
    // A missing, unknown or out-of-range param: KernelArgumentError naming it, as on WebGPU
    // (-1 or 1.5 for an i32 param wrapped or truncated, 1e40 for an f32 became Infinity).
    const refused = (params: Record<string, unknown>, argument: string) =>
      assert.throws(
        () => mix.run(client, { a: ha, b: hb }, { params } as never),
        (e) => e instanceof KernelArgumentError && e.argument === argument,
        JSON.stringify(params),
      );
    refused({ k: 1 }, "params.f");
    refused({ k: 1, f: 0.5, z: 2 }, "params.z");
    refused({ k: 2 ** 31, f: 0.5 }, "params.k");
    refused({ k: 1.5, f: 0.5 }, "params.k");
    refused({ k: 1, f: 1e40 }, "params.f");
    refused({ k: "1", f: 0.5 }, "params.k");
    const u = elementwise({ inputs: { a: "i32" }, params: { s: "u32" }, expression: "u32(a) + s" });
    assert.throws(
      () => u.run(client, { a: ha }, { params: { s: -1 } }),
      (e) => e instanceof KernelArgumentError && e.argument === "params.s",
    );
    assert.throws(
      () => count.run(client, { v: ha }, { params: { at: 2 ** 31 } }),
      (e) => e instanceof KernelArgumentError && e.argument === "params.at",
    );
    using again = mix.run(client, { a: ha, b: hb }, { params: { k: -3, f: 0.5 } });
    assert.deepEqual([...await client.read(again)], expected); // the client is still usable
  },
});

Deno.test({
  name: nvrtcName(
    "helpers on CUDA: WGSL's meaning of /, %, shifts, round, f32 literals, built-ins",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient();
    const ints = new Int32Array([7, -7, 1, -2147483648, -2147483648, 0, 5, -1, 9]);
    const uints = new Uint32Array([0, 2, 33, 4294967295, 31, 32, 0, 3, 64]);
    const floats = new Float32Array([2.5, -0.5, 1.5, -1.25, 0.5, 3.5, -2.5, 0.75, 7]);
    using a = client.createWithData(ints);
    using b = client.createWithData(uints);
    using x = client.createWithData(floats);
    const i32 = (v: number) => v | 0, u32 = (v: number) => v >>> 0;
    const div = (p: number, q: number) => q === 0 || (p === -2147483648 && q === -1) ? p : p / q;
    const rem = (p: number, q: number) => q === 0 || (p === -2147483648 && q === -1) ? 0 : p % q;
    const even = (v: number) => v - Math.floor(v) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v);
    const fround = Math.fround;
    // [expression, output type, element i of the WGSL result]
    const cases: [string, "i32" | "u32" | "f32", (i: number) => number][] = [
      ["a / i32(b)", "i32", (i) => i32(Math.trunc(div(ints[i], i32(uints[i]))))],
      ["a % i32(b)", "i32", (i) => i32(rem(ints[i], i32(uints[i])))],
      ["a / -1", "i32", (i) => i32(Math.trunc(div(ints[i], -1)))],
      ["b / (b - b)", "u32", (i) => uints[i]], // divided by zero: the dividend
      ["b % (b - b)", "u32", () => 0],
      ["b % 5u", "u32", (i) => uints[i] % 5],
      ["a << b", "i32", (i) => i32(ints[i] << (uints[i] & 31))],
      ["a >> b", "i32", (i) => ints[i] >> (uints[i] & 31)],
      ["1u << b", "u32", (i) => u32(1 << (uints[i] & 31))],
      ["b >> b", "u32", (i) => uints[i] >>> (uints[i] & 31)],
      ["round(v)", "f32", (i) => even(floats[i])],
      [
        "pow(v, 2.0) + clamp(v, -1.0, 1.0)",
        "f32",
        (i) => fround(fround(floats[i] ** 2) + Math.min(Math.max(floats[i], -1), 1)),
      ],
      [
        "select(v, 1.0, v > 0.0) * 0.1",
        "f32",
        (i) => fround((floats[i] > 0 ? 1 : floats[i]) * fround(0.1)),
      ],
      ["v % 1.0", "f32", (i) => floats[i] % 1],
      [
        "fract(v) + sign(v) + saturate(v)",
        "f32",
        (i) =>
          fround(
            fround(floats[i] - Math.floor(floats[i]) + Math.sign(floats[i])) +
              Math.min(Math.max(floats[i], 0), 1),
          ),
      ],
      [
        "countOneBits(b) + firstLeadingBit(b)",
        "u32",
        (i) =>
          u32(
            uints[i].toString(2).replaceAll("0", "").length +
              (uints[i] === 0 ? -1 : 31 - Math.clz32(uints[i])),
          ),
      ],
      ["extractBits(a, 1u, 3u)", "i32", (i) => (ints[i] << 28) >> 29],
      // Integer literals beside f32 values are f32, as WGSL's abstract ints (a ReLU: max(v, 0)).
      ["max(v, 0) + clamp(v, 0, 1) + select(0, v, v > 0) + exp(0)", "f32", (i) => {
        const v = floats[i];
        return fround(
          fround(fround(Math.max(v, 0) + Math.min(Math.max(v, 0), 1)) + (v > 0 ? v : 0)) + 1,
        );
      }],
      ["min(b, 3) + 1u", "u32", (i) => Math.min(uints[i], 3) + 1],
      // Float to integer clamps to the largest f32 in range (WGSL), C's is undefined past it.
      [
        "i32(v * 1e9)",
        "i32",
        (i) =>
          Math.trunc(Math.min(Math.max(fround(floats[i] * fround(1e9)), -2147483648), 2147483520)),
      ],
      [
        "u32(v * 1e9)",
        "u32",
        (i) => Math.trunc(Math.min(Math.max(fround(floats[i] * fround(1e9)), 0), 4294967040)),
      ],
      ["max(a, -1)", "i32", (i) => Math.max(ints[i], -1)],
      // i32 arithmetic wraps (C's signed overflow is undefined: NVRTC folded a - 1 < a to true).
      [
        "select(0, 1, a - 1 < a) + (a * 2) / 2",
        "i32",
        (i) => (i32(ints[i] - 1) < ints[i] ? 1 : 0) + Math.trunc(div(i32(ints[i] * 2), 2)),
      ],
    ];
    for (const [expression, output, expected] of cases) {
      const kernel = elementwise({
        inputs: { a: "i32", b: "u32", v: "f32" },
        output,
        expression,
      });
      using out = kernel.run(client, { a, b, v: x });
      assert.deepEqual(
        [...await client.read(out)],
        Array.from(ints, (_, i) => expected(i)),
        expression,
      );
    }
  },
});
