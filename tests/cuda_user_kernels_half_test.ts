/**
 * Half-precision conversions as user kernels write them in inline PTX (the NVRTC here has no
 * `<cuda_fp16.h>`; nvcc's PTX of `__float2half_rn` and friends is the same `cvt`): `.f16` and
 * `.bf16` in every rounding mode, the packed `.f16x2`/`.bf16x2` of two floats, the widening back
 * and a rounding to an integer, run by the simulator's PTX interpreter against references made
 * here independently (`Math.f16round` and one-ulp steps for `.f16`, bit arithmetic for `.bf16`).
 * And the arithmetic (`add sub mul fma neg abs`, `.sat`, `.ftz`, packed pairs) as `__hadd`,
 * `__hfma2` and friends write it, exact to the PTX ISA's single rounding; what else is refused at
 * load, naming the instruction.
 */
import assert from "node:assert/strict";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

const f16Bits = (v: number) => new Uint16Array(new Float16Array([v]).buffer)[0];
const f16Value = (bits: number) => new Float16Array(new Uint16Array([bits]).buffer)[0];
const f32Bits = (v: number) => new Uint32Array(new Float32Array([v]).buffer)[0];
const f32Value = (bits: number) => new Float32Array(new Uint32Array([bits]).buffer)[0];

/** v (an f32) to .f16 bits in mode rn/rz/rm/rp: the nearest, then one ulp toward the mode. */
function toF16(v: number, mode: "rn" | "rz" | "rm" | "rp"): number {
  if (Number.isNaN(v)) return 0x7fff;
  const r = f16Bits(v), got = f16Value(r);
  if (mode === "rn" || got === v) return r;
  const up = mode === "rp" || (mode === "rz" && got < 0); // the direction the result must go
  if (mode === "rz" ? Math.abs(got) <= Math.abs(v) : up ? got >= v : got <= v) return r;
  const negative = (r & 0x8000) !== 0;
  return negative === up ? r - 1 : r + 1; // magnitude down when going toward zero
}

/** v (an f32) to .bf16 bits: round to nearest even, or truncate (.rz). */
function toBf16(v: number, mode: "rn" | "rz"): number {
  if (Number.isNaN(v)) return 0x7fff;
  const bits = f32Bits(v);
  return mode === "rz" ? bits >>> 16 : ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The nearest integer, ties to even. */
const evenRound = (v: number) => v - Math.floor(v) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v);

const cases = [
  0,
  -0,
  1 / 3,
  -2.7,
  65504,
  65519,
  65520,
  -65520,
  1e6,
  1e-8,
  3e-8,
  -3e-8,
  6.1e-5,
  1 + 2 ** -11, // a tie: to even
  1 + 3 * 2 ** -11,
  Infinity,
  -Infinity,
  NaN,
  3.4e38,
  ...Array.from({ length: 45 }, (_, i) => Math.sin(i * 1.7) * 10 ** ((i % 9) - 4)),
].map(Math.fround);

