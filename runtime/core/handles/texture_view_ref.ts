/**
 * {@linkcode TextureViewRef}: the ref of one mip level of a texture, or of some of its array
 * layers (`texture.view({ mipLevel, baseArrayLayer, arrayLayerCount })`), what a launch binds,
 * and what a server's `writeTexture` / `readTexture` write or read.
 *
 * @module
 */

import { type HandleNames, HandleRef, type Placement } from "./handle_ref.ts";
import type { SliceRef } from "./slice.ts";

/**
 * A texture's ref restricted to one mip level (and to array layers `baseArrayLayer` to
 * `baseArrayLayer + arrayLayerCount - 1` when `arrayLayerCount` is set). It shares the texture's
 * slice, so the streams order and pin it as the whole texture (one resource); only what is
 * bound, written or read is the level's layers.
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
  /** The first array layer (0 unless the view names layers). */
  readonly baseArrayLayer: number;
  /** The layers from `baseArrayLayer`, or `undefined` for every layer of the texture. */
  readonly arrayLayerCount: number | undefined;

  /** A ref of level `mipLevel` (of `arrayLayerCount` layers from `baseArrayLayer`, if given). */
  constructor(
    slice: SliceRef,
    placement: Omit<Placement, "dtype"> & HandleNames,
    mipLevel: number,
    baseArrayLayer = 0,
    arrayLayerCount?: number,
  ) {
    super(slice, placement);
    this.mipLevel = mipLevel;
    this.baseArrayLayer = baseArrayLayer;
    this.arrayLayerCount = arrayLayerCount;
  }
}

/** Array layers a ref names: `[base, count]` for a view of some layers, else `undefined`. */
export function layersOf(ref: HandleRef): readonly [number, number] | undefined {
  return ref instanceof TextureViewRef && ref.arrayLayerCount !== undefined
    ? [ref.baseArrayLayer, ref.arrayLayerCount]
    : undefined;
}

/** The mip level a ref names: its level for a view's ref, `undefined` for a whole texture. */
export function mipLevelOf(ref: HandleRef): number | undefined {
  return ref instanceof TextureViewRef ? ref.mipLevel : undefined;
}
