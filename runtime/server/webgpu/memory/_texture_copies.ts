/**
 * How a texture's texels are copied through staging buffers no larger than the device's
 * `maxBufferSize`: a 512x512x512 `rgba32float` volume is 2 GiB, past the limit of most devices,
 * so its copies go in blocks of whole layers or depth slices, and an image too large for one
 * buffer in blocks of its rows. Each block's rows are padded to `bytesPerRow` multiples of 256
 * in its staging buffer, and its tightly packed rows are contiguous in the host data.
 *
 * @module
 */

import { levelExtent, type TextureExtent } from "../../../core/handles/texture_format.ts";

/** One copy: rows `first` to `first + rows` of the tightly packed texels (all layers' rows). */
export interface CopyBlock {
  /** The block's first row, counting every layer's or slice's rows one after another. */
  readonly first: number;
  /** Rows in the block. */
  readonly rows: number;
  /** Where the block starts in the texture. */
  readonly origin: GPUOrigin3DDict;
  /** The block's size (`rowsPerImage` is its `height`). */
  readonly size: GPUExtent3DDict;
}

/**
 * The blocks a copy of `t` goes in, each at most `maxBytes` in its staging buffer with rows of
 * `padded` bytes: whole layers or slices where one fits, else rows of one layer.
 */
export function copyBlocks(t: TextureExtent, padded: number, maxBytes: number): CopyBlock[] {
  const { width, height, depthOrArrayLayers: layers } = t;
  const blocks: CopyBlock[] = [];
  const image = padded * height;
  if (image <= maxBytes) {
    const step = Math.max(1, Math.min(layers, Math.floor(maxBytes / image)));
    for (let z = 0; z < layers; z += step) {
      const count = Math.min(step, layers - z);
      blocks.push({
        first: z * height,
        rows: count * height,
        origin: { x: 0, y: 0, z },
        size: { width, height, depthOrArrayLayers: count },
      });
    }
    return blocks;
  }
  const step = Math.max(1, Math.floor(maxBytes / padded));
  for (let z = 0; z < layers; z++) {
    for (let y = 0; y < height; y += step) {
      const rows = Math.min(step, height - y);
      blocks.push({
        first: z * height + y,
        rows,
        origin: { x: 0, y, z },
        size: { width, height: rows, depthOrArrayLayers: 1 },
      });
    }
  }
  return blocks;
}

/** The size of mip level `level`, of `layers[1]` layers when given. */
export function layerExtent(
  entry: TextureExtent,
  level: number,
  layers?: readonly [number, number],
): TextureExtent {
  const size = levelExtent(entry, level);
  return layers === undefined ? size : { ...size, depthOrArrayLayers: layers[1] };
}