Deno.test({
  name: nvrtcName(
    "half conversions: cvt to .f16/.bf16 in every mode, packed pairs, back to f32 and to int",
  ),
  ignore,
  async fn() {
    // cvt.f32.bf16 needs sm_90: a device of compute capability 9.0
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      const n = cases.length;
      const [, h, back] = await launch(
        client,
        {
          source: `
extern "C" __global__ void k(const float* x, unsigned* h, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  unsigned short rn, rz, rm, rp, b, bz;
  unsigned p, pb;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(rn) : "f"(v));
  asm("cvt.rz.f16.f32 %0, %1;" : "=h"(rz) : "f"(v));
  asm("cvt.rm.f16.f32 %0, %1;" : "=h"(rm) : "f"(v));
  asm("cvt.rp.f16.f32 %0, %1;" : "=h"(rp) : "f"(v));
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(v));
  asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(bz) : "f"(v));
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(v), "f"(-v));
  asm("cvt.rz.bf16x2.f32 %0, %1, %2;" : "=r"(pb) : "f"(v * 0.5f), "f"(v));
  unsigned* o = h + 8 * i;
  o[0] = rn; o[1] = rz; o[2] = rm; o[3] = rp; o[4] = b; o[5] = bz; o[6] = p; o[7] = pb;
  float f1, f2;
  int r;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f1) : "h"(rn));
  asm("cvt.f32.bf16 %0, %1;" : "=f"(f2) : "h"(b));
  asm("cvt.rni.s32.f16 %0, %1;" : "=r"(r) : "h"(rz));
  back[3 * i] = f1; back[3 * i + 1] = f2; back[3 * i + 2] = (float)r;
}`,
          blockSize: [32, 1, 1],
        },
        n,
        [Float32Array.from(cases), new Uint32Array(8 * n), new Float32Array(3 * n)],
        { n },
      );
      const failures: string[] = [];
      cases.forEach((v, i) => {
        const half = Math.fround(v * 0.5);
        const want = [
          toF16(v, "rn"),
          toF16(v, "rz"),
          toF16(v, "rm"),
          toF16(v, "rp"),
          toBf16(v, "rn"),
          toBf16(v, "rz"),
          ((toF16(v, "rn") << 16) | toF16(-v, "rn")) >>> 0,
          ((toBf16(half, "rz") << 16) | toBf16(v, "rz")) >>> 0,
        ];
        const got = Array.from(h.subarray(8 * i, 8 * i + 8));
        if (got.some((g, k) => g !== want[k])) {
          failures.push(
            `${v}: got ${got.map((g) => g.toString(16))}, want ${want.map((w) => w.toString(16))}`,
          );
        }
        const rz = f16Value(toF16(v, "rz"));
        const wantBack = [
          f16Value(toF16(v, "rn")),
          f32Value(toBf16(v, "rn") << 16),
          // cvt.rni.s32: to the nearest integer, ties to even; NaN to 0; clamped to the range
          // (then to float in the kernel)
          Number.isNaN(rz) ? 0 : Math.fround(
            Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, evenRound(rz))) + 0,
          ),
        ];
        const gotBack = Array.from(back.subarray(3 * i, 3 * i + 3));
        if (gotBack.some((g, k) => !Object.is(g, wantBack[k]))) {
          failures.push(`${v} back: got ${gotBack}, want ${wantBack}`);
        }
      });
      assert.deepEqual(failures, []);
    });
  },
});

Deno.test({
  name: nvrtcName(
    "half precision: max, a rounding other than .rn and a conversion from an integer are refused at " +
      "load (the simulator's limits: ignored on a real driver, which runs them)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    // compute capability 8.0: `max.f16` needs .target sm_80 (PTX ISA, "Half Precision Floating
    // Point Instructions: max"); below it ptxas and the simulator refuse it for that reason
    await withSimEnv({ CUDA_SIM_CC: "80" }, () => refusedForms());
  },
});

/** The forms the simulator does not implement: each refused at load, naming it. */
async function refusedForms() {
  using client = await simulatedCudaClient();
  for (
    const [asm, pattern] of [
      [
        `asm("max.f16 %0, %1, %1;" : "=h"(h) : "h"(h));`,
        /cuda_sim does not implement the \.f16\/\.bf16 instruction 'max\.f16 %rs\d+, %rs\d+, %rs\d+'/,
      ],
      [
        `asm("add.rz.f16x2 %0, %1, %1;" : "=r"(w) : "r"(w));`,
        /cuda_sim does not implement the \.f16\/\.bf16 instruction 'add\.rz\.f16x2/,
      ],
      [
        `asm("cvt.rn.f16.s32 %0, %1;" : "=h"(h) : "r"(w));`,
        /cuda_sim does not implement the conversion 'cvt\.rn\.f16\.s32/,
      ],
    ] as const
  ) {
    const kernel: CudaKernel = {
      source: `extern "C" __global__ void k(unsigned* x) {
  unsigned short h = (unsigned short)x[0]; unsigned w = x[1];
  ${asm}
  x[2] = h + w;
}`,
    };
    await assert.rejects(launch(client, kernel, 1, [new Uint32Array(4)]), pattern);
  }
}

