/**
 * `cuLaunchKernel` parameters: checked against the kernel's signature (`compile/signature.ts`)
 * and packed. `kernelParams` is an array of pointers, one per kernel parameter, each to the
 * parameter's value; the driver copies the values during the call, so both arrays only need to
 * live for the call, and one pair is reused by every launch (`_param_buffers.ts`). Values sit in
 * 8-byte slots, or at their own offsets where one is larger (a struct by value,
 * `_struct_params.ts`).
 *
 * Two ways to fill them:
 *
 * - **By signature** (the user path: `buffers` and `params`, no metadata or scalars): the
 *   buffers fill the pointer parameters in order (or by name: {@linkcode buffersByName}), each
 *   handle's element type checked against the
 *   pointee (`float*` takes f32 handles; untyped handles and `void*` take anything); `params`
 *   fill the scalar parameters, by name for CUDA C and by position (an array) for PTX, each value
 *   checked against the declared type. A missing, unknown or ill-typed value is a
 *   `KernelArgumentError` naming it.
 * - **By the internal layout** (generated kernels, `./backend`; `_layout_params.ts`): buffer
 *   pointers; with `bufferLengths`, one `u32` byte length per buffer; the metadata words
 *   (`u32`); the scalars, type by type in insertion order. Each slot's type is checked against
 *   the signature too where one is known: a float scalar for an integer parameter (or the
 *   reverse) is refused.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { KernelArguments, StorageType } from "../../../core/kernel_arguments.ts";
import { ScalarArgument, STORAGE_TYPE_SIZE } from "../../../core/kernel_arguments.ts";
import type { KernelParams } from "../../../core/kernel.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { ResourceRange } from "../../server.ts";
import type { KernelParam, KernelSignature } from "../compile/signature.ts";
import { type ScalarEncoder, writeByValue } from "./_struct_params.ts";
import { packedOf, shapeOf } from "./_param_buffers.ts";

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
  /** Where each value starts in `values` when one is over 8 bytes (a struct); else slot * 8. */
  readonly offsets?: readonly number[];
}

/** Whether a storage type is a float's (`f16`, `f32`, `f64`): not `i…` or `u…`. */
export const isFloat = (type: StorageType): boolean => type[0] !== "i" && type[0] !== "u";

/** The device address of a buffer's range (no bigint arithmetic at offset 0). */
export function address(range: ResourceRange<bigint>): bigint {
  return range.offset === 0 ? range.resource : range.resource + BigInt(range.offset);
}

