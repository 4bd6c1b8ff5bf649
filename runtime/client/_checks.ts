/**
 * Argument checks of the client's calls: options objects, handles, element types.
 *
 * @module
 */

import { assertDType, type DType } from "../core/dtype.ts";
import { Handle } from "../core/handle.ts";
import { describe } from "../core/_validate.ts";

/** Throws `TypeError` unless `options` is an object. */
export function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${describe(options)}`);
  }
}

/** Throws `TypeError` unless `handle` is a {@linkcode Handle}; `what` names the argument. */
export function checkHandle(handle: unknown, what: string): asserts handle is Handle {
  if (!(handle instanceof Handle)) {
    throw new TypeError(`${what} must be a Handle, got ${describe(handle)}`);
  }
}

/** The element type asked for (f32 by default), checked. */
export function checkedType<D extends DType>(dtype: D | undefined): D {
  if (dtype === undefined) return "f32" as D;
  assertDType(dtype, "dtype");
  return dtype;
}
