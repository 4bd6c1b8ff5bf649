/**
 * Half-precision conversions as user kernels write them in inline PTX (the NVRTC here has no
 * `<cuda_fp16.h>`; nvcc's PTX of `__float2half_rn` and friends is the same `cvt`): `.f16` and
 * `.bf16` in every rounding mode, the packed `.f16x2`/`.bf16x2` of two floats, the widening back
 * and a rounding to an integer, run by the simulator's PTX interpreter against references made
 * here independently (`Math.f16round` and one-ulp steps for `.f16`, bit arithmetic for `.bf16`).
 * Arithmetic in these formats is refused at load, naming the instruction.
 */
import assert from "node:assert/strict";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
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
    "half conversions: .f16 arithmetic and a conversion from an integer are refused at load",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    for (
      const [asm, pattern] of [
        [
          `asm("add.f16 %0, %1, %1;" : "=h"(h) : "h"(h));`,
          /cuda_sim does not implement \.f16\/\.bf16 arithmetic \('add\.f16 %rs\d+, %rs\d+, %rs\d+'\)/,
        ],
        [
          `asm("fma.rn.f16x2 %0, %1, %1, %1;" : "=r"(w) : "r"(w));`,
          /cuda_sim does not implement \.f16\/\.bf16 arithmetic \('fma\.rn\.f16x2/,
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
  },
});
