/**
 * Textures of the WebGPU server: made on request (not pooled: a texture's size and format are
 * its identity), each with a {@linkcode SliceRecord} of its own so that the stream scheduler
 * orders and pins a texture exactly like a buffer (by memory identity), and destroyed once its
 * last owner is disposed and its last pin released.
 *
 * Writes and reads go through a staging buffer in a copy task (stream order, like buffers): rows
 * are padded to `bytesPerRow` multiples of 256 there, as `copyBufferToTexture` and
 * `copyTextureToBuffer` require, and packed again on the host.
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { SliceHandle } from "../../../core/handles/slice.ts";
import { SliceRecord } from "../../../core/handles/slice_record.ts";
import { TEXTURE_FORMATS, type TextureFormat } from "../../../core/handles/texture_format.ts";
import type { CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";

/** The device texture behind a texture record (the record's `tag`). */
export class TextureEntry {
  /** The texture and its default view (what bind groups bind). */
  constructor(
    readonly texture: GPUTexture,
    readonly view: GPUTextureView,
    readonly format: TextureFormat,
    readonly width: number,
    readonly height: number,
  ) {}

  /** Bytes of the texels, tightly packed. */
  get bytes(): number {
    return this.width * this.height * TEXTURE_FORMATS[this.format].bytes;
  }
}

/** What a texture is made from. */
export interface TextureShape {
  readonly width: number;
  readonly height: number;
  readonly format: TextureFormat;
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

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** Makes a texture; `RangeError` past the device's 2-D size limit. */
  create(shape: TextureShape): SliceHandle {
    const { width, height, format } = shape;
    const max = this.#device.limits.maxTextureDimension2D;
    if (width > max || height > max) {
      throw new RangeError(
        `Cannot create a ${width}x${height} texture as the device limit is ${max} per side ` +
          `(maxTextureDimension2D)`,
      );
    }
    const storage = TEXTURE_FORMATS[format].storage.length > 0;
    const texture = this.#device.createTexture({
      label: shape.label,
      size: { width, height },
      format,
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_SRC |
        GPUTextureUsage.COPY_DST | (storage ? GPUTextureUsage.STORAGE_BINDING : 0),
    });
    this.#live.add(texture);
    const entry = new TextureEntry(texture, texture.createView(), format, width, height);
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

  /** A copy task writing `data` (every texel, tightly packed) into the texture. */
  write(entry: TextureEntry, data: Uint8Array): CopyTask {
    const { width, height } = entry;
    const row = width * TEXTURE_FORMATS[entry.format].bytes;
    const padded = align256(row);
    const staging = this.#device.createBuffer({
      size: padded * height,
      usage: BufferUsage.COPY_SRC,
      mappedAtCreation: true,
    });
    const bytes = new Uint8Array(staging.getMappedRange());
    for (let y = 0; y < height; y++) {
      bytes.set(data.subarray(y * row, (y + 1) * row), y * padded);
    }
    staging.unmap();
    return {
      kind: "copy",
      copies: [],
      encode: (encoder) =>
        encoder.copyBufferToTexture(
          { buffer: staging, bytesPerRow: padded, rowsPerImage: height },
          { texture: entry.texture },
          { width, height },
        ),
      done: () => staging.destroy(),
    };
  }

  /** A read of every texel of the texture, tightly packed. */
  read(entry: TextureEntry): PendingTextureRead {
    const { width, height } = entry;
    const row = width * TEXTURE_FORMATS[entry.format].bytes;
    const padded = align256(row);
    const staging = this.#device.createBuffer({
      size: padded * height,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    const destroy = () => staging.destroy();
    return {
      task: {
        kind: "copy",
        copies: [],
        encode: (encoder) =>
          encoder.copyTextureToBuffer(
            { texture: entry.texture },
            { buffer: staging, bytesPerRow: padded, rowsPerImage: height },
            { width, height },
          ),
      },
      async result(): Promise<Uint8Array> {
        try {
          await staging.mapAsync(GPUMapMode.READ);
          const mapped = new Uint8Array(staging.getMappedRange());
          const out = new Uint8Array(row * height);
          for (let y = 0; y < height; y++) {
            out.set(mapped.subarray(y * padded, y * padded + row), y * row);
          }
          staging.unmap();
          return out;
        } finally {
          destroy();
        }
      },
      cancel: destroy,
    };
  }

  /** Destroys every texture (the server is being destroyed). */
  destroy(): void {
    for (const texture of this.#live) texture.destroy();
    this.#live.clear();
  }
}

function align256(n: number): number {
  return Math.ceil(n / 256) * 256;
}
