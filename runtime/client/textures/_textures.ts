/**
 * The client's texture calls: `createTexture`, and `write` / `read` of a {@linkcode Texture}
 * (the host array of its format: `Uint8Array` for `rgba8unorm`, `Float32Array` for `r32float`,
 * `Uint16Array` of raw halves or `Float16Array` for `rgba16float`...), in stream order and
 * through the held streams like a handle's.
 *
 * @module
 */

import { UnsupportedError } from "../../core/errors.ts";
import { resolveStreamId, type StreamId } from "../../core/stream_id.ts";
import {
  TEXTURE_FORMATS,
  textureExtent,
  type TextureFormat,
} from "../../core/handles/texture_format.ts";
import { describe } from "../../core/_argument_checks.ts";
import type { ComputeServer } from "../../server/server.ts";
import { type HeldStreams, keepRef } from "../timeline/_held_streams.ts";
import { Texture } from "./texture.ts";
import { TextureView } from "./texture_view.ts";
import type { CreateTextureOptions } from "../options.ts";

/** Host arrays per component type (`f16` also takes a `Uint16Array` of raw halves). */
const ARRAYS = {
  u8: [Uint8Array],
  i8: [Int8Array],
  u16: [Uint16Array],
  i16: [Int16Array],
  f16: [Uint16Array, ...(typeof Float16Array === "function" ? [Float16Array] : [])],
  u32: [Uint32Array],
  i32: [Int32Array],
  f32: [Float32Array],
} as const;

/**
 * The host array a texture reads back as, by format: `Uint8Array` for `rgba8unorm`,
 * `Float32Array` for `r32float` and `rgba32float`, `Uint32Array` for `r32uint`...
 *
 * @example
 * ```ts
 * import type { TextureArray } from "@gpucompute/runtime/backend";
 * const texels = (a: TextureArray) => a.length;
 * ```
 */
export type TextureArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float16Array;

/**
 * The server's texture operations, or `UNSUPPORTED`; a `texture` given to a server without them
 * is another client's: `INVALID_HANDLE` first, as a server with textures refuses it.
 */
function textureServer(server: ComputeServer, texture?: Texture) {
  const { createTexture, writeTexture, readTexture } = server;
  if (createTexture === undefined || writeTexture === undefined || readTexture === undefined) {
    if (texture !== undefined) server.checkRef?.(texture.ref());
    throw new UnsupportedError(`The ${server.properties.backend} backend has no textures`);
  }
  return server as Required<Pick<ComputeServer, "createTexture" | "writeTexture" | "readTexture">>;
}

/** Makes a texture, filled with `options.data` if given. */
export function createTexture(
  server: ComputeServer,
  held: HeldStreams,
  options: CreateTextureOptions,
): Texture {
  const textures = textureServer(server);
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`createTexture needs { width, height, format }, got ${describe(options)}`);
  }
  const stream = resolveStreamId(options.stream);
  const { width, height, format, label } = options;
  const { depthOrArrayLayers = 1, dimension = "2d", sampleCount = 1, mipLevelCount = 1 } = options;
  const descriptor = {
    width,
    height,
    depthOrArrayLayers,
    dimension,
    format,
    sampleCount,
    mipLevelCount,
    label,
  };
  const texture = new Texture(textures.createTexture(descriptor, stream), descriptor, stream);
  if (options.data !== undefined) {
    try {
      writeTexture(server, held, texture, options.data, { stream });
      // Should the stream's wait fail, the write does not run: no other stream may read it then.
      held.define(stream, [texture.ref().slice.record]);
    } catch (error) {
      texture.dispose();
      throw error;
    }
  }
  return texture;
}

/**
 * Writes every texel of `texture` (level 0) or of a view's level from `data` (the format's host
 * array: rows of texels, then rows, then layers or depth slices), in stream order. A
 * texture is written whole: an `offset` other than 0 is a `RangeError`, not ignored.
 */