/** The nearest .bf16 to v (a double), ties to even: its bits. */
function bf16Of(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return toBf16(v, "rn");
  let e = Math.floor(Math.log2(Math.abs(v)));
  if (2 ** e > Math.abs(v)) e--;
  if (2 ** (e + 1) <= Math.abs(v)) e++;
  const q = 2 ** (Math.max(e, -126) - 7), n = Math.abs(v) / q, r = Math.floor(n);
  const m = n - r > 0.5 || (n - r === 0.5 && r % 2 === 1) ? r + 1 : r;
  return toBf16(Math.sign(v) * m * q, "rz"); // exact: m * q is a .bf16 value
}
const bf16Value = (bits: number) => f32Value(bits << 16);

Deno.test({
  name: nvrtcName(
    "half precision arithmetic: add/sub/mul/fma/neg/abs in .f16, .f16x2, .bf16, .bf16x2, .sat and .ftz",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      // operands: .f16 values of 2^-8 .. 2^8 (their sums and products are exact in a double),
      // and the cases the rounding decides
      const n = 64;
      const pick = (i: number, k: number) =>
        Math.fround(Math.sin(i * 7.3 + k) * 2 ** (((i * 5 + k * 3) % 17) - 8));
      const a = Array.from({ length: n }, (_, i) => Math.f16round(pick(i, 1)));
      const b = Array.from({ length: n }, (_, i) => Math.f16round(pick(i, 2)));
      const c = Array.from({ length: n }, (_, i) => Math.f16round(pick(i, 3)));
      a[0] = 65504, b[0] = 65504, c[0] = -65504; // overflow to infinity
      a[1] = 1, b[1] = 2 ** -24, c[1] = 2 ** -24; // subnormals (flushed under .ftz)
      a[2] = Infinity, b[2] = -Infinity, c[2] = 0; // NaN results
      const bits = (xs: number[]) => Uint32Array.from(xs, f16Bits);
      const [, , , out] = await launch(
        client,
        {
          source: `
extern "C" __global__ void k(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short x = a[i], y = b[i], z = c[i], r[9];
  asm("add.f16 %0, %1, %2;" : "=h"(r[0]) : "h"(x), "h"(y));
  asm("sub.rn.f16 %0, %1, %2;" : "=h"(r[1]) : "h"(x), "h"(y));
  asm("mul.f16 %0, %1, %2;" : "=h"(r[2]) : "h"(x), "h"(y));
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r[3]) : "h"(x), "h"(y), "h"(z));
  asm("neg.f16 %0, %1;" : "=h"(r[4]) : "h"(x));
  asm("abs.f16 %0, %1;" : "=h"(r[5]) : "h"(y));
  asm("add.sat.f16 %0, %1, %2;" : "=h"(r[6]) : "h"(x), "h"(y));
  asm("mul.ftz.f16 %0, %1, %2;" : "=h"(r[7]) : "h"(x), "h"(y));
  unsigned xy = (unsigned)x << 16 | y, zz = (unsigned)z << 16 | z, p;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(p) : "r"(xy), "r"(xy), "r"(zz));
  for (int k = 0; k < 8; k++) o[9 * i + k] = r[k];
  o[9 * i + 8] = p;
}`,
          blockSize: [32, 1, 1],
        },
        n,
        [bits(a), bits(b), bits(c), new Uint32Array(9 * n)],
        { n },
      );
      const f = Math.f16round;
      const nan = (v: number) => Number.isNaN(v) ? 0x7fff : f16Bits(v);
      const flush = (v: number) =>
        Math.abs(v) < 2 ** -14 ? 0 * Math.sign(v) || (Object.is(v, -0) || v < 0 ? -0 : 0) : v;
      const failures: string[] = [];
      for (let i = 0; i < n; i++) {
        const [x, y, z] = [a[i], b[i], c[i]];
        const sat = (v: number) => Number.isNaN(v) ? 0 : Math.min(Math.max(v, 0), 1);
        const want = [
          nan(f(x + y)),
          nan(f(x - y)),
          nan(f(x * y)),
          nan(f(x * y + z)),
          f16Bits(-x),
          f16Bits(Math.abs(y)),
          f16Bits(sat(f(x + y))),
          nan(flush(f(flush(x) * flush(y)))),
          ((nan(f(x * x + z)) << 16) | nan(f(y * y + z))) >>> 0,
        ];
        const got = Array.from(out.subarray(9 * i, 9 * i + 9));
        if (got.some((g, k) => g !== want[k])) {
          failures.push(
            `${x}, ${y}, ${z}: got ${got.map((g) => g.toString(16))}, want ${
              want.map((w) => w.toString(16))
            }`,
          );
        }
      }
      assert.deepEqual(failures, []);

      // .bf16: 7 * 37 = 259 lies halfway between the .bf16 values 258 and 260, 9 * 29 = 261
      // between 260 and 262; a tiny c decides. Rounding to a double first (to nearest, or toward
      // zero without keeping the lost bits) lands on the tie and rounds to even, one way wrong.
      const x2 = [7, 7, 9, 1.5, -3.25, 2 ** 100, 0.1];
      const y2 = [37, 37, 29, 1.5, 0.75, 2 ** 100, 0.3];
      const z2 = [2 ** -100, -(2 ** -100), 2 ** -100, 0.5, 1, -(2 ** 120), 0.2].map((v) =>
        bf16Value(bf16Of(v))
      );
      const bfBits = (xs: number[]) => Uint32Array.from(xs, bf16Of);
      const [, , , bo] = await launch(
        client,
        {
          source: `
extern "C" __global__ void k(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* o, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  unsigned short x = a[i], y = b[i], z = c[i], r[3];
  asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r[0]) : "h"(x), "h"(y), "h"(z));
  asm("add.bf16 %0, %1, %2;" : "=h"(r[1]) : "h"(x), "h"(z));
  asm("mul.rn.bf16 %0, %1, %2;" : "=h"(r[2]) : "h"(x), "h"(y));
  unsigned xz = (unsigned)x << 16 | z, yy = (unsigned)y << 16 | y, p;
  asm("mul.bf16x2 %0, %1, %2;" : "=r"(p) : "r"(xz), "r"(yy));
  o[4 * i] = r[0]; o[4 * i + 1] = r[1]; o[4 * i + 2] = r[2]; o[4 * i + 3] = p;
}`,
          blockSize: [32, 1, 1],
        },
        x2.length,
        [bfBits(x2), bfBits(y2), Uint32Array.from(z2, bf16Of), new Uint32Array(4 * x2.length)],
        {
          n: x2.length,
        },
      );
      const bx = x2.map((v) => bf16Value(bf16Of(v))), by = y2.map((v) => bf16Value(bf16Of(v)));
      assert.deepEqual([bo[0], bo[4], bo[8]].map(bf16Value), [260, 258, 262]); // the first fmas
      assert.deepEqual(
        Array.from(bo),
        bx.flatMap((x, i) => [
          i < 3 ? bf16Of([260, 258, 262][i]) : bf16Of(x * by[i] + z2[i]),
          bf16Of(x + z2[i]),
          bf16Of(x * by[i]),
          ((bf16Of(x * by[i]) << 16) | bf16Of(z2[i] * by[i])) >>> 0,
        ]),
      );
    });
  },
});
