/**
 * Textures of the WebGPU server: made on request (not pooled: a texture's size and format are
 * its identity), each with a {@linkcode SliceRecord} of its own so that the stream scheduler
 * orders and pins a texture exactly like a buffer (by memory identity), and destroyed once its
 * last owner is disposed and its last pin released.
 *
 * Writes and reads go through staging buffers in a copy task (stream order, like buffers): rows
 * are padded to `bytesPerRow` multiples of 256 there, as `copyBufferToTexture` and
 * `copyTextureToBuffer` require, every layer or depth slice `rowsPerImage` (its height) rows
 * after the last, and packed again on the host; a texture larger than `maxBufferSize` is copied
 * in blocks of layers or rows (`_texture_copies.ts`).
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { SliceHandle } from "../../../core/handles/slice.ts";
import { SliceRecord } from "../../../core/handles/slice_record.ts";
import {
  levelExtent,
  TEXTURE_FORMATS,
  type TextureExtent,
  textureExtent,
  type TextureFormat,
} from "../../../core/handles/texture_format.ts";
import type { CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";
import { type CopyBlock, copyBlocks, layerExtent } from "./_texture_copies.ts";
import { TexturePasses } from "./_texture_passes.ts";

/** The device texture behind a texture record (the record's `tag`). */
export class TextureEntry implements TextureExtent {
  readonly width: number;
  readonly height: number;
  readonly depthOrArrayLayers: number;
  readonly dimension: "1d" | "2d" | "3d";
  /** Samples per texel (1, or 4 for a multisampled texture). */
  readonly sampleCount: number;
  /** Mip levels (1 unless made with more). */
  readonly mipLevelCount: number;
  /**
   * Views by view dimension, mip level (`-1`: every level) and layers, made when a binding first asks
   * (what bind groups bind, so that repeated launches find their cached groups).
   */
  readonly #views = new Map<string, GPUTextureView>();

  constructor(readonly texture: GPUTexture, readonly format: TextureFormat, shape: TextureShape) {
    this.width = shape.width;
    this.height = shape.height;
    this.depthOrArrayLayers = shape.depthOrArrayLayers;
    this.dimension = shape.dimension;
    this.sampleCount = shape.sampleCount ?? 1;
    this.mipLevelCount = shape.mipLevelCount ?? 1;
  }

  /** Bytes of the texels of mip level `level` (every sample; `layers` of it), tightly packed. */
  levelBytes(level: number, layers?: number): number {
    const { width, height, depthOrArrayLayers } = levelExtent(this, level);
    return width * height * (layers ?? depthOrArrayLayers) * this.sampleCount *
      TEXTURE_FORMATS[this.format].bytes;
  }

  /**
   * The view with `dimension` (checked against the texture by the launch) of every layer or of
   * `layers` (`[base, count]`), of every mip level or of `level` only.
   */
  view(
    dimension: GPUTextureViewDimension,
    level?: number,
    layers?: readonly [number, number],
  ): GPUTextureView {
    const key = layers === undefined
      ? `${dimension}/${level ?? -1}`
      : `${dimension}/${level ?? -1}/${layers[0]}/${layers[1]}`;
    let view = this.#views.get(key);
    if (view === undefined) {
      view = this.texture.createView({
        dimension,
        ...(level === undefined ? {} : { baseMipLevel: level, mipLevelCount: 1 }),
        ...(layers === undefined ? {} : { baseArrayLayer: layers[0], arrayLayerCount: layers[1] }),
      });
      this.#views.set(key, view);
    }
    return view;
  }
}

/** What a texture is made from. */
export interface TextureShape extends TextureExtent {
  readonly format: TextureFormat;
  readonly sampleCount?: number;
  readonly mipLevelCount?: number;
  readonly label?: string;
}

/** A texture read being prepared: the task to register, then the texels. */
export interface PendingTextureRead {
  readonly task: CopyTask;
  result(): Promise<Uint8Array>;
  cancel(): void;
}

/** The textures of one device. */
export class WebGpuTextures {
  readonly #device: GPUDevice;
  readonly #live = new Set<GPUTexture>();
  readonly #entries = new WeakSet<TextureEntry>();

  /** The largest staging buffer a copy makes (`maxBufferSize`; smaller in tests). */
  readonly #maxStaging: number;

  /** The render and compute passes that fill and read depth and multisampled textures. */
  readonly #passes: TexturePasses;

