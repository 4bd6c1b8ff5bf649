/**
 * The texture formats the runtime creates textures in, and what each one is: bytes per texel,
 * the host array its texels read back as, how a WGSL kernel may read it (`sample`: the sampled
 * type and filterability) and whether it may be a storage texture (`storage`: the accesses
 * WebGPU allows for it in a compute shader without optional features).
 *
 * @module
 */

/**
 * A texture format the runtime supports (WebGPU's names).
 *
 * @example
 * ```ts
 * import type { TextureFormat } from "@gpucompute/runtime";
 * const format: TextureFormat = "rgba8unorm";
 * ```
 */
export type TextureFormat =
  | "rgba8unorm"
  | "rgba8snorm"
  | "rgba8uint"
  | "rgba8sint"
  | "rgba16float"
  | "rgba16uint"
  | "rgba16sint"
  | "rgba32float"
  | "rgba32uint"
  | "rgba32sint"
  | "r32float"
  | "r32uint"
  | "r32sint"
  | "rg32float"
  | "rg32uint"
  | "rg32sint"
  | "bgra8unorm"
  | "depth32float"
  | "depth16unorm";

/** How a sampled texture's texels are read: WGSL's `texture_2d<T>` and WebGPU's sample type. */
export type TextureSampleKind = "float" | "unfilterable-float" | "uint" | "sint" | "depth";

/** What the runtime knows about one format. */
export interface TextureFormatInfo {
  /** Bytes of one texel. */
  readonly bytes: number;
  /** The host array of the texels' components (`"f16"`: raw halves in a `Uint16Array`). */
  readonly array: "u8" | "i8" | "u16" | "i16" | "f16" | "u32" | "i32" | "f32";
  /** The sample type of a `texture_2d` of this format. */
  readonly sample: TextureSampleKind;
  /** Storage-texture accesses WebGPU allows (core, no optional feature). */
  readonly storage: readonly ("read" | "write" | "read_write")[];
  /** The device feature {@linkcode storage} needs, if any (`bgra8unorm-storage`). */
  readonly storageFeature?: string;
  /** Whether WebGPU makes multisampled (`sampleCount: 4`) textures of it. */
  readonly multisample: boolean;
  /** A depth format: bound as `texture_depth_*`, never as a storage texture. */
  readonly depth?: boolean;
}

const RW = ["read", "write", "read_write"] as const;
const RO_WO = ["read", "write"] as const;

/**
 * Every supported format and what it is.
 *
 * @example
 * ```ts
 * import { TEXTURE_FORMATS } from "./texture_format.ts"; // inside the runtime
 * console.log(TEXTURE_FORMATS.rgba8unorm.bytes); // 4
 * ```
 */
export const TEXTURE_FORMATS: Readonly<Record<TextureFormat, TextureFormatInfo>> = Object.freeze({
  rgba8unorm: { bytes: 4, array: "u8", sample: "float", storage: RO_WO, multisample: true },
  rgba8snorm: { bytes: 4, array: "i8", sample: "float", storage: RO_WO, multisample: false },
  rgba8uint: { bytes: 4, array: "u8", sample: "uint", storage: RO_WO, multisample: true },
  rgba8sint: { bytes: 4, array: "i8", sample: "sint", storage: RO_WO, multisample: true },
  rgba16float: { bytes: 8, array: "f16", sample: "float", storage: RO_WO, multisample: true },
  rgba16uint: { bytes: 8, array: "u16", sample: "uint", storage: RO_WO, multisample: true },
  rgba16sint: { bytes: 8, array: "i16", sample: "sint", storage: RO_WO, multisample: true },
  rgba32float: {
    bytes: 16,
    array: "f32",
    sample: "unfilterable-float",
    storage: RO_WO,
    multisample: false,
  },
  rgba32uint: { bytes: 16, array: "u32", sample: "uint", storage: RO_WO, multisample: false },
  rgba32sint: { bytes: 16, array: "i32", sample: "sint", storage: RO_WO, multisample: false },
  r32float: {
    bytes: 4,
    array: "f32",
    sample: "unfilterable-float",
    storage: RW,
    multisample: true,
  },
  r32uint: { bytes: 4, array: "u32", sample: "uint", storage: RW, multisample: false },
  r32sint: { bytes: 4, array: "i32", sample: "sint", storage: RW, multisample: false },
  rg32float: {
    bytes: 8,
    array: "f32",
    sample: "unfilterable-float",
    storage: RO_WO,
    multisample: false,
  },
  rg32uint: { bytes: 8, array: "u32", sample: "uint", storage: RO_WO, multisample: false },
  rg32sint: { bytes: 8, array: "i32", sample: "sint", storage: RO_WO, multisample: false },
  bgra8unorm: {
    bytes: 4,
    array: "u8",
    sample: "float",
    storage: ["write"],
    storageFeature: "bgra8unorm-storage",
    multisample: true,
  },
  depth32float: {
    bytes: 4,
    array: "f32",
    sample: "depth",
    storage: [],
    multisample: true,
    depth: true,
  },
  depth16unorm: {
    bytes: 2,
    array: "u16",
    sample: "depth",
    storage: [],
    multisample: true,
    depth: true,
  },
});

/** Whether `value` names a supported format. */
export function isTextureFormat(value: unknown): value is TextureFormat {
  return typeof value === "string" && Object.hasOwn(TEXTURE_FORMATS, value);
}

/** A texture's size and dimension, as errors and labels name it. */
export interface TextureExtent {
  readonly width: number;
  readonly height: number;
  readonly depthOrArrayLayers: number;
  readonly dimension: "1d" | "2d" | "3d";
}

/**
 * How errors and labels name a texture's shape: `2-D 4x4`, `2-D 4x4 with 6 layers`,
 * `3-D 4x4x8`, `1-D 16`.
 */
export function textureExtent(t: TextureExtent): string {
  if (t.dimension === "1d") return `1-D ${t.width}`;
  if (t.dimension === "3d") return `3-D ${t.width}x${t.height}x${t.depthOrArrayLayers}`;
  const layers = t.depthOrArrayLayers;
  return `2-D ${t.width}x${t.height}${layers === 1 ? "" : ` with ${layers} layers`}`;
}

/**
 * The most mip levels a texture of this size takes: `floor(log2(largest side)) + 1`, counting
 * the depth of a 3-D texture but not the layers of a 2-D one (layers do not shrink); 1 for a 1-D
 * texture (WebGPU's rule).
 */
export function maxMipLevels(t: TextureExtent): number {
  if (t.dimension === "1d") return 1;
  const depth = t.dimension === "3d" ? t.depthOrArrayLayers : 1;
  const side = Math.max(t.width, t.height, depth);
  return Math.floor(Math.log2(side)) + 1;
}

/**
 * The size of mip level `level`: `max(1, side >> level)` per side; the layers of a 2-D texture
 * are kept, the depth of a 3-D one shrinks.
 */
export function levelExtent(t: TextureExtent, level: number): TextureExtent {
  if (level === 0) return t;
  const shrink = (side: number) => Math.max(1, side >> level);
  return {
    width: shrink(t.width),
    height: t.dimension === "1d" ? 1 : shrink(t.height),
    depthOrArrayLayers: t.dimension === "3d" ? shrink(t.depthOrArrayLayers) : t.depthOrArrayLayers,
    dimension: t.dimension,
  };
}
