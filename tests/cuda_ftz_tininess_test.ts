/**
 * `.ftz` decides the flush of an f32 result by its exact value, before rounding: an exact result
 * below 2^-126 in magnitude is a zero of its sign even where rounding (to nearest, or up) would
 * give 2^-126. An H100 (driver 580.159.04) gave +0 for `mul.ftz.f32`, `mul.rn/rp.ftz.f32` and
 * `fma.rn/rp.ftz.f32` of 2^-126 and 1 - 2^-24 (exact 2^-126 - 2^-150; tests/cuda_ptx_fuzz_test.ts,
 * the edge matrix with -ftz=true), where the simulator and the fuzzer's reference gave 2^-126.
 * `div`, `rcp` and `cvt.f32.f64` are assumed alike (not seen on a device). Every result here is
 * the same whether tininess is taken before rounding or after it as IEEE 754 defines it (with an
 * unbounded exponent); tests/cuda_ptx_fuzz_test.ts's GPU-only checks hold the cases that differ.
 * Results at or above 2^-126 stay exact. The reference: tests/_cuda_fuzz_ops_cvt.ts's
 * `flushResult` over the correctly rounded results of tests/_cuda_float_ref.ts.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { bitsf32, div, f32bits, fma, type Mode, mul, narrow } from "./_cuda_float_ref.ts";
import { flush, flushResult } from "./_cuda_fuzz_ops_cvt.ts";

const ignore = nvrtcSkip !== undefined;

const MODES: readonly Mode[] = ["rn", "rz", "rd", "ru"];
const PTX_MODE: Record<Mode, string> = { rn: "rn", rz: "rz", rd: "rm", ru: "rp" };
const N = 2 ** -126;
/** Each row: the f32 bits of a, b, c, and a double d; every operation runs on every row. */
const ROWS: [number, number, number, number][] = [
  // a * b, fma(a, b, +0) and d: 2^-126 - 2^-150, which rounds to 2^-126 to nearest and up
  [0x00800000, 0x3f7fffff, 0x00000000, N - 2 ** -150],
  [0x80800000, 0x3f7fffff, 0x80000000, -(N - 2 ** -150)], // negative: -0
  // a / b: 2^-126 / (1 + 2^-23), up to 2^-126; d just above 2^-126: toward zero 2^-126, kept
  [0x00800000, 0x3f800001, 0x00000000, N + 2 ** -160],
  // 1 / a: 2^-126 / (1 + 2^-23) again; a / b, a * b: a; d: 2^-126 exactly, kept
  [0x7e800001, 0x3f800000, 0x00000000, N],
  [0xfe800001, 0x3f800000, 0x80000000, -N],
  // a / b: 2^-126 - 2^-150; d: 2^-126 - 2^-149, a subnormal in every mode
  [0x3f7fffff, 0x7e800000, 0x00000000, N - 2 ** -149],
  // a * b, fma(a, b, +0): 2^-126 + 2^-150 - 2^-173, to nearest, toward zero and down 2^-126, kept
  [0x3f000001, 0x00ffffff, 0x00000000, N + 2 ** -156],
  // 1 / a: just above 2^-126 (toward zero and down: 2^-126, kept); fma: c is flushed, so a * b
  [0x7e7fffff, 0x00800000, 0x80000001, 2 ** -125],
];
const OPS = ["mul", "fma", "div", "rcp", "cvt"] as const;

/**
 * The reference: the result of `op` on the flushed inputs correctly rounded (`rounded`), and its
 * bits as `.ftz` flushes it (`flushResult`).
 */
function want(op: (typeof OPS)[number], m: Mode, [a, b, c, d]: [number, number, number, number]) {
  const [x, y, z] = [a, b, c].map((v) => flush(bitsf32(v)));
  const [name, args, r] = op === "mul"
    ? [`mul.${m}.f32`, [x, y], mul(x, y, m)]
    : op === "fma"
    ? [`fma.${m}.f32`, [x, y, z], fma(x, y, z, m)]
    : op === "div"
    ? [`div.${m}.f32`, [x, y], div(x, y, m)]
    : op === "rcp"
    ? [`rcp.${m}.f32`, [x], div(1, x, m)]
    : [`cvt.${m}.f32.f64`, [d], narrow(d, m)];
  return { bits: f32bits(flushResult(name, args, r)), rounded: r };
}

