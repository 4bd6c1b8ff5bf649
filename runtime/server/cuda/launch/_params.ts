/**
 * `cuLaunchKernel` parameters: checked against the kernel's signature (`compile/signature.ts`)
 * and packed. `kernelParams` is an array of pointers, one per kernel parameter, each to the
 * parameter's value; the driver copies the values during the call, so both arrays only need to
 * live for the call, and one pair per parameter count is reused by every launch (calls are
 * synchronous, on one thread). Values sit in 8-byte slots.
 *
 * Two ways to fill them:
 *
 * - **By signature** (the user path: `buffers` and `params`, no metadata or scalars): the
 *   buffers fill the pointer parameters in order, each handle's element type checked against the
 *   pointee (`float*` takes f32 handles; untyped handles and `void*` take anything); `params`
 *   fill the scalar parameters, by name for CUDA C and by position (an array) for PTX, each value
 *   checked against the declared type. A missing, unknown or ill-typed value is a
 *   `KernelArgumentError` naming it.
 * - **By the internal layout** (generated kernels, `./backend`): buffer pointers; with
 *   `bufferLengths`, one `u32` byte length per buffer; the metadata words (`u32`); the scalars,
 *   type by type in insertion order. Each slot's type is checked against the signature too where
 *   one is known: a float scalar for an integer parameter (or the reverse) is refused.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { KernelArguments, StorageType } from "../../../core/kernel_arguments.ts";
import { ScalarArgument } from "../../../core/kernel_arguments.ts";
import type { KernelParams } from "../../../core/kernel.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { ResourceRange } from "../../server.ts";
import type { KernelParam, KernelSignature } from "../compile/signature.ts";

/** The marshalled parameters of one launch. */
export interface LaunchParams {
  /** Byte size of each parameter, in order. */
  readonly sizes: readonly number[];
  /** The `void**` array. */
  readonly pointers: BigUint64Array;
  /** The values the pointers point into (keep alive through the call). */
  readonly values: ArrayBuffer;
  /** The buffers bound to `const T*` parameters (by index into the launch's buffers). */
  readonly readOnly?: readonly number[];
}

const LENGTH_LIMIT = 2 ** 32;

/** Parameter buffers by slot count, reused: the driver copies the values during the call. */
const scratch = new Map<
  number,
  { values: ArrayBuffer; view: DataView; bytes: Uint8Array; pointers: BigUint64Array }
>();

function buffersFor(count: number) {
  let entry = scratch.get(count);
  if (entry === undefined) {
    const values = new ArrayBuffer(Math.max(8, count * 8));
    const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
    const pointers = new BigUint64Array(count);
    for (let i = 0; i < count; i++) pointers[i] = base + BigInt(i * 8);
    entry = { values, view: new DataView(values), bytes: new Uint8Array(values), pointers };
    scratch.set(count, entry);
  }
  return entry;
}

const INTEGER = /^[iu]/;
const isFloat = (type: StorageType) => !INTEGER.test(type);

/** Whether a launch uses the internal layout rather than the signature. */
export function usesLayout(args: KernelArguments, bufferLengths: boolean | undefined): boolean {
  return bufferLengths === true || args.metadata.data.length > 0 || args.scalars.size > 0;
}

/**
 * Packs a launch by the kernel's signature: the buffers into its pointer parameters, `params`
 * into its scalar ones (module doc).
 */
export function packBySignature(
  kernel: string,
  signature: KernelSignature,
  refs: readonly HandleRef[],
  buffers: readonly ResourceRange<bigint>[],
  params: KernelParams | undefined,
): LaunchParams {
  const list = signature.params;
  const pointers = list.filter((p) => p.kind === "pointer").length;
  if (refs.length !== pointers) {
    throw new KernelArgumentError(
      kernel,
      "buffers",
      `has ${refs.length} handles, but ${signature.name} takes ${pointers} pointers (${
        list.filter((p) => p.kind === "pointer").map((p) => p.declared).join(", ") || "none"
      })`,
    );
  }
  const byPosition = signature.language === "ptx";
  const given = params ?? (byPosition ? [] : {});
  if (typeof given !== "object" || given === null) {
    throw new KernelArgumentError(kernel, "params", `must be an object, got ${describe(params)}`);
  }
  if (byPosition && !Array.isArray(given)) {
    throw new KernelArgumentError(
      kernel,
      "params",
      `must be an array: PTX parameters have no source names, so they are given by position ` +
        `(${signature.name} takes ${scalarList(list)})`,
    );
  }
  const scalars = list.filter((p) => p.kind === "scalar");
  if (byPosition) {
    const values = given as unknown as readonly unknown[];
    if (values.length !== scalars.length) {
      throw new KernelArgumentError(
        kernel,
        "params",
        `has ${values.length} values, but ${signature.name} takes ${scalars.length} (${
          scalarList(list)
        })`,
      );
    }
  } else {
    for (const key of Object.keys(given)) {
      if (!scalars.some((p) => p.name === key)) {
        throw new KernelArgumentError(
          kernel,
          `params.${key}`,
          `is not a scalar parameter of ${signature.name} (${scalarList(list)})`,
        );
      }
    }
  }
  const { view, bytes, pointers: array, values } = buffersFor(list.length);
  const sizes: number[] = [];
  const readOnly: number[] = [];
  let buffer = 0, scalar = 0;
  for (let slot = 0; slot < list.length; slot++) {
    const param = list[slot];
    if (param.kind === "pointer") {
      const ref = refs[buffer], at = buffers[buffer];
      checkElement(kernel, buffer, ref, param);
      if (param.readOnly) readOnly.push(buffer);
      view.setBigUint64(slot * 8, at.resource + BigInt(at.offset), true);
      sizes.push(8);
      buffer++;
      continue;
    }
    const what = byPosition ? `params[${scalar}]` : `params.${param.name}`;
    const value = byPosition
      ? (given as unknown as readonly unknown[])[scalar]
      : (given as Record<string, unknown>)[param.name];
    scalar++;
    if (param.type === undefined) {
      throw new KernelArgumentError(
        kernel,
        what,
        `is declared '${param.declared}', a type the runtime cannot pass (numbers, bigints and ` +
          `pointers only)`,
      );
    }
    if (value === undefined) {
      throw new KernelArgumentError(kernel, what, `is missing (${param.declared})`);
    }
    bytes.set(encode(kernel, what, param, value), slot * 8);
    sizes.push(param.size);
  }
  return { sizes, pointers: array, values, readOnly };
}

