/**
 * `cuLaunchKernel` parameters by the internal layout (generated kernels, `./backend`): buffer
 * pointers; with `bufferLengths`, one `u32` byte length per buffer; the metadata words (`u32`);
 * the scalars, type by type in insertion order (see `_params.ts` for the slots they go in).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { KernelArguments, StorageType } from "../../../core/kernel_arguments.ts";
import type { ResourceRange } from "../../server.ts";
import type { KernelParam, KernelSignature } from "../compile/signature.ts";
import { address, isFloat, type LaunchParams } from "./_params.ts";
import { buffersFor } from "./_param_buffers.ts";

const LENGTH_LIMIT = 2 ** 32;

/**
 * Packs a launch by the internal layout (module doc); with a signature, each slot's type is
 * checked against its parameter: a pointer for a pointer, an integer for an integer, a float of
 * the same width for a float.
 */
export function packByLayout(
  kernel: string,
  bufferLengths: boolean,
  buffers: readonly ResourceRange<bigint>[],
  args: KernelArguments,
  signature: KernelSignature | undefined,
): LaunchParams {
  const meta = args.metadata.data;
  let count = buffers.length * (bufferLengths ? 2 : 1) + meta.length;
  for (const scalar of args.scalars.values()) count += scalar.length;
  const { values, view, bytes, pointers } = buffersFor(count);
  // Each slot's type is checked as it is written; what a slot is ("buffers[0]") is named only
  // in an error (`refuseSlot`).
  const params = signature !== undefined && signature.params.length === count
    ? signature.params
    : undefined;
  const sizes: number[] = new Array(count);
  // Buffers whose parameter is `const T*` (a shipped kernel's CUDA C says so): read-only for the
  // stream ordering and not lost with a failed producer (`ComputeServer.writtenBuffers`).
  const readOnly: number[] = [];
  let slot = 0;
  for (let i = 0; i < buffers.length; i++) {
    const buffer = buffers[i];
    if (params !== undefined && slotProblem("pointer", params[slot]) !== undefined) {
      refuseSlot(kernel, params, slot, "pointer", bufferLengths, meta.length, args);
    }
    const param = params?.[slot];
    if (param?.kind === "pointer" && param.readOnly) readOnly.push(i);
    view.setBigUint64(slot * 8, address(buffer), true);
    sizes[slot++] = 8;
  }
  if (bufferLengths) {
    for (let i = 0; i < buffers.length; i++) {
      const buffer = buffers[i];
      if (buffer.size >= LENGTH_LIMIT) {
        throw new RangeError(
          `Kernel '${kernel}' takes u32 buffer lengths; a buffer of ${buffer.size} bytes exceeds them`,
        );
      }
      if (params !== undefined && slotProblem("u32", params[slot]) !== undefined) {
        refuseSlot(kernel, params, slot, "u32", bufferLengths, meta.length, args);
      }
      view.setUint32(slot * 8, buffer.size, true);
      sizes[slot++] = 4;
    }
  }
  for (let i = 0; i < meta.length; i++) {
    if (params !== undefined && slotProblem("u32", params[slot]) !== undefined) {
      refuseSlot(kernel, params, slot, "u32", bufferLengths, meta.length, args);
    }
    view.setUint32(slot * 8, meta[i], true);
    sizes[slot++] = 4;
  }
  for (const scalar of args.scalars.values()) {
    const size = scalar.bytes.byteLength / Math.max(1, scalar.length);
    for (let i = 0; i < scalar.length; i++) {
      if (params !== undefined && slotProblem(scalar.type, params[slot]) !== undefined) {
        refuseSlot(kernel, params, slot, scalar.type, bufferLengths, meta.length, args);
      }
      if (size === 4) view.setUint32(slot * 8, readU32(scalar.bytes, i * 4), true);
      else bytes.set(scalar.bytes.subarray(i * size, (i + 1) * size), slot * 8);
      sizes[slot++] = size;
    }
  }
  return readOnly.length > 0 ? { sizes, pointers, values, readOnly } : { sizes, pointers, values };
}

/** A little-endian u32 of `bytes` at `offset`. */
function readU32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] | bytes[offset + 1] << 8 | bytes[offset + 2] << 16 |
    bytes[offset + 3] << 24) >>> 0;
}

/** Throws the `KernelArgumentError` of a slot whose type does not fit its parameter. */
function refuseSlot(
  kernel: string,
  params: readonly KernelParam[],
  slot: number,
  type: StorageType | "pointer",
  bufferLengths: boolean,
  metadata: number,
  args: KernelArguments,
): never {
  const buffers = args.tensorMaps.length === 0 ? args.buffers.length : args.refs().length;
  throw new KernelArgumentError(
    kernel,
    slotName(slot, buffers, bufferLengths, metadata, args),
    `is passed as parameter '${params[slot].declared}': ${slotProblem(type, params[slot])}`,
  );
}

/** What slot `index` of the internal layout holds, for an error ("buffers[0]"). */
function slotName(
  index: number,
  buffers: number,
  bufferLengths: boolean,
  metadata: number,
  args: KernelArguments,
): string {
  if (index < buffers) return `buffers[${index}]`;
  index -= buffers;
  if (bufferLengths) {
    if (index < buffers) return `the length of buffers[${index}]`;
    index -= buffers;
  }
  if (index < metadata) return `metadata[${index}]`;
  index -= metadata;
  for (const scalar of args.scalars.values()) {
    if (index < scalar.length) return `scalars.${scalar.type}[${index}]`;
    index -= scalar.length;
  }
  return `slot ${index}`;
}

const wide = (type: StorageType | undefined) => type === "u64" || type === "i64";

/** Why a value of `given` type does not fit `param`, or `undefined` when it does. */
function slotProblem(given: StorageType | "pointer", param: KernelParam): string | undefined {
  if (given === "pointer") {
    // A PTX `.u64` integer may hold an address.
    if (param.kind === "pointer" || wide(param.type)) return undefined;
    return "a buffer's pointer does not fit it";
  }
  if (param.kind === "pointer") {
    if (wide(given)) return undefined; // an address given as an integer
    return `a ${given} value does not fit a pointer`;
  }
  if (param.type === undefined) return undefined; // the sizes are compared by the launcher
  const sameKind = isFloat(given) === isFloat(param.type);
  if (!sameKind || (isFloat(given) && given !== param.type)) {
    return `a ${given} value does not fit it`;
  }
  return undefined;
}