/** Whether a launch uses the internal layout rather than the signature. */
export function usesLayout(args: KernelArguments, bufferLengths: boolean | undefined): boolean {
  return bufferLengths === true || args.metadata.data.length > 0 || args.hasScalars;
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
  named = false,
): LaunchParams {
  const list = signature.params;
  const shape = shapeOf(signature);
  const { pointers, scalars, names, offsets } = shape;
  if (refs.length !== pointers) {
    throw new KernelArgumentError(
      kernel,
      "buffers",
      `has ${refs.length} handles, but ${signature.name} takes ${pointers} pointers (${
        list.filter((p) => p.kind === "pointer").map((p) => p.declared).join(", ") || "none"
      })${unreadHint(list)}`,
    );
  }
  const byPosition = signature.language === "ptx";
  // `null` is refused as WebGPU refuses it, not read as "no params".
  const given = params === undefined ? (byPosition ? [] : {}) : params;
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
  if (!byPosition && Array.isArray(given) && scalars.length > 0) {
    // Refused as a whole, as WebGPU refuses an array for a uniform struct (not as "params.0");
    // a kernel without scalars reads its items as names, as WebGPU's without a uniform does.
    throw new KernelArgumentError(
      kernel,
      "params",
      `must be an object of named params (CUDA C names them: ${scalarList(list)}), got Array`,
    );
  }
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
    for (const key in given) {
      if (!Object.hasOwn(given, key)) continue;
      if (!names.has(key)) {
        throw new KernelArgumentError(
          kernel,
          `params.${key}`,
          `is not a scalar parameter of ${signature.name} (${scalarList(list)})`,
        );
      }
    }
  }
  const { packed, scratch: { view, bytes } } = packedOf(shape, list.length);
  let buffer = 0, scalar = 0;
  for (let slot = 0; slot < list.length; slot++) {
    const param = list[slot];
    if (param.kind === "pointer") {
      const ref = refs[buffer], at = buffers[buffer];
      checkElement(kernel, named, buffer, ref, param);
      view.setBigUint64(offsets === undefined ? slot * 8 : offsets[slot], address(at), true);
      buffer++;
      continue;
    }
    const value = byPosition
      ? (given as unknown as readonly unknown[])[scalar]
      : (given as Record<string, unknown>)[param.name];
    const into = offsets === undefined ? slot * 8 : offsets[slot];
    if (fastEncode(view, into, param, value)) {
      scalar++;
      continue;
    }
    const what = byPosition ? `params[${scalar}]` : `params.${param.name}`;
    scalar++;
    const struct = param.struct;
    if (param.type === undefined && param.size > 0 && !(struct && "unsupported" in struct)) {
      if (value === undefined || (!byPosition && !Object.hasOwn(given, param.name))) {
        throw new KernelArgumentError(kernel, what, `is missing (${param.declared})`);
      }
      const layout = struct === undefined || "unsupported" in struct ? undefined : struct;
      writeByValue(kernel, what, param.declared, param.size, layout, value, bytes, into, encodeAs);
      continue;
    }
    if (param.type === undefined) {
      throw new KernelArgumentError(
        kernel,
        what,
        `is declared '${param.declared}', a type the runtime cannot pass (numbers, bigints and ` +
          `pointers only)${
            struct && "unsupported" in struct
              ? `: a struct by value whose fields it cannot pass (${struct.unsupported})`
              : /[&[]/.test(param.declared)
              ? ""
              : BY_VALUE
          }`,
      );
    }
    // A name left out may still read a member of Object.prototype (`constructor`, `toString`).
    if (value === undefined || (!byPosition && !Object.hasOwn(given, param.name))) {
      throw new KernelArgumentError(kernel, what, `is missing (${param.declared})`);
    }
    bytes.set(encode(kernel, what, param, value), into);
  }
  return packed;
}

/**
 * The buffers given by name (`buffers: { x, y }`, the client's `bufferNames`) in the order of the
 * kernel's pointer parameters; a name that is no pointer parameter, or a pointer parameter left
 * out, is a `KernelArgumentError` naming it.
 */
export function buffersByName(
  kernel: string,
  signature: KernelSignature | undefined,
  names: readonly string[],
  refs: readonly HandleRef[],
): HandleRef[] {
  if (signature === undefined) {
    throw new KernelArgumentError(
      kernel,
      "buffers",
      "cannot be given by name: the kernel's parameters could not be read from its program",
    );
  }
  const pointers = signature.params.filter((p) => p.kind === "pointer");
  const list = pointers.map((p) => p.declared).join(", ") || "none";
  for (const name of names) {
    if (!pointers.some((p) => p.name === name)) {
      throw new KernelArgumentError(
        kernel,
        `buffers.${name}`,
        `is not a pointer parameter of ${signature.name} (${list})`,
      );
    }
  }
  return pointers.map((p) => {
    const at = names.indexOf(p.name);
    if (at < 0) {
      throw new KernelArgumentError(kernel, `buffers.${p.name}`, `is missing (${p.declared})`);
    }
    return refs[at];
  });
}

/**
 * Writes the common scalars (a `float`, an `int` or `unsigned` number that fits) straight into
 * their slot; false for anything else, which {@linkcode encode} checks and encodes.
 */
function fastEncode(
  view: DataView,
  at: number,
  param: KernelParam & { kind: "scalar" },
  value: unknown,
): boolean {
  if (typeof value !== "number") return false;
  switch (param.type) {
    case "f32":
      // NaN and the infinities pass; a finite value that overflows f32 is refused by `encode`.
      if (!Number.isFinite(Math.fround(value)) && Number.isFinite(value)) return false;
      view.setFloat32(at, value, true);
      return true;
    case "u32":
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) return false;
      view.setUint32(at, value, true);
      return true;
    case "i32":
      if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) return false;
      view.setInt32(at, value, true);
      return true;
    default:
      return false;
  }
}

