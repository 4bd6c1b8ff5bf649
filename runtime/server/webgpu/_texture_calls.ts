/**
 * The WebGPU server's texture calls (`createTexture`, `writeTexture`, `readTexture` of the
 * contract): a write or read is a copy task registered like a buffer's, so the scheduler orders
 * it after the work of every stream that uses the texture, and pins the texture meanwhile.
 *
 * @module
 */

import { HandleRef } from "../../core/handles/handle_ref.ts";
import type { SliceHandle } from "../../core/handles/slice.ts";
import type { StreamId } from "../../core/stream_id.ts";
import {
  isTextureFormat,
  levelExtent,
  maxMipLevels,
  TEXTURE_FORMATS,
  textureExtent,
  type TextureFormat,
} from "../../core/handles/texture_format.ts";
import { layersOf, mipLevelOf } from "../../core/handles/texture_view_ref.ts";
import { describe } from "../../core/_argument_checks.ts";
import type { TextureDescriptor } from "../texture_server.ts";
import type { WebGpuParts } from "./_parts.ts";
import type { TextureEntry } from "./memory/textures.ts";

/** Makes a texture (`TypeError`/`RangeError` for a bad descriptor). */
export function createTexture(parts: WebGpuParts, descriptor: TextureDescriptor): SliceHandle {
  if (typeof descriptor !== "object" || descriptor === null) {
    throw new TypeError(`The texture descriptor must be an object, got ${describe(descriptor)}`);
  }
  const { width, height, depthOrArrayLayers = 1, dimension = "2d", format } = descriptor;
  if (!DIMENSIONS.includes(dimension)) {
    throw new TypeError(
      `Texture dimension must be "1d", "2d" or "3d", got ${describe(dimension)}`,
    );
  }
  const sides = [["width", width], ["height", height], ["depthOrArrayLayers", depthOrArrayLayers]];
  for (const [field, value] of sides) {
    if (!Number.isInteger(value) || (value as number) < 1) {
      throw new RangeError(`Texture ${field} must be a positive integer, got ${describe(value)}`);
    }
  }
  if (dimension === "1d" && (height !== 1 || depthOrArrayLayers !== 1)) {
    const field = height !== 1 ? "height" : "depthOrArrayLayers";
    throw new RangeError(
      `Texture ${field} must be 1 for a 1-D texture (dimension "1d"), got ` +
        describe(descriptor[field]),
    );
  }
  if (!isTextureFormat(format)) {
    throw new TypeError(
      `Texture format must be one of ${Object.keys(TEXTURE_FORMATS).join(", ")}, got ` +
        describe(format),
    );
  }
  const { sampleCount = 1, mipLevelCount = 1 } = descriptor;
  checkSamples(descriptor, format, sampleCount);
  const max = maxMipLevels({ width, height, depthOrArrayLayers, dimension });
  if (!Number.isInteger(mipLevelCount) || mipLevelCount < 1 || mipLevelCount > max) {
    const extent = textureExtent({ width, height, depthOrArrayLayers, dimension });
    throw new RangeError(
      `Texture mipLevelCount must be an integer from 1 to ${max} (${
        dimension === "1d"
          ? "WebGPU's 1-D textures have one level"
          : "floor(log2(largest side)) + 1"
      } for a ${extent} texture), got ${describe(mipLevelCount)}`,
    );
  }
  if (sampleCount > 1 && mipLevelCount !== 1) {
    throw new RangeError(
      `Texture mipLevelCount must be 1 for a multisampled texture (sampleCount: ${sampleCount}), ` +
        `got ${describe(mipLevelCount)}`,
    );
  }
  return parts.textures.create({
    ...descriptor,
    depthOrArrayLayers,
    dimension,
    sampleCount,
    mipLevelCount,
  });
}

/**
 * WebGPU's rules for depth and multisampled textures, each a `RangeError` naming the option:
 * depth formats are 2-D; `sampleCount` is 1 or 4, and 4 needs a 2-D texture of one layer in a
 * format WebGPU multisamples.
 */
function checkSamples(d: TextureDescriptor, format: TextureFormat, sampleCount: number): void {
  const { depthOrArrayLayers = 1, dimension = "2d" } = d;
  if (TEXTURE_FORMATS[format].depth && dimension !== "2d") {
    throw new RangeError(
      `Texture dimension must be "2d" for a ${format} texture (depth formats are 2-D, with ` +
        `layers for texture_depth_2d_array / cube views), got ${describe(dimension)}`,
    );
  }
  if (sampleCount === 1) return;
  if (sampleCount !== 4) {
    throw new RangeError(`Texture sampleCount must be 1 or 4, got ${describe(sampleCount)}`);
  }
  if (dimension !== "2d" || depthOrArrayLayers !== 1) {
    const field = dimension !== "2d" ? "dimension" : "depthOrArrayLayers";
    throw new RangeError(
      `Texture ${field} must be ${field === "dimension" ? '"2d"' : 1} for a multisampled ` +
        `texture (sampleCount: 4 is a 2-D texture of one layer), got ${describe(d[field])}`,
    );
  }
  if (!TEXTURE_FORMATS[format].multisample) {
    const allowed = Object.entries(TEXTURE_FORMATS).filter(([, i]) => i.multisample);
    throw new RangeError(
      `Texture format ${format} cannot be multisampled (sampleCount: 4): WebGPU multisamples ` +
        `${allowed.map(([f]) => f).join(", ")}`,
    );
  }
}

