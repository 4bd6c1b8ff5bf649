/**
 * {@linkcode Texture}: a 1-D, 2-D (layered or not) or 3-D texture made by `client.createTexture`,
 * bound in `buffers` to a kernel's texture bindings (`texture_2d<T>`, `texture_2d_array<T>`,
 * `texture_cube<T>`, `texture_3d<T>`, `texture_storage_2d<F, A>`...), written and read back
 * through the client like a handle, and disposed like one.
 *
 * @module
 */

import { HandleRef } from "../../core/handles/handle_ref.ts";
import type { SliceHandle } from "../../core/handles/slice.ts";
import { InvalidHandleError } from "../../core/errors.ts";
import { describe } from "../../core/_argument_checks.ts";
import type { StreamId } from "../../core/stream_id.ts";
import {
  type TextureExtent,
  textureExtent,
  type TextureFormat,
} from "../../core/handles/texture_format.ts";
import { TextureView } from "./texture_view.ts";

/**
 * A texture on a client's device: 1-D, 2-D (with array layers, which bind as
 * `texture_2d_array`, or as `texture_cube` / `texture_cube_array` when square with 6 or 6n
 * layers) or 3-D; a depth texture (`depth32float`, `depth16unorm`) binds as `texture_depth_*`,
 * a multisampled one (`sampleCount: 4`) as `texture_multisampled_2d<T>`. Work on it is ordered
 * across streams like a buffer's.
 *
 * @example Make, fill and read back an image
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using image = client.createTexture({ width: 2, height: 1, format: "r32float" });
 * client.write(image, new Float32Array([1, 2]));
 * console.log(await client.read(image)); // Float32Array [1, 2]
 * ```
 */
export class Texture implements Disposable {
  /** Texels per row. */
  readonly width: number;
  /** Rows (1 for a 1-D texture). */
  readonly height: number;
  /**
   * Depth slices of a 3-D texture, array layers of a 2-D one; 1 for a 1-D texture.
   *
   * @example Six layers: a cube map
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using sky = client.createTexture({
   *   width: 4,
   *   height: 4,
   *   depthOrArrayLayers: 6,
   *   format: "rgba8unorm",
   * });
   * console.log(sky.depthOrArrayLayers); // 6 (binds to a texture_cube<f32> or texture_2d_array<f32>)
   * ```
   */
  readonly depthOrArrayLayers: number;
  /**
   * `"1d"`, `"2d"` or `"3d"`: which WGSL textures it binds to (`texture_1d`; `texture_2d`,
   * `texture_2d_array`, `texture_cube`, `texture_cube_array`; `texture_3d`, and the storage ones).
   *
   * @example A volume
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using volume = client.createTexture({
   *   width: 8,
   *   height: 8,
   *   depthOrArrayLayers: 8,
   *   dimension: "3d",
   *   format: "r32float",
   * });
   * console.log(volume.dimension); // "3d"
   * ```
   */
  readonly dimension: "1d" | "2d" | "3d";
  /** The texel format. */
  readonly format: TextureFormat;
  /**
   * Samples per texel: 1, or 4 for a multisampled texture.
   *
   * @example A multisampled image
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using msaa = client.createTexture({
   *   width: 4,
   *   height: 4,
   *   format: "rgba8unorm",
   *   sampleCount: 4,
   * });
   * console.log(msaa.sampleCount); // 4 (binds to a texture_multisampled_2d<f32>)
   * ```
   */
  readonly sampleCount: number;
  /**
   * Mip levels (1 unless made with `mipLevelCount`): level n is `max(1, side >> n)` texels per
   * side. A sampled binding of the texture binds every level (`textureSampleLevel`,
   * `textureNumLevels`); {@linkcode view} binds, writes or reads one.
   *
   * @example A mip chain
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using image = client.createTexture({
   *   width: 8,
   *   height: 8,
   *   format: "r32float",
   *   mipLevelCount: 4,
   * });
   * console.log(image.mipLevelCount, image.view({ mipLevel: 3 }).width); // 4 1
   * ```
   */
  readonly mipLevelCount: number;
  /** The caller's name for it, if any. */
  readonly label: string | undefined;
  readonly #slice: SliceHandle;
  readonly #ref: HandleRef;
  readonly #views = new Map<string, TextureView>();