function scalarList(list: readonly KernelParam[]): string {
  const scalars = list.filter((p) => p.kind === "scalar").map((p) => p.declared);
  return scalars.length === 0 ? "no scalars" : scalars.join(", ");
}

/**
 * Refuses a typed handle whose elements are not the pointee's type, and one of fewer bytes than
 * one pointee (as WebGPU refuses it; an empty handle binds, docs/known_issues.md).
 */
function checkElement(
  kernel: string,
  named: boolean,
  index: number,
  ref: HandleRef,
  param: KernelParam & { kind: "pointer" },
): void {
  if (param.element === undefined) return;
  const lanes = param.lanes ?? 1;
  const size = ref.size(), unit = STORAGE_TYPE_SIZE[param.element] * lanes;
  if (
    (size === 0 || size >= unit) && (lanes === 1 || size % unit === 0) &&
    (ref.dtype === "bytes" || ref.dtype === param.element)
  ) {
    return; // accepted: no message built (this runs for every pointer of every launch)
  }
  const what = named ? `buffers.${param.name}` : `buffers[${index}]`;
  const one = lanes === 1 ? param.element : `${lanes} × ${param.element}`;
  if (size > 0 && size < unit) {
    throw new KernelArgumentError(
      kernel,
      what,
      `has ${size} bytes, but ${param.declared} needs at least ${unit} (one ${one})`,
    );
  }
  if (lanes > 1 && size % unit !== 0) {
    throw new KernelArgumentError(
      kernel,
      what,
      `has ${size} bytes, ending in part of a ${unit}-byte ${param.declared.replace(/\*.*$/, "")}`,
    );
  }
  if (ref.dtype === "bytes" || ref.dtype === param.element) return;
  throw new KernelArgumentError(
    kernel,
    what,
    `holds ${ref.dtype} elements, but ${param.declared} points to ${param.element}: pass a ` +
      `${param.element} handle, or reinterpret with handle.as("${param.element}")`,
  );
}

/** A field's bytes ({@linkcode ScalarEncoder}), checked as a scalar parameter's. */
const encodeAs: ScalarEncoder = (kernel, what, type, declared, bool, value) =>
  encode(kernel, what, { kind: "scalar", name: what, type, declared, size: 0, bool }, value);

/** One scalar's bytes, checked against its declared type. */
function encode(
  kernel: string,
  what: string,
  param: KernelParam & { kind: "scalar" },
  value: unknown,
): Uint8Array {
  const type = param.type!;
  if (param.bool) {
    // A C bool is one byte, 0 or 1: any other byte is undefined behaviour on the device.
    if (value === true || value === false) return new Uint8Array([value ? 1 : 0]);
    if (value !== 0 && value !== 1) {
      throw new KernelArgumentError(
        kernel,
        what,
        `does not fit '${param.declared}': a bool takes true, false, 0 or 1, got ${
          describe(value)
        }`,
      );
    }
  }
  // A bigint for a 32-bit (or narrower) integer is read as its number, as WebGPU reads a u32 or
  // i32 uniform field (out of range: refused below as a number would be).
  if (typeof value === "bigint" && NARROW_INTEGERS.has(type)) value = Number(value);
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

/** The integer types of 32 bits or fewer. */
const NARROW_INTEGERS: ReadonlySet<StorageType> = new Set(["u32", "i32", "u16", "i16", "u8", "i8"]);

/** How to launch a kernel that takes a struct (or vector type) by value. */
const BY_VALUE = ": for a struct by value, define it in the kernel's source (the runtime reads " +
  "its fields from there, not from an #include), or pass its fields as scalars to an extern " +
  '"C" wrapper kernel that builds it';

/**
 * For a count mismatch: the parameters whose type the reader does not know (a pointer typedef of
 * several declarators, `typedef float *fptr, *gptr;`, or defined twice differently, reads as a
 * scalar of an unknown type), which may be the pointers missing.
 */
function unreadHint(list: readonly KernelParam[]): string {
  const unread = list.filter((p) => p.kind === "scalar" && p.type === undefined);
  if (unread.length === 0) return "";
  return `; the runtime does not know the type of ${
    unread.map((p) => `'${p.declared}'`).join(", ")
  }: if it is a pointer, declare it T*`;
}
