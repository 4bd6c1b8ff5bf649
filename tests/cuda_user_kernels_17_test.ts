/**
 * User CUDA C, QA wave 12 (continued): the SIMD video instructions (`vadd4 vsub4 vavrg4
 * vabsdiff4 vmin4 vmax4`), which NVRTC emits for `__vabsdiffu4`, `__vsadu4` and `__vabsdiffs4`
 * and which cuda-samples' stereoDisparity writes in inline PTX (`vabsdiff4.u32.u32.u32.add`):
 * the sample's kernel against its CPU gold, the intrinsics against byte-wise references, and
 * every form (types, `.sat`, `.add`, the destination mask, byte selectors) against a reference
 * written from the PTX ISA's pseudocode.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

/** `n` deterministic 32-bit words, bytes biased to edge values (0, 1, 0x7f, 0x80, 0xff). */
function words(n: number, seed: number): Uint32Array {
  let s = seed >>> 0;
  const edge = [0, 1, 0x7f, 0x80, 0xff];
  return Uint32Array.from({ length: n }, () => {
    let w = 0;
    for (let k = 0; k < 4; k++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      const byte = (s >>> 24) % 3 === 0 ? edge[(s >>> 8) % 5] : (s >>> 16) & 0xff;
      w |= byte << (8 * k);
    }
    return w >>> 0;
  });
}

