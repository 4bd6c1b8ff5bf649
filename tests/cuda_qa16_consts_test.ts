/**
 * QA wave 16: constant sub-expressions of the helpers' WGSL expressions give on CUDA (the
 * translation's constant folder, runtime/kernels/wgsl/_wgsl_const.ts) what Deno's WebGPU
 * compiler (naga) gives: abstract floats in f64, abstract ints in 64 bits, typed constants in
 * their type with naga's refusals. A seeded generator (tests/_qa16_const_gen.ts) writes
 * constant-heavy expressions; naga's validation says which it refuses (the CUDA translation must
 * refuse the same), and the rest run in one elementwise launch per backend, compared bit for bit
 * (finite results only: WGSL leaves infinities and NaN indeterminate; and a zero's sign, which
 * llvmpipe does not keep: `x * 1e-50` is +0 at x = -1 there).
 */
import assert from "node:assert/strict";
import {
  CompilationError,
  type ComputeClient,
  createClient,
  elementwise,
  reduction,
} from "../mod.ts";
import {
  translateWgslExpression,
  WgslExpressionError,
} from "../runtime/kernels/wgsl/_wgsl_expression.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { ConstExpressions, seeded } from "./_qa16_const_gen.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined || nvrtcSkip !== undefined;
const XS = [1, -1, 2, 0.5, 3];

/** The f32 outputs of `expressions` (the k-th at x = XS[k % 5]) in one launch on `client`. */
async function runAll(
  client: ComputeClient,
  expressions: readonly string[],
  at: readonly number[] = XS,
): Promise<Float32Array> {
  const xs = Float32Array.from(expressions, (_, k) => at[k % at.length]);
  using x = client.createWithData(xs);
  const expression = expressions.reduceRight(
    (rest, e, k) => `select(${rest}, f32(${e}), i == ${k}u)`,
    "0.0f",
  );
  using out = elementwise({ inputs: ["x"], expression }).run(client, { x });
  return await client.read(out) as Float32Array;
}

/** Whether naga refuses `expression` (its validation, as the WebGPU backend's shader has it). */
async function nagaRefuses(device: GPUDevice, expression: string): Promise<string | undefined> {
  device.pushErrorScope("validation");
  device.createShaderModule({
    code: `@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  let x = data[i];
  data[i] = f32(${expression});
}`,
  });
  const error = await device.popErrorScope();
  return error?.message;
}

/** The CUDA translation's refusal of `expression`, or `undefined` where it translates. */
function cudaRefuses(expression: string): string | undefined {
  try {
    translateWgslExpression(`f32(${expression})`, { x: "f32", i: "u32" });
    return undefined;
  } catch (error) {
    if (error instanceof WgslExpressionError) return error.message;
    throw error;
  }
}

const bits = (a: Float32Array) =>
  Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length), (b) => b.toString(16));

Deno.test({
  name: nvrtcName(
    "random constant-heavy expressions: CUDA refuses what naga refuses and computes its bits",
  ),
  ignore,
  async fn() {
    const device = await adapter!.requestDevice();
    using webgpu = await createClient({ backend: "webgpu" });
    using cuda = await simulatedCudaClient();
    try {
      const generator = new ConstExpressions(seeded(16));
      let refused = 0;
      for (let batch = 0; batch < 4; batch++) {
        const taken: string[] = [];
        while (taken.length < 48) {
          const expression = generator.expression();
          const naga = await nagaRefuses(device, expression);
          const ours = cudaRefuses(expression);
          assert.equal(
            ours !== undefined,
            naga !== undefined,
            `${expression}: naga ${
              naga ? `refuses (${naga.replace(/\s+/g, " ").slice(0, 300)})` : "takes it"
            }, ` +
              `the CUDA translation ${ours ? `refuses (${ours})` : "takes it"}`,
          );
          if (naga === undefined) taken.push(expression);
          else refused++;
        }
        const [expected, got] = [await runAll(webgpu, taken), await runAll(cuda, taken)];
        for (let k = 0; k < taken.length; k++) {
          if (!Number.isFinite(expected[k])) continue; // indeterminate in WGSL
          if (expected[k] === 0 && got[k] === 0) continue; // llvmpipe's zeros' signs vary
          assert.equal(
            bits(got.subarray(k, k + 1))[0],
            bits(expected.subarray(k, k + 1))[0],
            `${taken[k]} at x = ${XS[k % XS.length]}: CUDA ${got[k]}, WebGPU ${expected[k]}`,
          );
        }
      }
      assert.ok(refused > 5, `only ${refused} refused: the generator tests no refusals`);
    } finally {
      device.destroy();
    }
  },
});

