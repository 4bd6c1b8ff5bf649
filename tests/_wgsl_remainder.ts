/**
 * The f32 results WGSL allows for `x % y` on a device: the spec gives `%` the accuracy it
 * inherits from `x - y * trunc(x / y)`, every step within its own accuracy:
 *
 * - `x / y`: 2.5 ULP of the exact quotient for `|y|` in [2^-126, 2^126] (unbounded elsewhere);
 * - `trunc`: exact; `y * t` and `x - p`: correctly rounded, which WGSL defines as either f32
 *   neighbour of an inexact result (not only the nearest);
 * - the product and the difference may be fused into one FMA (WGSL lets an implementation fuse
 *   operations where that is at least as accurate; NVIDIA's Vulkan driver does);
 * - the inputs and outputs of each step may be flushed to zero where subnormal, and the sign of a
 *   zero may be ignored;
 * - an infinity or NaN at any step (an input, `x / 0`, an overflow) makes the result an
 *   indeterminate value: anything.
 *
 * Used by tests/_qa15_prims_cases.ts on WebGPU; CUDA's `%` is checked bit for bit instead.
 */

const f32 = Math.fround;
const MIN_NORMAL = 2 ** -126;

/** The next f32 above a finite f32 `v` (Infinity above the largest). */
export function nextUp(v: number): number {
  if (v === 0) return 2 ** -149;
  const bits = new Uint32Array(Float32Array.of(v).buffer);
  bits[0] += v > 0 ? 1 : -1;
  return new Float32Array(bits.buffer)[0];
}

/** The next f32 below a finite f32 `v`. */
export function nextDown(v: number): number {
  return -nextUp(-v);
}

/** `a + b` as a double `s` and its exact rounding error `e` (Knuth's TwoSum). */
function twoSum(a: number, b: number): [number, number] {
  const s = a + b;
  const bb = s - a;
  return [s, (a - (s - bb)) + (b - bb)];
}

/**
 * The f32 values a correctly rounded step may give for the exact value `s + e` (`e` at most half
 * an ULP of the double `s`): itself when an f32, else both neighbours; `undefined` past the f32
 * range (an overflow: indeterminate).
 */
function rounded(s: number, e = 0): number[] | undefined {
  const c = f32(s);
  if (!Number.isFinite(c)) return undefined;
  const d = (s - c) + e; // s - c is exact (c is s to 24 bits); the sign of the sum is exact
  const values = d === 0 ? [c] : d > 0 ? [c, nextUp(c)] : [nextDown(c), c];
  return values.every(Number.isFinite) ? values : undefined;
}

/** `v` and, where it is subnormal, the zero a device may flush it to. */
function flushed(v: number): number[] {
  return v !== 0 && Math.abs(v) < MIN_NORMAL ? [v, 0] : [v];
}

/**
 * The f32 quotients within 2.5 ULP of `x / y` (finite f32s, `|y|` in [2^-126, 2^126]), or
 * `undefined` where the quotient overflows. ULP as WGSL defines it: the gap between the f32s
 * around the exact value (the smaller gap where it is an f32). `x / y` in double is within 2^-53
 * of the exact quotient, far closer than any quotient of two f32s comes to an f32's half-way
 * point, so the comparisons below decide as the exact value would.
 */
function quotients(x: number, y: number): number[] | undefined {
  const v = x / y;
  const near = rounded(v);
  if (near === undefined) return undefined;
  const ulp = near.length === 2
    ? near[1] - near[0]
    : Math.min(near[0] - nextDown(near[0]), nextUp(near[0]) - near[0]);
  const within = (q: number) => Math.abs(q - v) <= 2.5 * ulp;
  const out = [...near];
  for (let q = nextDown(near[0]); within(q); q = nextDown(q)) out.push(q);
  for (let q = nextUp(near[near.length - 1]); within(q); q = nextUp(q)) out.push(q);
  return out.every(Number.isFinite) ? out : undefined;
}

/**
 * Every f32 result WGSL allows for the f32 `x % y` (see the module's notes), or `undefined` when
 * any value is allowed. Zeros are listed once; compare a result with `===` (either sign).
 */
export function wgslRemainders(x: number, y: number): number[] | undefined {
  if (![x, y].every(Number.isFinite)) return undefined;
  if (!(Math.abs(y) >= MIN_NORMAL && Math.abs(y) <= 2 ** 126)) return undefined;
  const out = new Set<number>();
  const add = (values: number[] | undefined) => {
    if (values === undefined) return false;
    for (const v of values) for (const r of flushed(v)) out.add(r === 0 ? 0 : r);
    return true;
  };
  for (const xd of flushed(x)) {
    const qs = quotients(xd, y);
    if (qs === undefined) return undefined;
    for (const t of new Set(qs.flatMap(flushed).map(Math.trunc))) {
      const exact = y * t; // exact in double: two 24-bit significands
      for (const xs of flushed(x)) {
        // Fused: x - y * t rounded once.
        if (!add(rounded(...twoSum(xs, -exact)))) return undefined;
        // Apart: the product rounded (and maybe flushed), then the difference.
        const products = rounded(exact);
        if (products === undefined) return undefined;
        for (const p of products.flatMap(flushed)) {
          if (!add(rounded(...twoSum(xs, -p)))) return undefined;
        }
      }
    }
  }
  return [...out];
}