  constructor(device: GPUDevice, maxStaging: number = device.limits.maxBufferSize) {
    this.#device = device;
    this.#maxStaging = maxStaging;
    this.#passes = new TexturePasses(device);
  }

  /** Makes a texture; `RangeError` past the device's size limits for its dimension. */
  create(shape: TextureShape): SliceHandle {
    const { width, height, depthOrArrayLayers, dimension, format } = shape;
    checkLimits(this.#device.limits, shape);
    const texture = this.#device.createTexture({
      label: shape.label,
      size: { width, height, depthOrArrayLayers },
      dimension,
      format,
      sampleCount: shape.sampleCount ?? 1,
      mipLevelCount: shape.mipLevelCount ?? 1,
      usage: textureUsage(this.#device, format, shape.sampleCount ?? 1),
    });
    this.#live.add(texture);
    const entry = new TextureEntry(texture, format, shape);
    this.#entries.add(entry);
    const live = this.#live;
    const record = new SliceRecord(() => {
      live.delete(texture);
      texture.destroy();
    }, entry);
    return new SliceHandle(record);
  }

  /** Whether this server made the texture. */
  owns(entry: TextureEntry): boolean {
    return this.#entries.has(entry);
  }

  /**
   * Whether `ref` is a texture: `true` for a live texture of this device, `INVALID_HANDLE` for a
   * disposed one or another device's, `false` for buffer memory (which the memory checks).
   */
  checkRef(ref: HandleRef): boolean {
    const entry = WebGpuTextures.entry(ref);
    if (entry === undefined) return false;
    if (ref.slice.record.disposed || !this.owns(entry)) throw ref.notFound();
    return true;
  }

  /** {@linkcode WebGpuTextures.entry}, for parts that hold the textures. */
  find(ref: HandleRef): TextureEntry | undefined {
    return WebGpuTextures.entry(ref);
  }

  /** The texture behind a ref, or `undefined` when the ref is not a texture. */
  static entry(ref: HandleRef): TextureEntry | undefined {
    const tag = ref.slice.record.tag;
    return tag instanceof TextureEntry ? tag : undefined;
  }

