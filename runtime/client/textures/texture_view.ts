/**
 * {@linkcode TextureView}: one mip level of a {@linkcode Texture}, or some of its array layers
 * (`texture.view({ mipLevel, baseArrayLayer, arrayLayerCount })`), bound in `buffers` (a storage
 * texture binding takes exactly one level; `texture_2d` one layer), written and read through the
 * client like the texture.
 *
 * @module
 */

import type { HandleRef } from "../../core/handles/handle_ref.ts";
import { TextureViewRef } from "../../core/handles/texture_view_ref.ts";
import { levelExtent } from "../../core/handles/texture_format.ts";
import type { Texture } from "./texture.ts";

/**
 * One mip level of a texture: `max(1, side >> mipLevel)` texels per side (the layers of a 2-D
 * texture are kept, or those from `baseArrayLayer` only; the depth of a 3-D one shrinks). Bind it
 * where a kernel stores into a level or a layer (`texture_storage_2d<F, write>`), or samples only
 * those (one layer binds as `texture_2d`, several as `texture_2d_array`, 6 square ones as
 * `texture_cube`); `client.write(view, data)` and `client.read(view)` write and read just those
 * texels. It lives as long as its texture.
 *
 * @example Write and read level 1 of a 4x4 image
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using image = client.createTexture({
 *   width: 4,
 *   height: 4,
 *   format: "r32float",
 *   mipLevelCount: 3,
 * });
 * const level1 = image.view({ mipLevel: 1 });
 * client.write(level1, new Float32Array([1, 2, 3, 4]));
 * console.log(level1.width, await client.read(level1)); // 2 Float32Array [1, 2, 3, 4]
 * ```
 */
export class TextureView {
  /** The texture. */
  readonly texture: Texture;
  /** The mip level (0: the full-size image). */
  readonly mipLevel: number;
  /** Texels per row of the level. */
  readonly width: number;
  /** Rows of the level. */
  readonly height: number;
  /**
   * Layers (2-D: the view's, all of the texture's unless it names some) or depth slices (3-D:
   * shrunk) of the level.
   */
  readonly depthOrArrayLayers: number;
  /** The view's first array layer (0 unless it names layers). */
  readonly baseArrayLayer: number;
  /** The view's layers from `baseArrayLayer`, or `undefined` for every layer of the texture. */
  readonly arrayLayerCount: number | undefined;
  #ref: TextureViewRef | undefined;

  /**
   * A view of level `mipLevel` of `texture`, of `arrayLayerCount` layers from `baseArrayLayer` if
   * given (see `texture.view`, which checks them).
   */
  constructor(texture: Texture, mipLevel: number, baseArrayLayer = 0, arrayLayerCount?: number) {
    this.texture = texture;
    this.mipLevel = mipLevel;
    const size = levelExtent(texture, mipLevel);
    this.width = size.width;
    this.height = size.height;
    this.depthOrArrayLayers = arrayLayerCount ?? size.depthOrArrayLayers;
    this.baseArrayLayer = baseArrayLayer;
    this.arrayLayerCount = arrayLayerCount;
  }

  /**
   * The level's ref (what launches bind, writes write and reads read): the texture's slice, so
   * the streams order it as the whole texture. `INVALID_HANDLE` after the texture's dispose.
   */
  ref(): HandleRef {
    const base = this.texture.ref();
    this.#ref ??= new TextureViewRef(
      base.slice,
      {
        offsetStart: 0,
        offsetEnd: 0,
        stream: base.stream,
        cursor: 0,
        fullSize: 0,
        label: base.label,
        madeBy: base.madeBy,
      },
      this.mipLevel,
      this.baseArrayLayer,
      this.arrayLayerCount,
    );
    return this.#ref;
  }
}