// Samples/5_Domain_Specific/stereoDisparity/stereoDisparity_kernel.cuh (NVIDIA/cuda-samples
// ca37378): cg::sync(cta) as __syncthreads(); the two texture objects (point sampling, clamped
// addressing of the images g_img0 and g_img1, which the kernel already takes) as a struct made in
// the kernel, read by a tex2D template of the same call syntax.
const STEREO = `#define blockSize_x 32
#define blockSize_y 8
#define RAD 8
#define STEPS 3

struct ClampedImage { const unsigned int *p; int w, h; };
template <class T>
__device__ T tex2D(ClampedImage t, int x, int y) {
  x = x < 0 ? 0 : x >= t.w ? t.w - 1 : x;
  y = y < 0 ? 0 : y >= t.h ? t.h - 1 : y;
  return t.p[y * t.w + x];
}

__device__ unsigned int __usad4(unsigned int A, unsigned int B,
                                unsigned int C = 0) {
  unsigned int result;
  asm(
      "vabsdiff4.u32.u32.u32.add"
      " %0, %1, %2, %3;"
      : "=r"(result)
      : "r"(A), "r"(B), "r"(C));
  return result;
}

__global__ void stereoDisparityKernel(unsigned int *g_img0,
                                      unsigned int *g_img1,
                                      unsigned int *g_odata, int w, int h,
                                      int minDisparity, int maxDisparity) {
  ClampedImage tex2Dleft = {g_img0, w, h}, tex2Dright = {g_img1, w, h};
  const int tidx = blockDim.x * blockIdx.x + threadIdx.x;
  const int tidy = blockDim.y * blockIdx.y + threadIdx.y;
  const unsigned int sidx = threadIdx.x + RAD;
  const unsigned int sidy = threadIdx.y + RAD;
  unsigned int imLeft;
  unsigned int imRight;
  unsigned int cost;
  unsigned int bestCost = 9999999;
  unsigned int bestDisparity = 0;
  __shared__ unsigned int diff[blockSize_y + 2 * RAD][blockSize_x + 2 * RAD];
  unsigned int imLeftA[STEPS];
  unsigned int imLeftB[STEPS];
  for (int i = 0; i < STEPS; i++) {
    int offset = -RAD + i * RAD;
    imLeftA[i] = tex2D<unsigned int>(tex2Dleft, tidx - RAD, tidy + offset);
    imLeftB[i] =
        tex2D<unsigned int>(tex2Dleft, tidx - RAD + blockSize_x, tidy + offset);
  }
  for (int d = minDisparity; d <= maxDisparity; d++) {
#pragma unroll
    for (int i = 0; i < STEPS; i++) {
      int offset = -RAD + i * RAD;
      imLeft = imLeftA[i];
      imRight = tex2D<unsigned int>(tex2Dright, tidx - RAD + d, tidy + offset);
      cost = __usad4(imLeft, imRight);
      diff[sidy + offset][sidx - RAD] = cost;
    }
#pragma unroll
    for (int i = 0; i < STEPS; i++) {
      int offset = -RAD + i * RAD;
      if (threadIdx.x < 2 * RAD) {
        imLeft = imLeftB[i];
        imRight = tex2D<unsigned int>(tex2Dright, tidx - RAD + blockSize_x + d,
                                      tidy + offset);
        cost = __usad4(imLeft, imRight);
        diff[sidy + offset][sidx - RAD + blockSize_x] = cost;
      }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < STEPS; j++) {
      int offset = -RAD + j * RAD;
      cost = 0;
#pragma unroll
      for (int i = -RAD; i <= RAD; i++) {
        cost += diff[sidy + offset][sidx + i];
      }
      __syncthreads();
      diff[sidy + offset][sidx] = cost;
      __syncthreads();
    }
    cost = 0;
#pragma unroll
    for (int i = -RAD; i <= RAD; i++) {
      cost += diff[sidy + i][sidx];
    }
    if (cost < bestCost) {
      bestCost = cost;
      bestDisparity = d + 8;
    }
    __syncthreads();
  }
  if (tidy < h && tidx < w) {
    g_odata[tidy * w + tidx] = bestDisparity;
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples stereoDisparity: block matching with vabsdiff4.u32.u32.u32.add in inline PTX, " +
      "against the sample's cpu_gold_stereo",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const w = 64, h = 16, minD = -5, maxD = 0, shift = 3;
    // a right image that is the left one moved `shift` pixels left, with noise in the low bits
    const left = words(w * h, 3);
    const noise = words(w * h, 4);
    const right = Uint32Array.from(
      { length: w * h },
      (_, i) => {
        const x = i % w, y = Math.floor(i / w);
        const src = left[y * w + Math.max(0, Math.min(w - 1, x + shift))];
        return (src & 0xf0f0f0f0 | noise[i] & 0x03030303) >>> 0;
      },
    );
    const [, , got] = await launch(
      client,
      { source: STEREO, entryPoint: "stereoDisparityKernel", blockSize: [32, 8, 1] },
      [w, h],
      [left, right, new Uint32Array(w * h)],
      { w, h, minDisparity: minD, maxDisparity: maxD },
    );
    const clamp = (v: number, n: number) => (v < 0 ? 0 : v >= n ? n - 1 : v);
    const want = new Uint32Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let bestCost = 9999999, best = 0;
        for (let d = minD; d <= maxD; d++) {
          let cost = 0;
          for (let i = -8; i <= 8; i++) {
            for (let j = -8; j <= 8; j++) {
              const yy = clamp(y + i, h);
              const A = left[yy * w + clamp(x + j, w)], B = right[yy * w + clamp(x + j + d, w)];
              for (let k = 0; k < 32; k += 8) cost += Math.abs((A >>> k & 0xff) - (B >>> k & 0xff));
            }
          }
          if (cost < bestCost) bestCost = cost, best = d + 8;
        }
        want[y * w + x] = best;
      }
    }
    assert.deepEqual(got, want);
    // the match is found: the shift, for pixels away from the left edge
    assert.equal(got[5 * w + 40], 8 - shift);
  },
});

type Form = {
  types: [string, string, string];
  sat?: boolean;
  add?: boolean;
  mask?: string;
  asel?: string;
  bsel?: string;
};
const OPS = ["vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"];
const FORMS: Form[] = [
  { types: ["u32", "u32", "u32"] },
  { types: ["s32", "s32", "s32"], sat: true },
  { types: ["u32", "s32", "u32"], sat: true },
  { types: ["s32", "u32", "s32"], add: true },
  { types: ["u32", "u32", "u32"], mask: "b20", asel: "b4567", bsel: "b0123" },
  { types: ["s32", "s32", "s32"], add: true, mask: "b31", asel: "b7250", bsel: "b1111" },
];
const asm = (op: string, f: Form) =>
  `${op}.${f.types.join(".")}${f.sat ? ".sat" : ""}${f.add ? ".add" : ""} ` +
  `%0${f.mask ? "." + f.mask : ""}, %1${f.asel ? "." + f.asel : ""}, ` +
  `%2${f.bsel ? "." + f.bsel : ""}, %3;`;

/** The PTX ISA's vop4 pseudocode: lanes selected from {b, a}, then merged into c or added. */
function vop4(op: string, f: Form, a: number, b: number, c: number): number {
  const bytes = [0, 8, 16, 24].map((k) => a >>> k & 0xff).concat(
    [0, 8, 16, 24].map((k) => b >>> k & 0xff),
  );
  const sel = (s = "", dflt: string) => [...(s || dflt).slice(1)].reverse().map(Number); // byte 0 first
  const [as, bs] = [sel(f.asel, "b3210"), sel(f.bsel, "b7654")];
  const ext = (v: number, t: string) => (t === "s32" && v > 127 ? v - 256 : v);
  const mask = f.mask
    ? [0, 1, 2, 3].map((i) => f.mask!.includes(String(i)))
    : [true, true, true, true];
  let d = f.add ? c : 0;
  for (let i = 0; i < 4; i++) {
    const va = ext(bytes[as[i]], f.types[1]), vb = ext(bytes[bs[i]], f.types[2]);
    let t = {
      vadd4: va + vb,
      vsub4: va - vb,
      vavrg4: va + vb >= 0 ? (va + vb + 1) >> 1 : (va + vb) >> 1,
      vabsdiff4: Math.abs(va - vb),
      vmin4: Math.min(va, vb),
      vmax4: Math.max(va, vb),
    }[op]!;
    if (f.sat) {
      t = f.types[0] === "s32" ? Math.max(-128, Math.min(127, t)) : Math.max(0, Math.min(255, t));
    }
    if (f.add) d = (d + (mask[i] ? t : 0)) >>> 0;
    else d = (d | (mask[i] ? t & 0xff : c >>> (8 * i) & 0xff) << (8 * i)) >>> 0;
  }
  return d >>> 0;
}

Deno.test({
  name: nvrtcName(
    "SIMD video vop4 in inline PTX: every operation with unsigned and signed lanes, .sat, .add, " +
      "a destination mask and byte selectors, against the PTX ISA's pseudocode",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const cases = OPS.flatMap((op) => FORMS.map((f) => [op, f] as const));
    const body = cases.map(([op, f], k) =>
      `  asm("${
        asm(op, f)
      }" : "=r"(r) : "r"(a), "r"(b), "r"(c)); out[i * ${cases.length} + ${k}] = r;`
    ).join("\n");
    const source = `extern "C" __global__ void vop4(const unsigned *A, const unsigned *B,
    const unsigned *C, unsigned *out) {
  unsigned i = threadIdx.x, a = A[i], b = B[i], c = C[i], r;
${body}
}`;
    const n = 64;
    const [a, b, c] = [words(n, 1), words(n, 2), words(n, 5)];
    const [, , , got] = await launch(client, { source, blockSize: [n, 1, 1] }, n, [
      a,
      b,
      c,
      new Uint32Array(n * cases.length),
    ]);
    for (let i = 0; i < n; i++) {
      cases.forEach(([op, f], k) => {
        const want = vop4(op, f, a[i], b[i], c[i]);
        assert.equal(
          got[i * cases.length + k],
          want,
          `${asm(op, f)} of ${a[i].toString(16)}, ${b[i].toString(16)}, ${c[i].toString(16)}`,
        );
      });
    }
  },
});

