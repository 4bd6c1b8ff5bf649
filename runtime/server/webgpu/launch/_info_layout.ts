/**
 * The layout of the info buffer that carries a launch's metadata and scalars.
 *
 * For generated kernels (CubeCL's convention): one info buffer per dispatch, bound to the module's
 * last `@group(0)` binding (after the buffers) when the launch has any metadata word or scalar,
 * and not bound otherwise. Kernels written by hand use named `params` instead. Layout, in bytes:
 *
 * 1. the metadata words (`KernelArguments.metadata.data`, static then dynamic part) as u32, from 0;
 * 2. then one group per scalar storage type present, in the fixed order of
 *    {@linkcode INFO_SCALAR_ORDER} (widest first), each group starting at a multiple of 16 bytes
 *    and holding the type's scalars little-endian and packed;
 * 3. the total is padded to a multiple of 16 bytes (at least 16).
 *
 * A kernel reads it as an array of words, `var<storage, read> info: array<u32>` (a struct there is
 * refused: its named fields are `params`), and bitcasts, e.g. the first f32
 * scalar of a launch with 3 metadata words is `bitcast<f32>(info[4])` (offset 16 / 4).
 *
 * @module
 */

import {
  type KernelArguments,
  STORAGE_TYPE_SIZE,
  type StorageType,
} from "../../../core/kernel_arguments.ts";

/**
 * The order of scalar groups in the info buffer (widest first).
 *
 * @example
 * ```ts
 * import { INFO_SCALAR_ORDER } from "@gpucompute/runtime/webgpu";
 * console.log(INFO_SCALAR_ORDER.indexOf("f32") < INFO_SCALAR_ORDER.indexOf("u32")); // true
 * ```
 */
export const INFO_SCALAR_ORDER: readonly StorageType[] = [
  "f64",
  "i64",
  "u64",
  "f32",
  "i32",
  "u32",
  "f16",
  "bf16",
  "i16",
  "u16",
  "i8",
  "u8",
];

/**
 * The packed info bytes of a launch and where each part starts.
 *
 * @example
 * ```ts
 * import type { InfoLayout } from "@gpucompute/runtime/webgpu";
 * const f32Word = (layout: InfoLayout) => (layout.scalarOffsets.get("f32") ?? 0) / 4;
 * ```
 */
export interface InfoLayout {
  /** The bytes to upload (a multiple of 16). */
  readonly bytes: Uint8Array;
  /** Number of metadata words at offset 0. */
  readonly metadataWords: number;
  /** Byte offset of each scalar group present. */
  readonly scalarOffsets: ReadonlyMap<StorageType, number>;
}

const align16 = (n: number) => Math.ceil(n / 16) * 16;

/**
 * Packs a launch's metadata and scalars, or returns `undefined` when it has neither.
 *
 * @example
 * ```ts
 * import { KernelArguments } from "@gpucompute/runtime/backend";
 * import { packInfo } from "@gpucompute/runtime/webgpu";
 * const args = new KernelArguments()
 *   .withMetadata({ data: new Uint32Array([7, 8, 9]), staticLength: 3 })
 *   .withScalar("u32", [5])
 *   .withScalar("f32", [1.5]);
 * const layout = packInfo(args)!;
 * console.log(layout.scalarOffsets.get("f32"), layout.scalarOffsets.get("u32")); // 16 32
 * ```
 */
export function packInfo(args: KernelArguments): InfoLayout | undefined {
  const metadata = args.metadata.data;
  if (metadata.length === 0 && !args.hasScalars) return undefined;
  const scalarOffsets = new Map<StorageType, number>();
  const bytes = new Uint8Array(infoSize(args, scalarOffsets));
  writeInfo(args, bytes, 0);
  return { bytes, metadataWords: metadata.length, scalarOffsets };
}

/**
 * The byte size of a launch's info buffer (a multiple of 16, at least 16), recording where each
 * scalar group starts in `offsets` when given.
 */
export function infoSize(args: KernelArguments, offsets?: Map<StorageType, number>): number {
  let size = args.metadata.data.length * 4;
  if (args.hasScalars) {
    const scalars = args.scalars;
    for (const type of INFO_SCALAR_ORDER) {
      const scalar = scalars.get(type);
      if (scalar === undefined) continue;
      size = align16(size);
      offsets?.set(type, size);
      size += scalar.length * STORAGE_TYPE_SIZE[type];
    }
  }
  return Math.max(16, align16(size));
}

/** Writes a launch's info bytes at `offset` of `target` (whose range is zeroed). */
export function writeInfo(args: KernelArguments, target: Uint8Array, offset: number): void {
  const metadata = args.metadata.data;
  target.set(new Uint8Array(metadata.buffer, metadata.byteOffset, metadata.byteLength), offset);
  if (!args.hasScalars) return;
  let size = metadata.length * 4;
  const scalars = args.scalars;
  for (const type of INFO_SCALAR_ORDER) {
    const scalar = scalars.get(type);
    if (scalar === undefined) continue;
    size = align16(size);
    target.set(scalar.bytes, offset + size);
    size += scalar.length * STORAGE_TYPE_SIZE[type];
  }
}