/** Constant expressions of each kind: the same bits (the value at x = 1 where given) or refusal. */
const CASES: readonly (readonly [string, number | "refused" | "same"])[] = [
  // Abstract floats in f64: 1e-8 survives (f32 would give 0); then once to f32.
  ["x + ((1.0 + 1e-8) - 1.0) * 1e8", 2],
  ["x * (sqrt(2.0) * sqrt(2.0))", 2],
  ["x * ((((degrees(1.0)) + 1e-9) - (degrees(1.0))) * 1e9)", "same"],
  ["x * (1.0 / 3.0)", Math.fround(1 / 3)],
  // Typed constants: naga's refusals.
  ["x * f32(u32(x) << (1u << 5u))", "refused"],
  ["x + f32(1i << 31u)", "refused"],
  ["x + f32(3u << 31u)", "refused"],
  ["x + f32(5i / 0i)", "refused"],
  ["x * (3e38f * 10.0f)", "refused"],
  ["x * (1.0 / 0.0)", "refused"],
  ["x * 1e39", "refused"],
  ["x * clamp(2.0, 1.0, 0.5)", "refused"],
  // naga wraps i32 + - * of constants, and computes an abstract int by a call in 64 bits.
  ["x + f32(2147483647i + 1i)", 1 - 2 ** 31],
  ["x + f32(max(1, 2) << 40)", 2 ** 41],
  ["x * 1e-40", Math.fround(1e-40)],
  // An f32 literal rounded once from its decimal; an abstract one through f64, as naga does.
  ["x * 1.0000000596046447753906251f", 1 + 2 ** -23],
  ["x * 1.0000000596046447753906251", 1],
  // An abstract int to f32 rounded once; through an abstract float, through f64 (naga's).
  ["x * f32(9007199791611905)", 2 ** 53 + 2 ** 30],
  ["x * (9007199791611905 + 0.0)", 2 ** 53],
  // Hex floats fold too (C++ computed an abstract one in double; `0x1.8f` has no suffix).
  ["x * 0x1.8p1", 3],
  ["x * 0x1.8f", 1.55859375],
  ["x * (((0x1p-30 + 1.0) - 1.0) * 0x1p30)", 1],
  ["x * 0x1p200f", "refused"],
  // naga refuses an abstract int's + - * / overflow but wraps its negation and abs.
  ["x + f32(9223372036854775807 + 1)", "refused"],
  ["x + f32((-9223372036854775807 - 1) / -1)", "refused"],
  ["x + f32(3 << 62)", "refused"],
  ["x + f32(-(-9223372036854775807 - 1))", 1 - 2 ** 63],
  ["x + f32(abs(-9223372036854775807 - 1))", 1 - 2 ** 63],
  // -2^63 beside x: C has no literal of it (`-9223372036854775808LL` was +2^63 there).
  ["x + (-9223372036854775807 - 1)", 1 - 2 ** 63],
  ["x + f32(i32(1.5e10))", 2 ** 31],
  ["x + f32(0x7fffffffi)", 2 ** 31],
  // abs of a u32 is itself (C++ has no abs(unsigned): NVRTC refused it as ambiguous).
  ["x + f32(abs(u32(x) * 3u))", 4],
  // naga folds no && or ||: the select is computed at run time, its abstract arguments in f32
  // (1e-8 + 1.0 is 1.0) and its abstract ints in i32 (1 << 40 is refused), `!` and `==` folded.
  ["x + ((select(1e-8, 0.0, true && true) + 1.0) - 1.0) * 1e8", 1],
  ["x + ((select(1e-8, 0.0, true == true) + 1.0) - 1.0) * 1e8", 1],
  ["x + ((select(0.0, 1e-8, !false) + 1.0) - 1.0) * 1e8", 2],
  ["x + f32(select(1 << 40, 0, true || false))", "refused"],
  ["x + f32(select(1 << 40, 0, !false))", 1],
];