Deno.test({
  name: nvrtcName(
    "CUDA's SIMD intrinsics that NVRTC compiles to vabsdiff4 (__vabsdiffu4, __vabsdiffs4, " +
      "__vsadu4), byte-wise against a CPU reference",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void simd(const unsigned *A, const unsigned *B, unsigned *out) {
  unsigned i = threadIdx.x, a = A[i], b = B[i];
  out[3 * i] = __vabsdiffu4(a, b);
  out[3 * i + 1] = __vabsdiffs4(a, b);
  out[3 * i + 2] = __vsadu4(a, b);
}`;
    const n = 128;
    const [a, b] = [words(n, 8), words(n, 9)];
    const [, , got] = await launch(client, { source, blockSize: [n, 1, 1] }, n, [
      a,
      b,
      new Uint32Array(3 * n),
    ]);
    const lanes = (w: number, signed: boolean) =>
      [0, 8, 16, 24].map((k) => (w >>> k & 0xff) - (signed && (w >>> k & 0x80) ? 256 : 0));
    const want = new Uint32Array(3 * n);
    for (let i = 0; i < n; i++) {
      const [ua, ub, sa, sb] = [
        lanes(a[i], false),
        lanes(b[i], false),
        lanes(a[i], true),
        lanes(b[i], true),
      ];
      const du = ua.map((x, k) => Math.abs(x - ub[k])),
        ds = sa.map((x, k) => Math.abs(x - sb[k]) & 0xff);
      want[3 * i] = du.reduce((w, x, k) => w | x << (8 * k), 0) >>> 0;
      want[3 * i + 1] = ds.reduce((w, x, k) => w | x << (8 * k), 0) >>> 0;
      want[3 * i + 2] = du.reduce((s, x) => s + x, 0);
    }
    assert.deepEqual(got, want);
  },
});
