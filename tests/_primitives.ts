/**
 * Shared by the primitives' tests (kernels_scan, kernels_sort, kernels_select): typed arrays of
 * an element type, CPU order keys (NaN above every number, -0 equal to +0), bit-exact equality.
 */
import assert from "node:assert/strict";

export type Element = "f32" | "i32" | "u32";
export type ElementArray = Float32Array | Int32Array | Uint32Array;

export const ARRAY = { f32: Float32Array, i32: Int32Array, u32: Uint32Array } as const;

/** `values` as a typed array of `type` (wrapping / rounding as the type does). */
export function typed(type: Element, values: ArrayLike<number>): ElementArray {
  return ARRAY[type].from(values as ArrayLike<number>);
}

/** Deterministic pseudo-random integers in [0, 2^32) (xorshift32). */
export function randomWords(n: number, seed = 1): Uint32Array {
  const out = new Uint32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s >>> 0;
  }
  return out;
}

/** The CPU order of two keys: NaN above all numbers, -0 equal to +0, as the primitives sort. */
export function compareKeys(a: number, b: number): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Stable argsort on the CPU (ascending, or descending with stability kept). */
export function cpuArgsort(keys: ArrayLike<number>, descending = false): Uint32Array {
  const order = Array.from({ length: keys.length }, (_, i) => i);
  const sign = descending ? -1 : 1;
  order.sort((i, j) => sign * compareKeys(keys[i], keys[j]) || i - j);
  return Uint32Array.from(order);
}

/** Bit-exact equality of two 4-byte arrays (NaN payloads and -0 included), naming the first miss. */
export function assertBits(actual: ElementArray, expected: ElementArray, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const e = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < e.length; i++) {
    if (a[i] !== e[i]) {
      assert.fail(
        `${what}[${i}]: got ${actual[i]} (0x${a[i].toString(16)}), expected ${expected[i]} (0x${
          e[i].toString(16)
        })`,
      );
    }
  }
}

/** Whether NaN values are equal as values (any NaN pattern) and every other element bit-exact. */
export function assertSame(actual: ElementArray, expected: ElementArray, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (Number.isNaN(expected[i]) && Number.isNaN(actual[i])) continue;
    if (!Object.is(actual[i], expected[i])) {
      assert.fail(`${what}[${i}]: got ${actual[i]}, expected ${expected[i]}`);
    }
  }
}

const LARGE_VARIABLE = "GPUCOMPUTE_TEST_LARGE";

/**
 * Whether the large cases run (~2^22 elements and above): `GPUCOMPUTE_TEST_LARGE=1`, as
 * `deno task test:large` sets it (CI runs it after the README's test command). The default run
 * keeps the cases that reach every code path (lengths 0, 1, odd, block edges, past 65,535
 * workgroups where that is cheap) and stays fast; these add the sizes issue #30 asks for. Read
 * only where the permission is granted (the default run may not grant it).
 */
export const LARGE: boolean =
  Deno.permissions.querySync({ name: "env", variable: LARGE_VARIABLE }).state === "granted" &&
  Deno.env.get(LARGE_VARIABLE) === "1";

/** `cases` when the large cases run (see `LARGE`), else none. */
export function large<T>(cases: readonly T[]): readonly T[] {
  return LARGE ? cases : [];
}
