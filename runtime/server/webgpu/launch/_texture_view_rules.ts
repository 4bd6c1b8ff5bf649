/**
 * WebGPU's rules for binding a texture to a WGSL texture slot: which view dimension fits which
 * texture (or which of its layers), and which texel kinds a layout's sample type takes.
 *
 * @module
 */

import type { TextureEntry } from "../memory/textures.ts";

/**
 * What a view of `dimension` needs that `entry` is not (WebGPU's view rules), or `undefined`
 * when it fits: a `"2d"` view one layer (binding layer 0 of many would be a silent wrong
 * result), a cube 6 square layers, a cube array 6n.
 */
export function viewNeeds(
  dimension: GPUTextureViewDimension,
  entry: TextureEntry,
  layers: number,
): string | undefined {
  const { width, height } = entry;
  switch (dimension) {
    case "1d":
      return entry.dimension === "1d" ? undefined : `a 1-D texture (dimension "1d")`;
    case "3d":
      return entry.dimension === "3d" ? undefined : `a 3-D texture (dimension "3d")`;
    case "2d":
      return entry.dimension === "2d" && layers === 1
        ? undefined
        : `a 2-D texture of one layer${
          layers > 1
            ? " (declare a texture_2d_array to read its layers, or bind one: " +
              "texture.view({ baseArrayLayer, arrayLayerCount: 1 }))"
            : ""
        }`;
    case "2d-array":
      return entry.dimension === "2d" ? undefined : `a 2-D texture (any number of layers)`;
    case "cube":
    case "cube-array": {
      const fits = entry.dimension === "2d" && width === height &&
        (dimension === "cube" ? layers === 6 : layers % 6 === 0);
      return fits
        ? undefined
        : dimension === "cube"
        ? `a 2-D texture of 6 square layers (width = height, depthOrArrayLayers: 6)`
        : `a 2-D texture of square layers, 6 per cube (width = height, depthOrArrayLayers: 6n)`;
    }
  }
}

/** Whether texels of kind `texel` may bind where the layout reads `slot`. */
export function sampleFits(texel: string, slot: string): boolean {
  // WebGPU binds float and depth formats where the layout reads unfilterable floats.
  if (slot === "unfilterable-float") return texel !== "uint" && texel !== "sint";
  return texel === slot;
}
