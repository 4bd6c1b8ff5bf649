/**
 * The scalar builtins the const-expression evaluator (`_const_eval.ts`) computes besides the
 * constructors and `min max abs clamp select`: the float builtins of one to three scalars and the
 * bit builtins of one integer, each with WGSL's results (`round` to even, `firstLeadingBit` of a
 * negative i32 the highest 0 bit).
 *
 * @module
 */

/** WGSL's `round`: halfway cases to the even integer. */
function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The float builtins of const expressions: arity and value (in f64, then rounded to the type). */
export const FLOAT_BUILTINS: Readonly<
  Record<string, readonly [number, (...x: number[]) => number]>
> = {
  sqrt: [1, Math.sqrt],
  inverseSqrt: [1, (x) => 1 / Math.sqrt(x)],
  exp: [1, Math.exp],
  exp2: [1, (x) => 2 ** x],
  log: [1, Math.log],
  log2: [1, Math.log2],
  pow: [2, Math.pow],
  ceil: [1, Math.ceil],
  floor: [1, Math.floor],
  round: [1, roundEven],
  trunc: [1, Math.trunc],
  fract: [1, (x) => x - Math.floor(x)],
  sign: [1, Math.sign],
  degrees: [1, (x) => x * 180 / Math.PI],
  radians: [1, (x) => x * Math.PI / 180],
  step: [2, (edge, x) => x >= edge ? 1 : 0],
  fma: [3, (a, b, c) => a * b + c],
  mix: [3, (a, b, t) => a * (1 - t) + b * t],
  saturate: [1, (x) => Math.min(Math.max(x, 0), 1)],
  sin: [1, Math.sin],
  cos: [1, Math.cos],
  tan: [1, Math.tan],
  asin: [1, Math.asin],
  acos: [1, Math.acos],
  atan: [1, Math.atan],
  atan2: [2, Math.atan2],
  sinh: [1, Math.sinh],
  cosh: [1, Math.cosh],
  tanh: [1, Math.tanh],
  asinh: [1, Math.asinh],
  acosh: [1, Math.acosh],
  atanh: [1, Math.atanh],
};

/**
 * The bit builtins of const expressions on one i32 or u32 (`unsigned`), `x` its 32 bits; the
 * result is wrapped to the argument's type.
 */
export const BIT_BUILTINS: Readonly<
  Record<string, readonly [number, (unsigned: boolean, x: number, ...rest: number[]) => number]>
> = {
  countOneBits: [1, (_, x) => [...x.toString(2)].filter((b) => b === "1").length],
  countLeadingZeros: [1, (_, x) => Math.clz32(x)],
  countTrailingZeros: [1, (_, x) => x === 0 ? 32 : 31 - Math.clz32(x & -x)],
  firstTrailingBit: [1, (_, x) => x === 0 ? -1 : 31 - Math.clz32(x & -x)],
  firstLeadingBit: [1, (unsigned, x) => {
    const bits = !unsigned && x >= 0x80000000 ? ~x >>> 0 : x; // i32: the highest bit unlike the sign
    return bits === 0 ? -1 : 31 - Math.clz32(bits);
  }],
  reverseBits: [1, (_, x) => {
    let r = 0;
    for (let b = 0; b < 32; b++) r = (r * 2) + ((x >>> b) & 1);
    return r;
  }],
  extractBits: [3, (unsigned, x, offset, count) => {
    const o = Math.min(offset, 32), c = Math.min(count, 32 - o);
    if (c === 0) return 0;
    const field = (x >>> o) & (c === 32 ? 0xffffffff : (1 << c) - 1);
    return !unsigned && field & (1 << (c - 1)) ? field - 2 ** c : field; // i32: sign-extended
  }],
};
