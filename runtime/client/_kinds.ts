/**
 * The `HandleKind` objects the client passes to the server for each new handle, made once per
 * (call, type) when the caller gives no label, so that allocating allocates no kind.
 *
 * @module
 */

import type { HandleType } from "../core/dtype.ts";
import type { HandleKind } from "../core/handles/handle.ts";

/** Kinds by call name and element type. */
export class KindCache {
  readonly #byMaker = new Map<string, Map<HandleType, HandleKind>>();

  /** The kind of a handle made by `madeBy`, of `dtype`, with the caller's label if any. */
  get(madeBy: string, dtype: HandleType, options?: { readonly label?: string }): HandleKind {
    const label = options?.label;
    if (label !== undefined) {
      if (typeof label !== "string") {
        throw new TypeError(`label must be a string, got ${typeof label}`);
      }
      return { dtype, label, madeBy };
    }
    let byType = this.#byMaker.get(madeBy);
    if (byType === undefined) this.#byMaker.set(madeBy, byType = new Map());
    let kind = byType.get(dtype);
    if (kind === undefined) byType.set(dtype, kind = Object.freeze({ dtype, madeBy }));
    return kind;
  }
}
