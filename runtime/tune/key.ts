/**
 * Autotune keys: plain objects of numbers, strings and booleans with a stable string form, and
 * {@linkcode anchor} to bucket sizes so that nearby shapes share one tuning result.
 *
 * @module
 */

/**
 * A key: named fields describing what makes candidates rank differently (shapes, types...).
 *
 * @example
 * ```ts
 * import type { TuneKey } from "@gpucompute/runtime/tune";
 * const key: TuneKey = { m: 512, n: 512, k: 64, dtype: "f32" };
 * ```
 */
export type TuneKey = Readonly<Record<string, number | string | boolean>>;

/**
 * The stable string form of a key: fields sorted by name, `name=value` joined by commas. Two keys
 * with the same fields and values have the same form whatever their property order; a name or
 * string value holding `,`, `=`, `"` or `\\` is quoted as JSON, so two different keys never
 * share a form (`{ a: "1,b=2" }` is `a="1,b=2"`, `{ a: "1", b: 2 }` is `a=1,b=2`).
 *
 * @example
 * ```ts
 * import { keyString } from "@gpucompute/runtime/tune";
 * console.log(keyString({ n: 512, m: 256 })); // m=256,n=512
 * ```
 */
export function keyString(key: TuneKey): string {
  if (typeof key !== "object" || key === null) throw new TypeError("A tune key must be an object");
  return Object.keys(key).sort().map((name) => {
    const value = key[name];
    if (!["number", "string", "boolean"].includes(typeof value)) {
      throw new TypeError(`Tune key field '${name}' must be a number, string or boolean`);
    }
    return `${quote(name)}=${typeof value === "string" ? quote(value) : value}`;
  }).join(",");
}

/** A name or value as is, or as JSON where it holds a separator (or a quote, or a backslash). */
function quote(text: string): string {
  return /[,="\\]/.test(text) ? JSON.stringify(text) : text;
}

/**
 * Options of {@linkcode anchor}.
 *
 * @example
 * ```ts
 * import { anchor, type AnchorOptions } from "@gpucompute/runtime/tune";
 * const options: AnchorOptions = { min: 16, max: 4096 };
 * console.log(anchor(10_000, options)); // 4096
 * ```
 */
export interface AnchorOptions {
  /**
   * Sizes round up to the next power of this base.
   * @default {2}
   */
  base?: number;
  /**
   * Sizes at or below `min` all anchor to `min`.
   * @default {1}
   */
  min?: number;
  /**
   * Sizes above `max` anchor to `max`.
   * @default {Infinity}
   */
  max?: number;
}

/**
 * Rounds a size up to the next power of `base` (clamped to `[min, max]`), so that 1000 and 1024
 * share a key and one tuning result serves both.
 *
 * @example
 * ```ts
 * import { anchor } from "@gpucompute/runtime/tune";
 * console.log(anchor(1000), anchor(1024), anchor(1025)); // 1024 1024 2048
 * console.log(anchor(3, { min: 16 }), anchor(100, { base: 10 })); // 16 100
 * ```
 */
export function anchor(x: number, options: AnchorOptions = {}): number {
  const { base = 2, min = 1, max = Infinity } = options;
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`Cannot anchor ${x}: need a size >= 0`);
  if (!(base >= 2) || !Number.isInteger(base)) {
    throw new RangeError(`anchor base must be an integer >= 2, got ${base}`);
  }
  if (!(min >= 1) || !(max >= min)) {
    throw new RangeError(`anchor needs 1 <= min <= max, got min ${min} and max ${max}`);
  }
  if (x <= min) return min;
  let power = 1;
  while (power < x) power *= base;
  return Math.min(Math.max(power, min), max);
}
