/**
 * The CUDA C of {@linkcode random}, the same Philox4x32-10 and transforms as its WGSL
 * (`_random_wgsl.ts`), with the same params and one thread per 4-word block, so the numbers are
 * bit-identical (u32 words, uniform floats: products and sums rounded apart, never fused into
 * an FMA) and normal ones equal within float tolerance.
 *
 * @module
 */

import { cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import type { RandomKind } from "./_random_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["base_lo", "u32"],
  ["base_hi", "u32"],
  ["skip", "u32"],
  ["key0", "u32"],
  ["key1", "u32"],
  ["a", "f32"],
  ["b", "f32"],
  ["zero", "u32"], // the WGSL's opaque zero (its mul_rn); __fmul_rn does that here
  ["top", "f32"], // the largest f32 below high: the uniform numbers' cap
];

const PHILOX = `
__device__ __forceinline__ uint4 philox(uint4 x, uint2 key) {
  for (int round = 0; round < 10; round++) {
    const unsigned int hi0 = __umulhi(0xD2511F53u, x.x), lo0 = 0xD2511F53u * x.x;
    const unsigned int hi1 = __umulhi(0xCD9E8D57u, x.z), lo1 = 0xCD9E8D57u * x.z;
    x = make_uint4(hi1 ^ x.y ^ key.x, lo1, hi0 ^ x.w ^ key.y, lo0);
    key.x += 0x9E3779B9u; key.y += 0xBB67AE85u;
  }
  return x;
}
__device__ __forceinline__ float unit(unsigned int word) { return __uint2float_rn(word >> 8) * 5.9604644775390625e-8f; }
__device__ __forceinline__ float scaled(float u, float b, float a, float top) { return fminf(__fadd_rn(__fmul_rn(u, b), a), top); }
`;

const TRANSFORM: Record<RandomKind, string> = {
  u32: `const unsigned int values[4] = { words.x, words.y, words.z, words.w };`,
  uniform: `const float values[4] = { scaled(unit(words.x), params.b, params.a, params.top),
    scaled(unit(words.y), params.b, params.a, params.top),
    scaled(unit(words.z), params.b, params.a, params.top),
    scaled(unit(words.w), params.b, params.a, params.top) };`,
  // Box-Muller on the pairs (words 0, 1) and (2, 3): 1 - u is in (0, 1], so the log is finite.
  // The angle as turns (sinpif/cospif of 2u): no large-argument reduction, whose table is a
  // module-scope variable the simulated driver does not run.
  normal: `const float r0 = sqrtf(-2.0f * logf(1.0f - unit(words.x)));
  const float t0 = 2.0f * unit(words.y);
  const float r1 = sqrtf(-2.0f * logf(1.0f - unit(words.z)));
  const float t1 = 2.0f * unit(words.w);
  const float values[4] = { r0 * cospif(t0) * params.b + params.a, r0 * sinpif(t0) * params.b + params.a,
    r1 * cospif(t1) * params.b + params.a, r1 * sinpif(t1) * params.b + params.a };`,
};

/** The CUDA kernel of one kind (params as `randomWgsl`'s uniform). */
export function randomCuda(kind: RandomKind): CudaText {
  const type = kind === "u32" ? "unsigned int" : "float";
  const entry = `random_${kind}`;
  return {
    id: `random_${kind}.cuda`,
    entryPoint: entry,
    blockSize: [256, 1, 1],
    params: PARAMS,
    source: `${PHILOX}${cudaFrame(entry, [["out", type, false]], PARAMS)}
  const unsigned int t = global_block() * blockDim.x + threadIdx.x;
  if (4u * t >= params.n + params.skip) return;
  const unsigned int lo = params.base_lo + t;
  const unsigned int hi = params.base_hi + (lo < t ? 1u : 0u);
  const uint4 words = philox(make_uint4(lo, hi, 0u, 0u), make_uint2(params.key0, params.key1));
  ${TRANSFORM[kind]}
  for (unsigned int w = 0; w < 4u; w++) {
    const unsigned int j = 4u * t + w;
    if (j >= params.skip && j - params.skip < params.n) out[j - params.skip] = values[w];
  }
}
`,
  };
}
