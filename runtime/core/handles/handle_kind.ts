/**
 * {@linkcode HandleKind}: what a new handle is besides its memory (element type, label, the call
 * that made it), as servers take it in `empty` and `createWithData`, and its check.
 *
 * @module
 */

import { assertDType, DTYPE_SIZE, type HandleType } from "../dtype.ts";

/**
 * What a new handle is besides its memory: its element type, the caller's label, the call that
 * made it. Servers take it in `empty` and `createWithData`.
 *
 * @example
 * ```ts
 * import type { HandleKind } from "@gpucompute/runtime/backend";
 * const kind: HandleKind = { dtype: "f32", label: "weights" };
 * ```
 */
export interface HandleKind {
  /**
   * What the memory holds.
   * @default {"bytes"}
   */
  readonly dtype?: HandleType;
  /**
   * The caller's name for the handle (error messages).
   * @default {undefined}
   */
  readonly label?: string;
  /**
   * The call that made the handle (`"createWithData"`, `"zeros"`...), for error messages.
   * @default {undefined}
   */
  readonly madeBy?: string;
}

/**
 * Checks, before anything is reserved, that `byteSize` bytes can hold a handle of `kind`: a
 * known type and a whole number of its elements (`TypeError` / `RangeError`).
 *
 * @example
 * ```ts
 * import { checkHandleKind } from "@gpucompute/runtime/backend";
 * checkHandleKind(12, { dtype: "f32" }); // ok: 3 floats
 * ```
 */
export function checkHandleKind(byteSize: number, kind: HandleKind | undefined): void {
  const dtype = kind?.dtype;
  if (dtype === undefined || dtype === "bytes") return;
  if (typeof kind !== "object" || kind === null) {
    throw new TypeError(`kind must be an object, got ${typeof kind}`);
  }
  assertDType(dtype, "dtype", { allowBytes: true });
  const unit = DTYPE_SIZE[dtype];
  if (byteSize % unit !== 0) {
    throw new RangeError(
      `${byteSize} bytes are not a whole number of ${dtype} elements (${unit} bytes each)`,
    );
  }
}
