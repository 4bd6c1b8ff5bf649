/**
 * The runtime's const-expression values are naga's bit for bit (seventeenth QA wave).
 *
 * Deno's naga evaluates f32 builtins in f32 (`inverseSqrt` as `1 / sqrt(x)` rounded twice,
 * `degrees` with 180/π as an f32, `fma` rounded once), `length`, `distance` and `normalize` of
 * abstract vectors in f32, and takes the trigonometric and hyperbolic functions from the
 * platform's math library. The runtime's evaluator computed them in f64 and rounded once: 1 ulp
 * apart for 93 of 1520 f32 expressions and 268 of 1520 abstract ones, which a size or count that
 * converts the value to an integer can turn into another integer. Each expression here is
 * evaluated by plain WebGPU (a kernel writes it) and by the runtime: equal bits, or the runtime
 * refuses it by name (the functions naga takes from the math library).
 */
import assert from "node:assert/strict";
import {
  ConstEvalError,
  evaluateConst,
} from "../runtime/server/webgpu/compile/consts/_const_eval.ts";
import { constScope } from "../runtime/server/webgpu/compile/consts/_const_scope.ts";
import { LIBM_BUILTINS } from "../runtime/server/webgpu/compile/consts/_const_builtins.ts";
import { runPlain } from "./_plain_webgpu.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** Builtins of one float and the arguments they take (k = 0..39). */
const ONE: readonly [string, (k: number) => number][] = [
  ["sin", (k) => k * 0.37 - 7],
  ["cos", (k) => k * 0.37 - 7],
  ["tan", (k) => k * 0.07 - 1.4],
  ["asin", (k) => k / 41 - 0.97],
  ["acos", (k) => k / 41 - 0.97],
  ["atan", (k) => k * 0.5 - 10.1],
  ["sinh", (k) => k * 0.2 - 4.1],
  ["cosh", (k) => k * 0.2 - 4.1],
  ["tanh", (k) => k * 0.2 - 4.1],
  ["asinh", (k) => k * 0.5 - 10.1],
  ["acosh", (k) => 1.1 + k * 0.3],
  ["atanh", (k) => k / 41 - 0.97],
  ["exp", (k) => k * 0.3 - 6.1],
  ["exp2", (k) => k * 0.3 - 6.1],
  ["log", (k) => 0.01 + k * 0.77],
  ["log2", (k) => 0.01 + k * 0.77],
  ["sqrt", (k) => k * 0.77],
  ["inverseSqrt", (k) => 0.01 + k * 0.77],
  ["degrees", (k) => k * 0.37 - 7.1],
  ["radians", (k) => k * 7.1 - 100],
  ["fract", (k) => k * 0.37 - 7.1],
  ["round", (k) => k * 0.25 - 5],
  ["saturate", (k) => k * 0.05 - 1],
];

/** The expressions, literals suffixed `s` ("f": f32, "": abstract). */
function expressions(s: string): string[] {
  const v = s === "f" ? "f" : "";
  const n = (x: number) => `${x.toPrecision(9)}${s}`;
  const out: string[] = [];
  for (const [f, arg] of ONE) for (let k = 0; k < 40; k++) out.push(`${f}(${n(arg(k))})`);
  for (let k = 0; k < 40; k++) {
    out.push(
      `pow(${n(0.1 + k * 0.37)}, ${n(k * 0.13 - 2.1)})`,
      `atan2(${n(k * 0.37 - 7.1)}, ${n(3.1 - k * 0.21)})`,
      `fma(${n(k * 0.37 - 7.1)}, ${n(3.1 - k * 0.21)}, 0.1${s})`,
      `length(vec3${v}(${n(k * 0.3)}, ${n(1 + k * 0.1)}, 0.7${s}))`,
      `distance(vec2${v}(${n(k * 0.3)}, 1.1${s}), vec2${v}(0.3${s}, ${n(k * 0.7)}))`,
      `normalize(vec2${v}(${n(k * 0.3 + 0.1)}, 1.1${s})).x`,
      `dot(vec3${v}(${n(k * 0.3)}, 1.1${s}, 0.37${s}), vec3${v}(0.3${s}, ${n(k * 0.7)}, 2.9${s}))`,
      `(mat2x2${v}(0.1${s}, 0.7${s}, ${n(k * 0.13)}, 0.3${s}) * vec2${v}(1.7${s}, ${
        n(k * 0.9)
      })).y`,
      `cross(vec3${v}(${n(k * 0.3)}, 1.1${s}, 0.37${s}), vec3${v}(0.3${s}, ${
        n(k * 0.7)
      }, 2.9${s})).z`,
    );
  }
  return out;
}

/** The runtime's value, or `undefined` where it refuses a math-library builtin by name. */
function ours(expression: string): number | undefined {
  try {
    return evaluateConst(expression, constScope(new Map(), new Map())).value;
  } catch (e) {
    const name = /^(\w+)\(/.exec(expression)?.[1] ?? "";
    assert.ok(e instanceof ConstEvalError, `${expression}: ${e}`);
    assert.ok(name in LIBM_BUILTINS && e.message.includes("math library"), `${expression}: ${e}`);
    return undefined;
  }
}

/** What a kernel that writes `f32(value_k)` for each `value` writes. */
async function plain(values: readonly string[]): Promise<Float32Array> {
  const code = `@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() {
${values.map((e, k) => `  out[${k}] = f32(${e});`).join("\n")}
}`;
  const binding = { group: 0, binding: 0, buffer: new Float32Array(values.length) };
  const [bytes] = await runPlain(code, [binding], [1]);
  return new Float32Array(bytes.buffer);
}

Deno.test({
  name: "f32 const builtins: the runtime's values are naga's bits, or refused by name",
  ignore,
  async fn() {
    const all = expressions("f");
    const naga = await plain(all);
    let refused = 0;
    all.forEach((e, k) => {
      const value = ours(e);
      if (value === undefined) return void refused++;
      assert.ok(Object.is(Math.fround(value), naga[k]), `${e}: naga ${naga[k]}, runtime ${value}`);
    });
    // The 13 math-library functions of f32, 40 arguments each (atan2 among the pairs), and
    // exp, exp2, log, log2, pow where the value is not exact (wave 18): all but exp2 of -4, -1,
    // 2 and 5.
    assert.equal(refused, 18 * 40 - 4);
  },
});

Deno.test({
  name: "abstract-float const builtins: the runtime's values are naga's f64 bits",
  ignore,
  async fn() {
    // naga computes `(e - v) * 2^50 / |v|` in f64: 0 exactly when its e is the runtime's v.
    const all = expressions("");
    const kept = all.map((e) => [e, ours(e)] as const).filter(([, v]) => v !== undefined);
    const naga = await plain(
      kept.map(([e, v]) =>
        `(${e} - ${v!.toPrecision(17)}) / ${Math.abs(v!) || 1} * 1125899906842624.0`
      ),
    );
    // (=== 0: a -0 there is the sign of 0, which `toPrecision` does not write.)
    kept.forEach(([e, v], k) => assert.ok(naga[k] === 0, `${e}: the runtime's ${v} is not naga's`));
    // The 6 hyperbolic functions are refused for abstract floats too, and the other 12 of the
    // math library (glibc's values, one ulp from V8's for some arguments) where the value is
    // not exact: all but exp2 of -4, -1, 2 and 5.
    assert.equal(all.length - kept.length, 18 * 40 - 4);
  },
});