Deno.test({
  name: nvrtcName(
    ".ftz flushes an f32 result whose exact value is below 2^-126 (before rounding): mul, fma, " +
      "div, rcp and cvt.f32.f64 in every rounding mode give a zero of its sign where rounding " +
      "would reach 2^-126 (an H100); results at or above 2^-126 stay exact",
  ),
  ignore,
  async fn() {
    // the fact measured, in the reference itself: +0, where rounding alone gives 2^-126
    assert.equal(mul(N, 1 - 2 ** -24, "rn"), N);
    assert.ok(Object.is(flushResult("mul.rn.f32", [N, 1 - 2 ** -24], N), 0));
    assert.equal(flushResult("mul.rn.f32", [N, 1], N), N);
    using client = await simulatedCudaClient();
    const asm = (op: string, m: string, ins: string) =>
      `asm("${op}.${m}.ftz.f32${op === "cvt" ? ".f64" : ""} ${ins};"`;
    const lines = MODES.flatMap((mode, k) => {
      const m = PTX_MODE[mode], o = `o + i * ${OPS.length * MODES.length} + ${k * OPS.length}`;
      return [
        `  ${
          asm("mul", m, "%0, %1, %2")
        } : "=f"(r) : "f"(a), "f"(b)); (${o})[0] = __float_as_uint(r);`,
        `  ${
          asm("fma", m, "%0, %1, %2, %3")
        } : "=f"(r) : "f"(a), "f"(b), "f"(c)); (${o})[1] = __float_as_uint(r);`,
        `  ${
          asm("div", m, "%0, %1, %2")
        } : "=f"(r) : "f"(a), "f"(b)); (${o})[2] = __float_as_uint(r);`,
        `  ${asm("rcp", m, "%0, %1")} : "=f"(r) : "f"(a)); (${o})[3] = __float_as_uint(r);`,
        `  ${asm("cvt", m, "%0, %1")} : "=f"(r) : "d"(d)); (${o})[4] = __float_as_uint(r);`,
      ];
    });
    const source = `extern "C" __global__ void k(const unsigned* F, const double* D, unsigned* o) {
  unsigned i = threadIdx.x;
  float a = __uint_as_float(F[3 * i]), b = __uint_as_float(F[3 * i + 1]), c = __uint_as_float(F[3 * i + 2]), r;
  double d = D[i];
${lines.join("\n")}
}`;
    const n = ROWS.length, per = OPS.length * MODES.length;
    const [, , out] = await launch(client, { source, entryPoint: "k", blockSize: [n, 1, 1] }, n, [
      Uint32Array.from(ROWS.flatMap(([a, b, c]) => [a, b, c])),
      Float64Array.from(ROWS, (r) => r[3]),
      new Uint32Array(n * per),
    ]);
    const bad: string[] = [], at = new Set<string>(), kept = new Set<string>();
    ROWS.forEach((row, i) =>
      MODES.forEach((m, k) =>
        OPS.forEach((op, j) => {
          const got = out[i * per + k * OPS.length + j], { bits: w, rounded } = want(op, m, row);
          // rounded to 2^-126: flushed (exact below it) or kept (exact at or above it)
          if (Math.abs(rounded) === N) ((w & 0x7fffffff) === 0 ? at : kept).add(`${op}.${m}`);
          if (got !== w) {
            bad.push(
              `row ${i} ${op}.${PTX_MODE[m]}.ftz: got 0x${got.toString(16)}, want 0x${
                w.toString(16)
              }`,
            );
          }
        })
      )
    );
    assert.deepEqual(bad, []);
    // every operation meets both sides of 2^-126 in the modes that round to it from below and
    // above (but rcp.rn: 1 / x is below 2^-126 - 2^-150 for every f32 x above 2^126)
    const each = (set: Set<string>, modes: Mode[]) =>
      OPS.flatMap((op) => modes.map((m) => `${op}.${m}`)).filter((s) => !set.has(s));
    assert.deepEqual(each(at, ["rn", "ru"]), ["rcp.rn"]);
    assert.deepEqual(each(kept, ["rz", "rd"]), []);
  },
});
