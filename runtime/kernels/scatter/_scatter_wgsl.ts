/**
 * The WGSL of {@linkcode scatterAdd} and {@linkcode segmentReduce}: one invocation per value,
 * folded into its target element with an atomic.
 *
 * - Integers: `atomicAdd`, `atomicMax`, `atomicMin` on `atomic<i32>` / `atomic<u32>` (exact,
 *   deterministic; sums wrap as the type does).
 * - f32 sums: WebGPU has no float atomics, so a compare-and-swap loop on the element's bits
 *   (`atomicCompareExchangeWeak` on `atomic<u32>`). The order in which the additions land is
 *   the device's, so the rounding, and so the last bits of a sum, may differ between runs.
 * - f32 max and min: on order-preserving u32 keys of the floats (`atomicMax` / `atomicMin`,
 *   deterministic), decoded back to floats by a second kernel. NaN gets the key that wins
 *   (the largest for max, the smallest for min), so a NaN in a segment makes its result NaN.
 *
 * Targets are bound as `atomic<u32>` / `atomic<i32>` views of the output's memory.
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { KernelText } from "../_shape.ts";

/** A segment reduction's operator. */
export type SegmentOp = "sum" | "max" | "min";

/** Order-preserving u32 keys of floats, and back. */
const KEYS = `fn key_of(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return NAN_KEY; } // NaN
  return select(b ^ 0x80000000u, ~b, (b >> 31u) == 1u);
}`;

/** The key of `x` for `op` (max or min) on the host: what the output is filled with first. */
export function floatKey(x: number, op: "max" | "min"): number {
  if (Number.isNaN(x)) return op === "max" ? 0xffffffff : 0;
  const b = new Uint32Array(new Float32Array([x]).buffer)[0];
  return (b >>> 31 === 1 ? ~b : b ^ 0x80000000) >>> 0;
}

/**
 * The scatter kernel: `target[index[i]] op= values[i]` for every `i < n` whose index is below
 * `len` (and, for i32 indices, not negative). Bindings: `dest` (atomic), `index` (u32 or i32),
 * `values`, `params` (`n`, `len`).
 */
export function scatterWgsl(op: SegmentOp, type: ElementType, index: "u32" | "i32"): KernelText {
  const float = type === "f32";
  const atomicType = float ? "u32" : type;
  const update = !float
    ? `atomic${op === "sum" ? "Add" : op === "max" ? "Max" : "Min"}(&dest[k], v);`
    : op === "sum"
    ? `var old = atomicLoad(&dest[k]);
    loop {
      let r = atomicCompareExchangeWeak(&dest[k], old, bitcast<u32>(bitcast<f32>(old) + v));
      if (r.exchanged) { break; }
      old = r.old_value;
    }`
    : `atomic${op === "max" ? "Max" : "Min"}(&dest[k], key_of(v));`;
  const k = index === "u32" ? "index[i]" : "select(0xffffffffu, u32(index[i]), index[i] >= 0i)";
  return {
    id: `scatter_${op}_${type}_${index}`,
    source: `
struct Params { n: u32, len: u32 }
@group(0) @binding(0) var<storage, read_write> dest: array<atomic<${atomicType}>>;
@group(0) @binding(1) var<storage, read> index: array<${index}>;
@group(0) @binding(2) var<storage, read> values: array<${type}>;
@group(0) @binding(3) var<uniform> params: Params;
const NAN_KEY = ${op === "min" ? "0u" : "0xffffffffu"};
${KEYS}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= params.n) { return; }
  let k = ${k};
  if (k >= params.len) { return; }
  let v = values[i];
  ${update}
}`,
  };
}

/** Fills `out` (u32 view) with `value`'s bits. Bindings: `out`, `params` (`n`, `value`). */
export const FILL_WGSL: KernelText = {
  id: "scatter_fill",
  source: `
struct Params { n: u32, value: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x < params.n) { out[gid.x] = params.value; }
}`,
};

/** Turns float keys back into float bits, in place. Bindings: `out` (u32 view), `params`. */
export const DECODE_WGSL: KernelText = {
  id: "scatter_decode_keys",
  source: `
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= params.n) { return; }
  let k = out[gid.x];
  out[gid.x] = select(~k, k ^ 0x80000000u, (k >> 31u) == 1u);
}`,
};
