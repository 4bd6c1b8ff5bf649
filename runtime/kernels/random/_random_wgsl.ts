/**
 * The WGSL of {@linkcode random}: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy
 * as 1, 2, 3", the generator of Random123, cuRAND, JAX and PyTorch) and its output transforms.
 *
 * Invocation `t` computes block `base + t` (a 64-bit counter `[lo, hi, 0, 0]`, key `[key0, key1]`)
 * and writes the block's words that fall inside the call's range: element `j` of the output is
 * number `i = offset + j`, word `i % 4` of block `floor(i / 4)`; `skip = offset % 4`.
 *
 * WGSL has no 32 x 32 -> 64-bit product: the high word comes from 16-bit halves.
 *
 * @module
 */

import type { KernelText } from "../_shape.ts";

/** What the kernel writes: raw words, uniform floats, or normal floats. */
export type RandomKind = "u32" | "uniform" | "normal";

const PHILOX = `
fn mulhi(a: u32, b: u32) -> u32 {
  let al = a & 0xffffu; let ah = a >> 16u; let bl = b & 0xffffu; let bh = b >> 16u;
  let lh = al * bh; let hl = ah * bl;
  let mid = ((al * bl) >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
}
fn philox(counter: vec4u, k: vec2u) -> vec4u {
  var x = counter; var key = k;
  for (var round = 0u; round < 10u; round = round + 1u) {
    let hi0 = mulhi(0xD2511F53u, x.x); let lo0 = 0xD2511F53u * x.x;
    let hi1 = mulhi(0xCD9E8D57u, x.z); let lo1 = 0xCD9E8D57u * x.z;
    x = vec4u(hi1 ^ x.y ^ key.x, lo1, hi0 ^ x.w ^ key.y, lo0);
    key = key + vec2u(0x9E3779B9u, 0xBB67AE85u);
  }
  return x;
}
fn unit(word: u32) -> f32 { return f32(word >> 8u) * 5.9604644775390625e-8; }`;

const TRANSFORM: Record<RandomKind, string> = {
  u32: `let values = words;`,
  // The largest f32 below high caps what rounding of the sum would bring up to high.
  uniform:
    `let values = min(mul_rn(vec4f(unit(words.x), unit(words.y), unit(words.z), unit(words.w)), params.b) + params.a, vec4f(params.top));`,
  // Box-Muller on the pairs (words 0, 1) and (2, 3): 1 - u is in (0, 1], so the log is finite.
  normal: `let r0 = sqrt(-2.0 * log(1.0 - unit(words.x)));
  let t0 = 6.283185307179586 * unit(words.y);
  let r1 = sqrt(-2.0 * log(1.0 - unit(words.z)));
  let t1 = 6.283185307179586 * unit(words.w);
  let values = vec4f(r0 * cos(t0), r0 * sin(t0), r1 * cos(t1), r1 * sin(t1)) * params.b + params.a;`,
};

/**
 * The kernel of one kind. Bindings: `out` (u32 or f32), the uniform `params` (`n`: elements,
 * `base_lo`/`base_hi`: the first block, `skip`: words of it before the output's first, `key0`,
 * `key1`, and `a`, `b`: low and high - low (uniform) or mean and std (normal), `zero`: 0, and
 * `top`: the largest f32 below high, the uniform numbers' cap).
 */
export function randomWgsl(kind: RandomKind): KernelText {
  const type = kind === "u32" ? "u32" : "f32";
  return {
    id: `random_${kind}`,
    source: `
struct Params { n: u32, base_lo: u32, base_hi: u32, skip: u32, key0: u32, key1: u32, a: f32, b: f32, zero: u32, top: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<${type}>;
@group(0) @binding(1) var<uniform> params: Params;
${PHILOX}
// The product rounded on its own, as the CPU's: WGSL lets a compiler fuse a * b + c into one FMA
// (NVIDIA's Vulkan driver does, which moved uniform floats by an ulp), and no compiler can fuse
// through an OR with a uniform it cannot see is zero.
fn mul_rn(a: vec4f, b: f32) -> vec4f { return bitcast<vec4f>(bitcast<vec4u>(a * b) | vec4u(params.zero)); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let t = gid.x;
  // Output element j holds word j + skip of the blocks from base: this invocation's block holds
  // elements 4t - skip .. 4t + 3 - skip.
  if (4u * t >= params.n + params.skip) { return; }
  let lo = params.base_lo + t;
  let hi = params.base_hi + select(0u, 1u, lo < t);
  let words = philox(vec4u(lo, hi, 0u, 0u), vec2u(params.key0, params.key1));
  ${TRANSFORM[kind]}
  for (var w = 0u; w < 4u; w = w + 1u) {
    let j = 4u * t + w;
    if (j >= params.skip && j - params.skip < params.n) { out[j - params.skip] = values[w]; }
  }
}`,
  };
}