  /** Wraps the owner of a texture a server made (see `client.createTexture`). */
  constructor(
    slice: SliceHandle,
    shape: TextureExtent & {
      format: TextureFormat;
      sampleCount?: number;
      mipLevelCount?: number;
      label?: string;
    },
    stream: StreamId,
  ) {
    this.#slice = slice;
    this.width = shape.width;
    this.height = shape.height;
    this.depthOrArrayLayers = shape.depthOrArrayLayers;
    this.dimension = shape.dimension;
    this.format = shape.format;
    this.sampleCount = shape.sampleCount ?? 1;
    this.mipLevelCount = shape.mipLevelCount ?? 1;
    this.label = shape.label;
    this.#ref = new HandleRef(slice.ref(), {
      offsetStart: 0,
      offsetEnd: 0,
      stream,
      cursor: 0,
      fullSize: 0,
      dtype: "bytes",
      label: shape.label ?? `${shape.format} texture ${textureExtent(shape)}`,
      madeBy: "createTexture",
    });
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.#slice.disposed;
  }

  /** The texture's ref (what launches bind); `INVALID_HANDLE` after {@linkcode dispose}. */
  ref(): HandleRef {
    if (this.#slice.disposed) {
      throw new InvalidHandleError(`Texture '${this.#ref.label}' was used after dispose()`);
    }
    return this.#ref;
  }

  /**
   * Mip level `mipLevel` of the texture (default 0), or `arrayLayerCount` of its array layers
   * from `baseArrayLayer` (default: every layer from it), to bind in `buffers` (a storage binding
   * such as `texture_storage_2d<r32float, write>` takes one level and one layer, or several as
   * `texture_storage_2d_array`; a sampled one then samples those only: one layer as a
   * `texture_2d`, 6 square layers as a `texture_cube`), to write and to read. `RangeError` for a
   * level or a layer the texture does not have, naming the option; a 3-D texture has no layers.
   * The same view is returned for the same options each time (its launches reuse their bind
   * groups).
   *
   * @example Store into level 1 while sampling level 0 (one step of a mip chain)
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using image = client.createTexture({
   *   width: 4,
   *   height: 4,
   *   format: "r32float",
   *   mipLevelCount: 2,
   * });
   * const [source, target] = [image.view({ mipLevel: 0 }), image.view({ mipLevel: 1 })];
   * console.log(source.width, target.width); // 4 2
   * ```
   *
   * @example One layer of an array, written and read alone
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using layers = client.createTexture({
   *   width: 2,
   *   height: 1,
   *   depthOrArrayLayers: 3,
   *   format: "r32float",
   * });
   * const second = layers.view({ baseArrayLayer: 1, arrayLayerCount: 1 }); // binds as texture_2d
   * client.write(second, new Float32Array([5, 6]));
   * console.log(await client.read(layers)); // Float32Array [0, 0, 5, 6, 0, 0]
   * ```
   */
  view(
    options: {
      readonly mipLevel?: number;
      readonly baseArrayLayer?: number;
      readonly arrayLayerCount?: number;
    },
  ): TextureView {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(
        `texture.view needs { mipLevel, baseArrayLayer, arrayLayerCount }, got ${
          describe(options)
        }`,
      );
    }
    for (const key of Object.keys(options)) {
      if (!VIEW_OPTIONS.includes(key)) {
        throw new TypeError(
          `texture.view has no option '${key}' (it takes ${VIEW_OPTIONS.join(", ")})`,
        );
      }
    }
    const { mipLevel: level = 0, baseArrayLayer, arrayLayerCount } = options;
    if (!Number.isInteger(level) || level < 0 || level >= this.mipLevelCount) {
      throw new RangeError(
        `mipLevel must be an integer from 0 to ${this.mipLevelCount - 1} (the texture has ` +
          `${this.mipLevelCount} mip level${this.mipLevelCount === 1 ? "" : "s"}), got ` +
          describe(level),
      );
    }
    this.ref(); // INVALID_HANDLE after dispose
    const [base, count] = checkLayers(this, baseArrayLayer, arrayLayerCount);
    const key = `${level}/${base}/${count}`;
    let view = this.#views.get(key);
    if (view === undefined) {
      view = new TextureView(this, level, base, count);
      this.#views.set(key, view);
    }
    return view;
  }

  /** Releases the texture once the work queued on it has run. Idempotent. */
  dispose(): void {
    this.#slice.dispose();
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

const VIEW_OPTIONS: readonly string[] = ["mipLevel", "baseArrayLayer", "arrayLayerCount"];

/**
 * The layers a view names, `[base, count]` (`count` `undefined`: every layer, as the texture),
 * each option checked: `TypeError` on a 3-D texture (its depth slices are not layers), else
 * `RangeError` naming the option past the texture's layers.
 */
function checkLayers(
  texture: Texture,
  base: number | undefined,
  count: number | undefined,
): [number, number | undefined] {
  if (base === undefined && count === undefined) return [0, undefined];
  const layers = texture.depthOrArrayLayers;
  if (texture.dimension === "3d") {
    throw new TypeError(
      `${base === undefined ? "arrayLayerCount" : "baseArrayLayer"} names array layers, but a ` +
        `3-D texture has none (its ${layers} depth slices are one image: bind the whole level)`,
    );
  }
  const from = base ?? 0;
  if (!Number.isInteger(from) || from < 0 || from >= layers) {
    throw new RangeError(
      `baseArrayLayer must be an integer from 0 to ${layers - 1} (the texture has ${layers} ` +
        `layer${layers === 1 ? "" : "s"}), got ${describe(base)}`,
    );
  }
  const n = count ?? layers - from;
  if (!Number.isInteger(n) || n < 1 || from + n > layers) {
    throw new RangeError(
      `arrayLayerCount must be an integer from 1 to ${layers - from} (layers ${from} to ` +
        `${layers - 1} of the texture's ${layers}), got ${describe(count)}`,
    );
  }
  return from === 0 && n === layers ? [0, undefined] : [from, n];
}
