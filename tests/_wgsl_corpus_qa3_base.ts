/**
 * Data helpers of the third QA wave's WGSL corpus (`_wgsl_corpus_qa3.ts`): mixed u32/i32/f32
 * words for uniform and struct bytes.
 */
import type { PlainBinding } from "./_plain_webgpu.ts";

/** One 32-bit word: a number is a u32; `{ f }` an f32, `{ i }` an i32. */
export type Word = number | { f: number } | { i: number };

/** Little-endian 32-bit words, each a u32, an f32 (`{ f }`) or an i32 (`{ i }`). */
export const w = (...parts: readonly Word[]): Uint32Array<ArrayBuffer> => {
  const out = new Uint32Array(parts.length);
  const view = new DataView(out.buffer);
  parts.forEach((p, k) => {
    if (typeof p === "number") view.setUint32(k * 4, p, true);
    else if ("f" in p) view.setFloat32(k * 4, p.f, true);
    else view.setInt32(k * 4, p.i, true);
  });
  return out;
};

/** A texture binding (`storage`: a storage texture). */
export const T = (
  group: number,
  binding: number,
  width: number,
  height: number,
  format: GPUTextureFormat,
  data?: ArrayBufferView<ArrayBuffer>,
  storage = false,
): PlainBinding => ({ group, binding, texture: { width, height, format, data }, storage });
