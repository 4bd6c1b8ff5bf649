/**
 * Options and results of {@linkcode ComputeClient} calls.
 *
 * @module
 */

import type { Handle, HandleRef } from "../core/handles/handle.ts";
import type { AllocationKind } from "../core/allocation.ts";
import type { CubeCount } from "../core/cube_count.ts";
import type { ArrayOf, DType } from "../core/dtype.ts";
import type { KernelParams } from "../core/kernel.ts";
import type { MetadataArgument, StorageType } from "../core/kernel_arguments.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ProfileDuration } from "../server/server.ts";
import type { SamplerDescriptor } from "../server/texture_server.ts";
import type { TextureFormat } from "../core/handles/texture_format.ts";
import type { Texture } from "./textures/texture.ts";
import type { TextureView } from "./textures/texture_view.ts";

/**
 * Options that pick the stream of one call.
 *
 * @example
 * ```ts
 * import type { StreamOptions } from "@gpucompute/runtime";
 * const options: StreamOptions = { stream: 2 };
 * ```
 */
export interface StreamOptions {
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * Options of the calls that make a handle (`createWithData`, `empty`, `zeros`...).
 *
 * @example
 * ```ts
 * import type { CreateOptions } from "@gpucompute/runtime";
 * const options: CreateOptions = { label: "weights", stream: 1 };
 * ```
 */
export interface CreateOptions extends StreamOptions {
  /**
   * Your name for the handle: error messages about it use it.
   * @default {undefined}
   */
  label?: string;
}

/**
 * Options of {@linkcode ComputeClient.full}.
 *
 * @example
 * ```ts
 * import type { FullOptions } from "@gpucompute/runtime";
 * const options: FullOptions<"u32"> = { dtype: "u32" };
 * ```
 */
export interface FullOptions<D extends DType = "f32"> extends CreateOptions {
  /**
   * The element type.
   * @default {"f32"}
   */
  dtype?: D;
}

/**
 * Options of {@linkcode ComputeClient.arange}: element `i` is `start + i * step`.
 *
 * @example
 * ```ts
 * import type { ArangeOptions } from "@gpucompute/runtime";
 * const odd: ArangeOptions = { start: 1, step: 2 };
 * ```
 */
export interface ArangeOptions extends CreateOptions {
  /**
   * The first value.
   * @default {0}
   */
  start?: number;
  /**
   * The difference between neighbours.
   * @default {1}
   */
  step?: number;
}

/**
 * Options of {@linkcode ComputeClient.createTensor}.
 *
 * @example
 * ```ts
 * import type { TensorOptions } from "@gpucompute/runtime";
 * const options: TensorOptions = { kind: "optimized" };
 * ```
 */
export interface TensorOptions extends CreateOptions {
  /**
   * Memory layout.
   * @default {"contiguous"}
   */
  kind?: AllocationKind;
}

/**
 * Options of {@linkcode ComputeClient.createTexture}: a 1-D, 2-D (layered or not) or 3-D
 * texture, filled with `data` (the format's host array, rows tightly packed, then layers or
 * depth slices) if given. A 2-D texture's view follows the kernel's binding: `texture_2d` takes
 * one layer, `texture_2d_array` any number, `texture_cube` 6 square layers, `texture_cube_array`
 * 6n.
 *
 * @example
 * ```ts
 * import type { CreateTextureOptions } from "@gpucompute/runtime";
 * const image: CreateTextureOptions = { width: 2, height: 1, format: "rgba8unorm" };
 * const cube: CreateTextureOptions = {
 *   width: 16,
 *   height: 16,
 *   depthOrArrayLayers: 6,
 *   format: "rgba8unorm",
 * };
 * ```
 */
export interface CreateTextureOptions extends CreateOptions {
  /** Texels per row (at most the device's `maxTextureDimension1D`/`2D`/`3D`). */
  width: number;
  /** Rows (1 for a 1-D texture). */
  height: number;
  /**
   * Depth slices of a 3-D texture, array layers of a 2-D one (at most `maxTextureArrayLayers`);
   * 1 for a 1-D texture.
   * @default {1}
   */
  depthOrArrayLayers?: number;
  /**
   * `"1d"`, `"2d"` or `"3d"`.
   * @default {"2d"}
   */
  dimension?: "1d" | "2d" | "3d";
  /**
   * The texel format: a color format, or `depth32float` / `depth16unorm` (2-D, for
   * `texture_depth_*` bindings).
   */
  format: TextureFormat;
  /**
   * Samples per texel: 4 makes a multisampled texture (2-D, one layer, a format WebGPU
   * multisamples), bound as `texture_multisampled_2d<T>` / `texture_depth_multisampled_2d`;
   * its `data` and reads hold each texel's 4 samples one after another.
   * @default {1}
   */
  sampleCount?: number;
  /**
   * Mip levels, at most `floor(log2(largest side)) + 1` (the depth of a 3-D texture counts, the
   * layers of a 2-D one do not); 1 for a 1-D or multisampled one. Level n is `max(1, side >> n)`
   * per side; `texture.view({ mipLevel })` binds, writes and reads one level; `data` fills level 0.
   * @default {1}
   */
  mipLevelCount?: number;
  /**
   * Every texel (of level 0): `Uint8Array` for `rgba8unorm`, `Float32Array` for `r32float` /
   * `rgba32float`, `Uint32Array` for `r32uint`, `Uint16Array` (raw halves) or `Float16Array` for
   * `rgba16float`.
   * @default {undefined}
   */
  data?: ArrayBufferView;
}

/**
 * Options of {@linkcode ComputeClient.write}.
 *
 * @example
 * ```ts
 * import type { WriteOptions } from "@gpucompute/runtime";
 * const options: WriteOptions = { offset: 16 }; // from element 16 on
 * ```
 */
export interface WriteOptions extends StreamOptions {
  /**
   * Where the data goes, in elements of the handle's type (bytes for an untyped handle), as
   * `TypedArray.prototype.set` counts it.
   * @default {0}
   */
  offset?: number;
}

/**
 * Options of {@linkcode ComputeClient.waitFor}.
 *
 * @example
 * ```ts
 * import type { WaitForOptions } from "@gpucompute/runtime";
 * const options: WaitForOptions = { stream: 1, timeoutMs: 5_000 };
 * ```
 */
export interface WaitForOptions extends StreamOptions {
  /**
   * Fail the held calls with a `TIMEOUT` error if the value is not reached in time (0: wait as
   * long as it takes).
   * @default {0}
   */
  timeoutMs?: number;
}

/**
 * Options of {@linkcode ComputeClient.copyTo}.
 *
 * @example
 * ```ts
 * import type { CopyToOptions } from "@gpucompute/runtime";
 * const options: CopyToOptions = { stream: 1, destinationStream: 2, label: "partial sums" };
 * ```
 */
export interface CopyToOptions extends CreateOptions {
  /**
   * The stream of the destination client that the copy lands on: later calls there that use the
   * new handle run after it.
   * @default {currentStreamId()}
   */
  destinationStream?: StreamId;
  /**
   * Bytes per chunk of a copy through the host (between WebGPU devices, CUDA and WebGPU): each
   * chunk is written to the destination as soon as it was read. A multiple of 4 (WebGPU copies
   * 4-byte units).
   * @default {4194304}
   */
  chunkBytes?: number;
}

/**
 * A kernel launch through the client: how many invocations (`threads`) or workgroups (`count`),
 * the storage buffers in binding order, and the named `params` of the kernel's uniform. A key
 * not listed here is a `TypeError` at the call (a misspelt option is never ignored).
 *
 * @example
 * ```ts
 * import type { ExecuteOptions, Handle } from "@gpucompute/runtime";
 * const saxpy = (x: Handle<"f32">, y: Handle<"f32">): ExecuteOptions => ({
 *   threads: x.length,
 *   buffers: [x, y],
 *   params: { a: 2, n: x.length },
 * });
 * ```
 */
export interface ExecuteOptions extends StreamOptions {
  /**
   * Invocations to run: `n` or `[x, y, z]`. The workgroups come from the kernel's
   * `@workgroup_size`. A one-dimensional launch beyond the device's workgroups per dimension
   * (65,535 on WebGPU) stays right: see "Large launches" in the README. Give either `threads` or
   * `count`.
   */
  threads?: number | readonly [number, number?, number?];
  /**
   * Workgroups (cubes; blocks on CUDA) to dispatch, when you count them yourself: `n`,
   * `[x, y, z]`, or a {@linkcode CubeCount} (`CubeCount.dynamic(ref)` reads them from a buffer
   * when the launch runs).
   */
  count?: CubeCount | number | readonly [number, number?, number?];
  /**
   * Handles (or their refs) for the kernel's `var<storage>` bindings and textures for its texture
   * bindings: in (group, binding) order, or by WGSL name (`{ x, y }`: an unknown or missing name
   * is a `KernelArgumentError` naming it). Read-only (`var<storage, read>`) and writable ones
   * take any handle whose element type the WGSL declares (an untyped handle binds anywhere).
   * @default {[]}
   */
  buffers?:
    | readonly (Handle | HandleRef | Texture | TextureView)[]
    | Readonly<Record<string, Handle | HandleRef | Texture | TextureView>>;
  /**
   * Samplers for the kernel's `sampler` bindings, as descriptors: in (group, binding) order, or
   * by WGSL name (`{ s: { magFilter: "linear" } }`). Each distinct descriptor is made once.
   * @default {undefined}
   */
  samplers?: readonly SamplerDescriptor[] | Readonly<Record<string, SamplerDescriptor>>;
  /**
   * Values of the kernel's `var<uniform>` struct fields by name, packed by WGSL layout rules
   * (f32, i32, u32, f16, vectors and matrices as arrays, fixed arrays, nested structs as objects).
   * A missing, unknown or out-of-range field is a `KernelArgumentError` naming it. On CUDA: the
   * scalar parameters of CUDA C by name, or of PTX by position (an array: PTX keeps no names).
   * @default {undefined}
   */
  params?: KernelParams | readonly KernelParams[string][];
  /**
   * Values of the kernel's `override` constants by name (`{ W: 64 }`), checked against their
   * WGSL types; one without a default must be given. Each set compiles its own pipeline once.
   * @default {undefined}
   */
  overrides?: { readonly [name: string]: number | boolean };
  /** For generated kernels: scalars by storage type, in CubeCL's info buffer (backend API). */
  scalars?: Partial<Record<StorageType, readonly (number | bigint)[]>>;
  /** For generated kernels: packed metadata, in CubeCL's info buffer (backend API). */
  metadata?: MetadataArgument;
}

/**
 * What {@linkcode ComputeClient.profile} returns.
 *
 * @example
 * ```ts
 * import type { Profiled } from "@gpucompute/runtime";
 * const report = (p: Profiled<void>) => `${p.duration.milliseconds} ms`;
 * ```
 */
export interface Profiled<T> {
  /** The value the profiled function returned. */
  readonly result: T;
  /** The device (or wall-clock) time of the work it launched on the profiled stream. */
  readonly duration: ProfileDuration;
}

/**
 * Options of {@linkcode ComputeClient}.
 *
 * @example
 * ```ts
 * import type { ComputeClientOptions } from "@gpucompute/runtime";
 * const options: ComputeClientOptions = { ownsServer: false };
 * ```
 */
export interface ComputeClientOptions {
  /**
   * Whether {@linkcode ComputeClient.destroy} also destroys the server.
   * @default {true}
   */
  ownsServer?: boolean;
}

/**
 * The arrays `readMany` returns for a list of handles.
 *
 * @example
 * ```ts
 * import type { ArraysOf, Handle } from "@gpucompute/runtime";
 * type Pair = ArraysOf<[Handle<"f32">, Handle<"u32">]>; // [Float32Array, Uint32Array]
 * ```
 */
export type ArraysOf<H extends readonly Handle[]> = {
  -readonly [I in keyof H]: H[I] extends Handle<infer D> ? ArrayOf<D> : never;
};
