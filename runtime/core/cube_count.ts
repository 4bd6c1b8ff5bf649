/**
 * The number of cubes (workgroups) a kernel launch dispatches.
 *
 * @module
 */

import { assertU32, describe } from "./_argument_checks.ts";
import { HandleRef } from "./handles/handle.ts";

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
  | { readonly kind: "dynamic"; readonly ref: HandleRef }
  | { readonly kind: "threads"; readonly x: number; readonly y: number; readonly z: number };

/**
 * Constructors of {@linkcode CubeCount}; every dimension must fit in a u32.
 *
 * @example
 * ```ts
 * import { CubeCount, type CubeCountConstructors } from "@gpucompute/runtime/backend";
 * const counts: CubeCountConstructors = CubeCount;
 * const count = counts.new2d(4, 2);
 * if (count.kind === "static") console.log(count.x, count.y, count.z); // 4 2 1
 * ```
 */
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
  /** Cubes read at launch time from `[x, y, z]` u32 values in `ref`. */
  dynamic(ref: HandleRef): CubeCount;
  /** Enough cubes of the kernel's size to cover `x` by `y` by `z` invocations. */
  threads(x: number, y?: number, z?: number): CubeCount;
  /**
   * Checks a cube count built by hand (servers call it in `execute`): `TypeError` for a wrong
   * shape, `RangeError` for a dimension that is not a u32 or a dynamic ref under 12 bytes.
   */
  check(count: unknown): CubeCount;
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
  dynamic(ref: HandleRef): CubeCount {
    if (!(ref instanceof HandleRef)) {
      throw new TypeError(`A dynamic cube count needs a HandleRef, got ${describe(ref)}`);
    }
    if (ref.size() < 12) {
      throw new RangeError(
        `A dynamic cube count needs 12 bytes, the ref has ${ref.size()}`,
      );
    }
    return { kind: "dynamic", ref };
  },
  threads(x: number, y = 1, z = 1): CubeCount {
    assertU32(x, "threads x");
    assertU32(y, "threads y");
    assertU32(z, "threads z");
    return { kind: "threads", x, y, z };
  },
  check(count: unknown): CubeCount {
    if (typeof count !== "object" || count === null) {
      throw new TypeError(`count must be a CubeCount, got ${describe(count)}`);
    }
    const { kind } = count as { kind?: unknown };
    if (kind === "static" || kind === "threads") {
      const { x, y, z } = count as { x: unknown; y: unknown; z: unknown };
      // Named as `execute`'s option, as the WebGPU launcher names it.
      assertU32(x, "count x");
      assertU32(y, "count y");
      assertU32(z, "count z");
    } else if (kind === "dynamic") {
      CubeCount.dynamic((count as { ref: HandleRef }).ref);
    } else {
      throw new TypeError(
        `count.kind must be "static", "dynamic" or "threads", got ${describe(kind)}`,
      );
    }
    return count as CubeCount;
  },
};