function scalarList(list: readonly KernelParam[]): string {
  const scalars = list.filter((p) => p.kind === "scalar").map((p) => p.declared);
  return scalars.length === 0 ? "no scalars" : scalars.join(", ");
}

/** Refuses a typed handle whose elements are not the pointee's type. */
function checkElement(
  kernel: string,
  index: number,
  ref: HandleRef,
  param: KernelParam & { kind: "pointer" },
): void {
  if (param.element === undefined || ref.dtype === "bytes" || ref.dtype === param.element) return;
  throw new KernelArgumentError(
    kernel,
    `buffers[${index}]`,
    `holds ${ref.dtype} elements, but ${param.declared} points to ${param.element}: pass a ` +
      `${param.element} handle, or reinterpret with handle.as("${param.element}")`,
  );
}

/** One scalar's bytes, checked against its declared type. */
function encode(
  kernel: string,
  what: string,
  param: KernelParam & { kind: "scalar" },
  value: unknown,
): Uint8Array {
  const type = param.type!;
  try {
    if (param.signless && typeof value !== "bigint" && (value as number) < 0) {
      // `.u32`/`.b32` in PTX is `int` as often as `unsigned`: a negative value is an int's.
      const signed = type.replace("u", "i") as StorageType;
      return ScalarArgument.from(signed, [value as number]).bytes;
    }
    if (param.signless && typeof value === "bigint" && value < 0n) {
      return ScalarArgument.from(type.replace("u", "i") as StorageType, [value]).bytes;
    }
    return ScalarArgument.from(type, [value as number | bigint]).bytes;
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    const problem = error.message.replace(/^\w+ scalar 0 /, "");
    throw new KernelArgumentError(
      kernel,
      what,
      `does not fit '${param.declared}': ${problem}`,
      { cause: error },
    );
  }
}

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
  const sizes: number[] = [];
  const slots: { what: string; type: StorageType | "pointer" }[] = [];
  let slot = 0;
  buffers.forEach((buffer, i) => {
    view.setBigUint64(slot++ * 8, buffer.resource + BigInt(buffer.offset), true);
    sizes.push(8);
    slots.push({ what: `buffers[${i}]`, type: "pointer" });
  });
  if (bufferLengths) {
    buffers.forEach((buffer, i) => {
      if (buffer.size >= LENGTH_LIMIT) {
        throw new RangeError(
          `Kernel '${kernel}' takes u32 buffer lengths; a buffer of ${buffer.size} bytes exceeds them`,
        );
      }
      view.setUint32(slot++ * 8, buffer.size, true);
      sizes.push(4);
      slots.push({ what: `the length of buffers[${i}]`, type: "u32" });
    });
  }
  for (let i = 0; i < meta.length; i++) {
    view.setUint32(slot++ * 8, meta[i], true);
    sizes.push(4);
    slots.push({ what: `metadata[${i}]`, type: "u32" });
  }
  for (const scalar of args.scalars.values()) {
    const size = scalar.bytes.byteLength / Math.max(1, scalar.length);
    for (let i = 0; i < scalar.length; i++) {
      bytes.set(scalar.bytes.subarray(i * size, (i + 1) * size), slot++ * 8);
      sizes.push(size);
      slots.push({ what: `scalars.${scalar.type}[${i}]`, type: scalar.type });
    }
  }
  if (signature !== undefined && signature.params.length === slots.length) {
    slots.forEach((given, i) => checkSlot(kernel, given, signature.params[i]));
  }
  return { sizes, pointers, values };
}

function checkSlot(
  kernel: string,
  given: { what: string; type: StorageType | "pointer" },
  param: KernelParam,
): void {
  const wide = (type: StorageType | undefined) => type === "u64" || type === "i64";
  if (given.type === "pointer") {
    // A PTX `.u64` integer may hold an address.
    if (param.kind === "pointer" || wide(param.type)) return;
    refuse(kernel, given, param, "a buffer's pointer does not fit it");
  }
  if (param.kind === "pointer") {
    if (wide(given.type)) return; // an address given as an integer
    refuse(kernel, given, param, `a ${given.type} value does not fit a pointer`);
  }
  if (param.type === undefined) return; // the sizes are compared by the launcher
  const sameKind = isFloat(given.type) === isFloat(param.type);
  if (!sameKind || (isFloat(given.type) && given.type !== param.type)) {
    refuse(kernel, given, param, `a ${given.type} value does not fit it`);
  }
}

function refuse(
  kernel: string,
  given: { what: string; type: StorageType | "pointer" },
  param: KernelParam,
  problem: string,
): never {
  throw new KernelArgumentError(
    kernel,
    given.what,
    `is passed as parameter '${param.declared}': ${problem}`,
  );
}