  /**
   * A copy task writing `data` (every texel of mip level `level`, or of its `layers`
   * (`[base, count]`), tightly packed).
   */
  write(
    entry: TextureEntry,
    data: Uint8Array,
    level = 0,
    layers?: readonly [number, number],
  ): CopyTask {
    // WebGPU copies into neither depth32float nor multisampled textures: a render pass fills them.
    if (this.#passes.renders(entry)) return this.#passes.fill(entry, data, level, layers);
    const size = layerExtent(entry, level, layers);
    const row = size.width * TEXTURE_FORMATS[entry.format].bytes;
    const padded = align256(row);
    const copies = this.#blocks(entry, size, padded, layers).map((block) => {
      const staging = this.#device.createBuffer({
        size: padded * block.rows,
        usage: BufferUsage.COPY_SRC,
        mappedAtCreation: true,
      });
      const bytes = new Uint8Array(staging.getMappedRange());
      for (let y = 0; y < block.rows; y++) {
        const from = (block.first + y) * row;
        bytes.set(data.subarray(from, from + row), y * padded);
      }
      staging.unmap();
      return { block, staging };
    });
    return {
      kind: "copy",
      copies: [],
      encode: (encoder) => {
        for (const { block, staging } of copies) {
          encoder.copyBufferToTexture(
            { buffer: staging, bytesPerRow: padded, rowsPerImage: block.size.height },
            { texture: entry.texture, mipLevel: level, origin: block.origin },
            block.size,
          );
        }
      },
      done: () => copies.forEach((c) => c.staging.destroy()),
    };
  }

  /** A read of every texel of mip level `level` (of its `layers`, if given), tightly packed. */
  read(entry: TextureEntry, level = 0, layers?: readonly [number, number]): PendingTextureRead {
    // A multisampled texture (one layer) cannot be copied: a compute pass reads its samples.
    if (entry.sampleCount > 1) return this.#passes.read(entry);
    const size = layerExtent(entry, level, layers);
    const row = size.width * TEXTURE_FORMATS[entry.format].bytes;
    const padded = align256(row);
    const copies = this.#blocks(entry, size, padded, layers).map((block) => ({
      block,
      staging: this.#device.createBuffer({
        size: padded * block.rows,
        usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
      }),
    }));
    const destroy = () => copies.forEach((c) => c.staging.destroy());
    return {
      task: {
        kind: "copy",
        copies: [],
        encode: (encoder) => {
          for (const { block, staging } of copies) {
            encoder.copyTextureToBuffer(
              { texture: entry.texture, mipLevel: level, origin: block.origin },
              { buffer: staging, bytesPerRow: padded, rowsPerImage: block.size.height },
              block.size,
            );
          }
        },
      },
      async result(): Promise<Uint8Array> {
        try {
          await Promise.all(copies.map((c) => c.staging.mapAsync(GPUMapMode.READ)));
          const out = new Uint8Array(row * size.height * size.depthOrArrayLayers);
          for (const { block, staging } of copies) {
            const mapped = new Uint8Array(staging.getMappedRange());
            for (let y = 0; y < block.rows; y++) {
              out.set(mapped.subarray(y * padded, y * padded + row), (block.first + y) * row);
            }
            staging.unmap();
          }
          return out;
        } finally {
          destroy();
        }
      },
      cancel: destroy,
    };
  }

  /**
   * The copy blocks of a texture's level of `size` with rows of `padded` bytes (from layer
   * `layers[0]`); `RangeError` for a depth image larger than a staging buffer (WebGPU copies
   * depth textures in whole images only).
   */
  #blocks(
    entry: TextureEntry,
    size: TextureExtent,
    padded: number,
    layers?: readonly [number, number],
  ): CopyBlock[] {
    if (TEXTURE_FORMATS[entry.format].depth && padded * size.height > this.#maxStaging) {
      throw new RangeError(
        `A ${entry.format} image of ${textureExtent(size)} is ${padded * size.height} bytes ` +
          `in a copy, past the ${this.#maxStaging} of one buffer (maxBufferSize), and WebGPU ` +
          `copies depth textures in whole images only: read it with a kernel`,
      );
    }
    const blocks = copyBlocks(size, padded, this.#maxStaging);
    const base = layers?.[0] ?? 0;
    return base === 0
      ? blocks
      : blocks.map((b) => ({ ...b, origin: { ...b.origin, z: (b.origin.z ?? 0) + base } }));
  }

  /** Destroys every texture (the server is being destroyed). */
  destroy(): void {
    for (const texture of this.#live) texture.destroy();
    this.#live.clear();
  }
}

/** `RangeError` for a texture past the device's limits for its dimension, naming the limit. */
function checkLimits(limits: GPUSupportedLimits, shape: TextureShape): void {
  const { width, height, depthOrArrayLayers: layers, dimension } = shape;
  const past = (field: string, value: number, limit: string) => {
    const max = (limits as unknown as Record<string, number>)[limit];
    if (value <= max) return;
    throw new RangeError(
      `Cannot create a ${textureExtent(shape)} texture: its ${field} ${value} is past the ` +
        `device limit ${max} (${limit})`,
    );
  };
  const side = dimension === "1d"
    ? "maxTextureDimension1D"
    : dimension === "2d"
    ? "maxTextureDimension2D"
    : "maxTextureDimension3D";
  past("width", width, side);
  past("height", height, side);
  past("depthOrArrayLayers", layers, dimension === "3d" ? side : "maxTextureArrayLayers");
}

/**
 * A texture's usages: multisampled ones are rendered to (filled by a render pass, read by a
 * compute pass) and never copied; depth32float is rendered to and copied from; a format is
 * storage-bound where WebGPU allows it (`bgra8unorm` with the device's `bgra8unorm-storage`).
 */
function textureUsage(device: GPUDevice, format: TextureFormat, samples: number): number {
  const U = GPUTextureUsage;
  if (samples > 1) return U.TEXTURE_BINDING | U.RENDER_ATTACHMENT;
  if (format === "depth32float") return U.TEXTURE_BINDING | U.COPY_SRC | U.RENDER_ATTACHMENT;
  const info = TEXTURE_FORMATS[format];
  const feature = info.storageFeature as GPUFeatureName | undefined;
  const storage = info.storage.length > 0 &&
    (feature === undefined || (device.features?.has(feature) ?? false));
  return U.TEXTURE_BINDING | U.COPY_SRC | U.COPY_DST | (storage ? U.STORAGE_BINDING : 0);
}

function align256(n: number): number {
  return Math.ceil(n / 256) * 256;
}