const DIMENSIONS: readonly unknown[] = ["1d", "2d", "3d"];

/** Writes every texel (of a view's level and layers), in stream order. */
export function writeTexture(
  parts: WebGpuParts,
  ref: HandleRef,
  data: Uint8Array,
  stream: StreamId,
): void {
  const entry = liveTexture(parts, ref);
  const level = checkLevel(entry, ref);
  const layers = checkLayers(entry, ref);
  const bytes = entry.levelBytes(level, layers?.[1]);
  if (!(data instanceof Uint8Array) || data.byteLength !== bytes) {
    const size = { ...levelExtent(entry, level), depthOrArrayLayers: layers?.[1] ?? 0 };
    const part = layers === undefined
      ? `Mip level ${level}`
      : `${
        layers[1] === 1
          ? `Layer ${layers[0]}`
          : `Layers ${layers[0]} to ${layers[0] + layers[1] - 1}`
      } of mip level ${level}`;
    throw new RangeError(
      `${
        level === 0 && layers === undefined
          ? "A"
          : `${part} (${textureExtent(layers ? size : levelExtent(entry, level))}) of a`
      } ` +
        `${textureExtent(entry)} ${entry.format} texture takes ${bytes} bytes, ` +
        `got ${data instanceof Uint8Array ? data.byteLength : describe(data)}`,
    );
  }
  const task = parts.textures.write(entry, data, level, layers);
  try {
    parts.scheduler.registerChecked(stream, task, [ref], undefined);
  } catch (error) {
    task.done?.();
    throw error;
  }
}

/** Reads every texel (of a view's level and layers), in stream order. */
export async function readTexture(
  parts: WebGpuParts,
  ref: HandleRef,
  stream: StreamId,
): Promise<Uint8Array> {
  const entry = liveTexture(parts, ref);
  const read = parts.textures.read(entry, checkLevel(entry, ref), checkLayers(entry, ref));
  try {
    parts.scheduler.registerChecked(stream, read.task, [ref], [ref]);
  } catch (error) {
    read.cancel();
    throw error;
  }
  parts.scheduler.executeStreams([stream]);
  if (parts.encoder.parking) await parts.awaitDevice(parts.encoder.released());
  const result = await parts.awaitDevice(read.result(), "the map of a texture read");
  await parts.awaitDevice(parts.encoder.validated(stream));
  parts.encoder.errors.throwFor(stream);
  return result;
}

function liveTexture(parts: WebGpuParts, ref: HandleRef): TextureEntry {
  if (!(ref instanceof HandleRef)) throw new TypeError(`Expected a texture's HandleRef`);
  const entry = parts.textures.find(ref);
  if (entry === undefined) throw new TypeError(`${ref.describe()} is a buffer, not a texture`);
  if (ref.slice.record.disposed || !parts.textures.owns(entry)) throw ref.notFound();
  return entry;
}

/** The mip level `ref` names (0 for a whole texture); `RangeError` past the texture's levels. */
function checkLevel(entry: TextureEntry, ref: HandleRef): number {
  const level = mipLevelOf(ref) ?? 0;
  if (!Number.isInteger(level) || level < 0 || level >= entry.mipLevelCount) {
    throw new RangeError(
      `mipLevel must be an integer from 0 to ${entry.mipLevelCount - 1} (the texture has ` +
        `${entry.mipLevelCount} mip level${entry.mipLevelCount === 1 ? "" : "s"}), got ` +
        describe(level),
    );
  }
  return level;
}

/** The layers `ref` names (`undefined`: all); `RangeError` past the texture's, or on a 3-D one. */
function checkLayers(entry: TextureEntry, ref: HandleRef): readonly [number, number] | undefined {
  const layers = layersOf(ref);
  if (layers === undefined) return undefined;
  const [base, count] = layers;
  const all = entry.dimension === "3d" ? 0 : entry.depthOrArrayLayers;
  if (!(Number.isInteger(base) && Number.isInteger(count) && base >= 0 && count >= 1)) {
    throw new RangeError(`baseArrayLayer and arrayLayerCount must be integers, got ${layers}`);
  }
  if (base + count > all) {
    throw new RangeError(
      `baseArrayLayer + arrayLayerCount must be at most ${all} (the ${textureExtent(entry)} ` +
        `texture's layers), got ${base} + ${count}`,
    );
  }
  return layers;
}