export function writeTexture(
  server: ComputeServer,
  held: HeldStreams,
  texture: Texture | TextureView,
  data: unknown,
  options: { stream?: StreamId; offset?: number },
): void {
  const textures = textureServer(server, owner(texture));
  const stream = resolveStreamId(options?.stream);
  if (options?.offset !== undefined && options.offset !== 0) {
    throw new RangeError(
      `options.offset must be 0 for a texture (it is written whole, every texel), got ` +
        describe(options.offset),
    );
  }
  const ref = texture.ref();
  const bytes = textureBytes(texture, data);
  if (held.busy) server.checkRef?.(ref);
  held.runVoid(
    stream,
    [ref.slice.record],
    [keepRef(ref)],
    () => textures.writeTexture(ref, bytes, stream),
  );
}

/**
 * Reads every texel of `texture` (level 0) or of a view's level as its format's host array, in
 * stream order: `client.read`'s arguments after the texture, `(options)` or `(type, options)`.
 * `type` may be one of the format's host arrays or a `Uint8Array` byte view; another is a
 * `TypeError`, as for a handle.
 */
export async function readTexture(
  server: ComputeServer,
  held: HeldStreams,
  view: Texture | TextureView,
  type: unknown,
  options: { stream?: StreamId } | undefined,
): Promise<TextureArray> {
  const texture = owner(view);
  const textures = textureServer(server, texture);
  const info = TEXTURE_FORMATS[texture.format];
  let Host: new (buffer: ArrayBuffer, offset: number, length: number) => TextureArray =
    ARRAYS[info.array].at(-1)!;
  if (typeof type === "function") {
    const allowed: readonly unknown[] = [...ARRAYS[info.array], Uint8Array];
    if (!allowed.includes(type)) {
      throw new TypeError(
        `A ${texture.format} texture reads as ${
          ARRAYS[info.array].map((A) => A.name).join(" or ")
        }` +
          ` (or a Uint8Array byte view), but it was asked as ${type.name || describe(type)}`,
      );
    }
    Host = type as typeof Host;
  }
  const stream = resolveStreamId(
    typeof type === "function" ? options?.stream : (type as { stream?: StreamId })?.stream,
  );
  const ref = view.ref();
  const bytes = await held.run(stream, [ref.slice.record], [keepRef(ref)], () => {
    return textures.readTexture(ref, stream);
  });
  const each = (Host as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  return new Host(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / each);
}

/** Whether `value` is a texture or one level's view (what `client.write` / `read` take). */
export function isTexture(value: unknown): value is Texture | TextureView {
  return value instanceof Texture || value instanceof TextureView;
}

function owner(texture: Texture | TextureView): Texture {
  return texture instanceof TextureView ? texture.texture : texture;
}

function textureBytes(level: Texture | TextureView, data: unknown): Uint8Array {
  const texture = owner(level);
  const info = TEXTURE_FORMATS[texture.format as TextureFormat];
  const allowed = ARRAYS[info.array] as readonly (new (n: number) => ArrayBufferView)[];
  const length = level.width * level.height * level.depthOrArrayLayers *
    texture.sampleCount * info.bytes;
  if (!allowed.some((A) => data instanceof A)) {
    throw new TypeError(
      `A ${texture.format} texture takes a ${allowed.map((A) => A.name).join(" or ")}, got ` +
        describe(data),
    );
  }
  const view = data as ArrayBufferView;
  if (view.byteLength !== length) {
    const each = (view as Uint8Array).BYTES_PER_ELEMENT;
    const which = level instanceof TextureView ? viewName(level) : "A";
    throw new RangeError(
      `${which} ${textureExtent(texture)} ${texture.format} texture${
        texture.sampleCount > 1 ? ` of ${texture.sampleCount} samples per texel` : ""
      } takes ` +
        `${length / each} elements, got ${view.byteLength / each}`,
    );
  }
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** How a length refusal names a view: its level and layers, or `"A"` when it is the whole. */
function viewName(view: TextureView): string {
  const { mipLevel, baseArrayLayer: base, arrayLayerCount: count } = view;
  const many = view.texture.mipLevelCount > 1;
  if (count === undefined && !many) return "A";
  const extent = textureExtent({ ...view, dimension: view.texture.dimension });
  const level = many ? `mip level ${mipLevel}` : "";
  const layers = count === undefined
    ? ""
    : count === 1
    ? `Layer ${base}`
    : `Layers ${base} to ${base + count - 1}`;
  return `${layers}${layers && level ? " of " : ""}${layers ? level : "Mip" + level.slice(3)} ` +
    `(${extent}) of a`;
}
