/**
 * The texture part of the backend contract (`server.ts` includes it): optional methods for
 * textures and what a launch binds by name. A backend without textures leaves the methods out;
 * the client then refuses `createTexture` with `UNSUPPORTED`. A backend that does not bind by
 * name refuses a launch with `bufferNames` or `samplers` (`UNSUPPORTED`), never binds it by
 * position.
 *
 * A texture is owned through a `SliceHandle` of its own (not pooled memory): its record's
 * identity is what the stream engines order and pin, so a texture bound in `args.buffers` is
 * ordered across streams exactly like a buffer.
 *
 * @module
 */

import type { HandleRef } from "../core/handles/handle_ref.ts";
import type { SliceHandle } from "../core/handles/slice.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { TextureFormat } from "../core/handles/texture_format.ts";

/**
 * A texture to make: 1-D, 2-D (with array layers) or 3-D.
 *
 * @example
 * ```ts
 * import type { TextureDescriptor } from "@gpucompute/runtime/backend";
 * const image: TextureDescriptor = { width: 640, height: 480, format: "rgba8unorm" };
 * const volume: TextureDescriptor = {
 *   width: 32,
 *   height: 32,
 *   depthOrArrayLayers: 32,
 *   dimension: "3d",
 *   format: "r32float",
 * };
 * ```
 */
export interface TextureDescriptor {
  /** Texels per row. */
  readonly width: number;
  /** Rows (1 for a 1-D texture). */
  readonly height: number;
  /**
   * Depth slices of a 3-D texture, array layers of a 2-D one (1 for a 1-D texture).
   * @default {1}
   */
  readonly depthOrArrayLayers?: number;
  /**
   * `"1d"`, `"2d"` (layered when `depthOrArrayLayers` > 1) or `"3d"`.
   * @default {"2d"}
   */
  readonly dimension?: "1d" | "2d" | "3d";
  /** The texel format. */
  readonly format: TextureFormat;
  /**
   * Samples per texel: 1, or 4 for a multisampled 2-D texture of one layer (bound as
   * `texture_multisampled_2d<T>` or `texture_depth_multisampled_2d`).
   * @default {1}
   */
  readonly sampleCount?: number;
  /**
   * Mip levels: level n is `max(1, side >> n)` per side (the layers of a 2-D texture are kept).
   * At most `floor(log2(largest side)) + 1`; 1 for a 1-D or multisampled texture.
   * @default {1}
   */
  readonly mipLevelCount?: number;
  /**
   * A name in errors and device labels.
   * @default {undefined}
   */
  readonly label?: string;
}

/**
 * A sampler as a launch asks for it (WebGPU's `GPUSamplerDescriptor` fields).
 *
 * @example
 * ```ts
 * import type { SamplerDescriptor } from "@gpucompute/runtime";
 * const linear: SamplerDescriptor = { magFilter: "linear", minFilter: "linear" };
 * ```
 */
export interface SamplerDescriptor {
  /**
   * How coordinates outside [0, 1] wrap along u.
   * @default {"clamp-to-edge"}
   */
  readonly addressModeU?: "clamp-to-edge" | "repeat" | "mirror-repeat";
  /**
   * How coordinates outside [0, 1] wrap along v.
   * @default {"clamp-to-edge"}
   */
  readonly addressModeV?: "clamp-to-edge" | "repeat" | "mirror-repeat";
  /**
   * Filtering when a texel covers more than a pixel.
   * @default {"nearest"}
   */
  readonly magFilter?: "nearest" | "linear";
  /**
   * Filtering when a texel covers less than a pixel.
   * @default {"nearest"}
   */
  readonly minFilter?: "nearest" | "linear";
  /** For `sampler_comparison` bindings. @default {undefined} */
  readonly compare?:
    | "never"
    | "less"
    | "equal"
    | "less-equal"
    | "greater"
    | "not-equal"
    | "greater-equal"
    | "always";
}

/**
 * What a launch binds by name, and its samplers.
 *
 * @example
 * ```ts
 * import type { LaunchBindings } from "@gpucompute/runtime/backend";
 * const named: LaunchBindings = { bufferNames: ["x", "y"] };
 * ```
 */
export interface LaunchBindings {
  /**
   * The WGSL names of `args.buffers`, one per buffer, when the caller named them (each binds
   * the variable of that name); `undefined`: by position.
   * @default {undefined}
   */
  readonly bufferNames?: readonly string[];
  /**
   * Samplers for the kernel's `sampler` bindings, by position, or by the names in
   * {@linkcode samplerNames}.
   * @default {undefined}
   */
  readonly samplers?: readonly SamplerDescriptor[];
  /** The WGSL names of {@linkcode samplers}, when named. @default {undefined} */
  readonly samplerNames?: readonly string[];
}

/**
 * The optional texture methods of a server.
 *
 * @example
 * ```ts
 * import type { TextureServer } from "@gpucompute/runtime/backend";
 * const hasTextures = (server: TextureServer) => server.createTexture !== undefined;
 * ```
 */
export interface TextureServer {
  /** Optional. Makes a texture; its owner is the returned slice handle. */
  createTexture?(descriptor: TextureDescriptor, stream: StreamId): SliceHandle;
  /**
   * Optional. Writes every texel (tightly packed rows, then layers or slices; each texel's
   * samples one after another in a multisampled texture), in stream order: of mip level 0, or
   * of the level (and the layers, when it names some) of a view's ref (a `TextureViewRef`, which
   * carries its `mipLevel`, `baseArrayLayer` and `arrayLayerCount`).
   */
  writeTexture?(ref: HandleRef, data: Uint8Array, stream: StreamId): void;
  /**
   * Optional. Reads every texel (tightly packed rows, then layers or slices), in stream order:
   * of mip level 0, or of the level (and layers) of a view's ref.
   */
  readTexture?(ref: HandleRef, stream: StreamId): Promise<Uint8Array>;
}
