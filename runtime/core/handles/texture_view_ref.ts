/**
 * {@linkcode TextureViewRef}: the ref of one mip level of a texture (`texture.view({ mipLevel })`),
 * what a launch binds, and what a server's `writeTexture` / `readTexture` write or read.
 *
 * @module
 */

import { type HandleNames, HandleRef, type Placement } from "./handle_ref.ts";
import type { SliceRef } from "./slice.ts";

/**
 * A texture's ref restricted to one mip level. It shares the texture's slice, so the streams
 * order and pin it as the whole texture (one resource); only what is bound, written or read is
 * the level.
 *
 * @example
 * ```ts
 * import { type HandleRef, TextureViewRef } from "@gpucompute/runtime/backend";
 * // What a server's writeTexture / readTexture / launch reads of a ref: its level, or 0.
 * const levelOf = (ref: HandleRef) => ref instanceof TextureViewRef ? ref.mipLevel : 0;
 * ```
 */
export class TextureViewRef extends HandleRef {
  /** The mip level (0 is the full-size image). */
  readonly mipLevel: number;

  /** A ref of level `mipLevel` over the texture's slice. */
  constructor(
    slice: SliceRef,
    placement: Omit<Placement, "dtype"> & HandleNames,
    mipLevel: number,
  ) {
    super(slice, placement);
    this.mipLevel = mipLevel;
  }
}

/** The mip level a ref names: its level for a view's ref, `undefined` for a whole texture. */
export function mipLevelOf(ref: HandleRef): number | undefined {
  return ref instanceof TextureViewRef ? ref.mipLevel : undefined;
}