Deno.test({
  name: nvrtcName("constant expressions of each kind: the same bits or refusals on both backends"),
  ignore,
  async fn() {
    using webgpu = await createClient({ backend: "webgpu" });
    using cuda = await simulatedCudaClient();
    const refused = async (client: ComputeClient, expression: string) =>
      await runAll(client, [expression]).then(
        () => false,
        (error) => {
          assert.ok(error instanceof CompilationError, `${expression}: ${error}`);
          return true;
        },
      );
    for (const [expression] of CASES.filter(([, e]) => e === "refused")) {
      assert.ok(await refused(webgpu, expression), `${expression} on WebGPU`);
      assert.ok(await refused(cuda, expression), `${expression} on CUDA`);
    }
    // The rest in one launch per backend, at x = 1.
    const taken = CASES.filter(([, e]) => e !== "refused");
    const expressions = taken.map(([e]) => e);
    const [w, c] = [await runAll(webgpu, expressions, [1]), await runAll(cuda, expressions, [1])];
    taken.forEach(([expression, expected], k) => {
      const [wk, ck] = [bits(w.subarray(k, k + 1))[0], bits(c.subarray(k, k + 1))[0]];
      assert.equal(ck, wk, `${expression}: CUDA ${c[k]}, WebGPU ${w[k]}`);
      if (typeof expected === "number") {
        assert.equal(wk, bits(Float32Array.of(expected))[0], `${expression} on WebGPU`);
      }
    });
  },
});

Deno.test({
  name: nvrtcName("reduction: constants in map, combine and identity are folded as on WebGPU"),
  ignore,
  async fn() {
    using webgpu = await createClient({ backend: "webgpu" });
    using cuda = await simulatedCudaClient();
    // In f32 (CUDA's before) each constant below is 0 or 1; in f64, as WGSL's abstract floats,
    // they are 1e-8 and 1 + 1e-8 until the one rounding to f32.
    const sum = reduction({
      inputs: ["x"],
      map: "x * (((1.0 + 1e-8) - 1.0) * 1e8)",
      combine: "a + b * ((1.0 + 1e-8) * 1e8 - 1e8)",
      identity: "(1e30 + 1.0) - 1e30",
    });
    const xs = Float32Array.from({ length: 100 }, (_, k) => (k % 7) - 3);
    const run = async (client: ComputeClient) => {
      using x = client.createWithData(xs);
      using out = sum.run(client, { x });
      return await client.read(out) as Float32Array;
    };
    const [w, c] = [await run(webgpu), await run(cuda)];
    assert.deepEqual(bits(c), bits(w));
    assert.notEqual(w[0], 0); // the combine's constant is 1.0000000149 (f64), not 0 (f32)
  },
});

Deno.test({
  name: nvrtcName(
    "a constant expression converts to an i32 or u32 output as WGSL's i32(...) / u32(...) of it",
  ),
  ignore,
  async fn() {
    using webgpu = await createClient({ backend: "webgpu" });
    using cuda = await simulatedCudaClient();
    // An abstract float saturates to the type's range (an f32 would stop at its largest f32
    // below: 2147483520); an abstract int must fit.
    const cases: [string, "i32" | "u32", number | "refused"][] = [
      ["3e9", "i32", 2147483647],
      ["1e10", "u32", 4294967295],
      ["x * 3e9", "i32", 2147483520],
      ["4294967295", "u32", 4294967295],
      ["-1", "u32", "refused"],
      ["4294967295", "i32", "refused"],
      ["2.9", "i32", 2],
    ];
    const outcome = async (client: ComputeClient, expression: string, output: "i32" | "u32") => {
      using x = client.createWithData(new Float32Array([1]));
      try {
        using out = elementwise({ inputs: ["x"], expression, output }).run(client, { x });
        return (await client.read(out))[0];
      } catch (error) {
        assert.ok(error instanceof CompilationError, `${expression}: ${error}`);
        return "refused";
      }
    };
    for (const [expression, output, expected] of cases) {
      const [w, c] = [
        await outcome(webgpu, expression, output),
        await outcome(cuda, expression, output),
      ];
      assert.equal(w, expected, `${expression} as ${output} on WebGPU`);
      assert.equal(c, expected, `${expression} as ${output} on CUDA`);
    }
    // A reduction's map likewise (u32 of 4294967295: NVRTC refused the long long as ambiguous).
    const top = reduction({
      inputs: ["x"],
      output: "u32",
      map: "4294967295",
      combine: "max(a, b)",
      identity: "0u",
    });
    for (const client of [webgpu, cuda]) {
      using x = client.createWithData(new Float32Array(5));
      using out = top.run(client, { x });
      assert.deepEqual([...await client.read(out)], [4294967295]);
    }
  },
});
