/**
 * The number of cubes (workgroups) a kernel launch dispatches.
 *
 * @module
 */

import { assertU32 } from "./_validate.ts";
import type { Binding } from "./handle.ts";

/**
 * The number of cubes (workgroups) to dispatch: static, read from a buffer holding `[x, y, z]` as
 * u32 (indirect dispatch), or `threads`: at least `x * y * z` invocations, the backend deriving
 * the cubes from the kernel's own cube (workgroup) size.
 *
 * @example
 * ```ts
 * import { CubeCount } from "@gpucompute/runtime/backend";
 * const count = CubeCount.new2d(8, 4);
 * if (count.kind === "static") console.log(count.x * count.y * count.z); // 32
 * ```
 */
export type CubeCount =
  | { readonly kind: "static"; readonly x: number; readonly y: number; readonly z: number }
  | { readonly kind: "dynamic"; readonly binding: Binding }
  | { readonly kind: "threads"; readonly x: number; readonly y: number; readonly z: number };

/** Constructors of {@linkcode CubeCount}; every dimension must fit in a u32. */
export interface CubeCountConstructors {
  /** `x` by `y` by `z` cubes. */
  static(x: number, y: number, z: number): CubeCount;
  /** One cube. */
  newSingle(): CubeCount;
  /** `x` cubes. */
  new1d(x: number): CubeCount;
  /** `x` by `y` cubes. */
  new2d(x: number, y: number): CubeCount;
  /** `x` by `y` by `z` cubes. */
  new3d(x: number, y: number, z: number): CubeCount;
  /** Cubes read at launch time from `[x, y, z]` u32 values in `binding`. */
  dynamic(binding: Binding): CubeCount;
  /** Enough cubes of the kernel's size to cover `x` by `y` by `z` invocations. */
  threads(x: number, y?: number, z?: number): CubeCount;
}

/** Constructors of {@linkcode CubeCount}; every dimension must fit in a u32. */
export const CubeCount: CubeCountConstructors = {
  static(x: number, y: number, z: number): CubeCount {
    assertU32(x, "CubeCount x");
    assertU32(y, "CubeCount y");
    assertU32(z, "CubeCount z");
    return { kind: "static", x, y, z };
  },
  newSingle(): CubeCount {
    return CubeCount.static(1, 1, 1);
  },
  new1d(x: number): CubeCount {
    return CubeCount.static(x, 1, 1);
  },
  new2d(x: number, y: number): CubeCount {
    return CubeCount.static(x, y, 1);
  },
  new3d(x: number, y: number, z: number): CubeCount {
    return CubeCount.static(x, y, z);
  },
  dynamic(binding: Binding): CubeCount {
    if (binding.size() < 12) {
      throw new RangeError(
        `A dynamic cube count needs 12 bytes, the binding has ${binding.size()}`,
      );
    }
    return { kind: "dynamic", binding };
  },
  threads(x: number, y = 1, z = 1): CubeCount {
    assertU32(x, "threads x");
    assertU32(y, "threads y");
    assertU32(z, "threads z");
    return { kind: "threads", x, y, z };
  },
};
