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

/**
 * The float builtins of const expressions: arity and value (in f64, then rounded to the type);
 * `single` is an f32 or f16 argument, for which naga computes in f32 (`inverseSqrt` is
 * `1 / sqrt(x)` rounded twice, `degrees` a product with 180/π as an f32). `fma` rounds once.
 * The trigonometric and hyperbolic functions are in {@linkcode LIBM_BUILTINS}.
 */
export const FLOAT_BUILTINS: Readonly<
  Record<string, readonly [number, (single: boolean, ...x: number[]) => number]>
> = {
  sqrt: [1, (_, x) => Math.sqrt(x)],
  inverseSqrt: [1, (single, x) => 1 / (single ? Math.fround(Math.sqrt(x)) : Math.sqrt(x))],
  exp: [1, (_, x) => Math.exp(x)],
  exp2: [1, (_, x) => 2 ** x],
  log: [1, (_, x) => Math.log(x)],
  log2: [1, (_, x) => Math.log2(x)],
  pow: [2, (_, x, y) => Math.pow(x, y)],
  ceil: [1, (_, x) => Math.ceil(x)],
  floor: [1, (_, x) => Math.floor(x)],
  round: [1, (_, x) => roundEven(x)],
  trunc: [1, (_, x) => Math.trunc(x)],
  fract: [1, (_, x) => x - Math.floor(x)],
  sign: [1, (_, x) => Math.sign(x)],
  degrees: [1, (single, x) => x * (single ? Math.fround(180 / Math.PI) : 180 / Math.PI)],
  radians: [
    1,
    (single, x) => x * (single ? Math.fround(Math.fround(Math.PI) / 180) : Math.PI / 180),
  ],
  step: [2, (_, edge, x) => x >= edge ? 1 : 0],
  fma: [3, (single, a, b, c) => fusedMultiplyAdd(a, b, c, single ? 24 : 53)],
  mix: [3, (_, a, b, t) => a * (1 - t) + b * t],
  saturate: [1, (_, x) => Math.min(Math.max(x, 0), 1)],
  sin: [1, (_, x) => Math.sin(x)],
  cos: [1, (_, x) => Math.cos(x)],
  tan: [1, (_, x) => Math.tan(x)],
  asin: [1, (_, x) => Math.asin(x)],
  acos: [1, (_, x) => Math.acos(x)],
  atan: [1, (_, x) => Math.atan(x)],
  atan2: [2, (_, y, x) => Math.atan2(y, x)],
};

/**
 * Builtins whose value naga takes from the platform's math library (glibc's `sinf`, `sinh`, `exp`,
 * `expf`...), which differs from V8's in the last bit for some arguments (measured on Deno 2.9.6:
 * `atanh`, `sinh`, `asinh`, `acosh` of abstract floats; every one of these of f32 but `cos`;
 * `exp(17.494)`, `log(4.182)`, `sin(15.976)`, `cos(14.815)`, `exp2(-2.1452)` of abstract floats;
 * `exp(-14.8953f)`, `exp2(-7.3352f)`, `log(2.4555f)`, `log2(60.7824f)`, `pow(3.6279f, 1.37f)`).
 * The runtime leaves them to the device: `single` (f32, f16) arguments of the trigonometric ones
 * and every hyperbolic one are refused by name; the `inexact` ones, and the trigonometric ones of
 * abstract floats, are evaluated only where the value is exact ({@linkcode exactLibm}:
 * `exp2(4.0)`, `pow(2.0, 5.0)`, `log2(256.0)`, `sin(0.0)`), which every implementation returns.
 */
export const LIBM_BUILTINS: Readonly<Record<string, "single" | "inexact" | "all">> = {
  sin: "single",
  cos: "single",
  tan: "single",
  asin: "single",
  acos: "single",
  atan: "single",
  atan2: "single",
  exp: "inexact",
  exp2: "inexact",
  log: "inexact",
  log2: "inexact",
  pow: "inexact",
  sinh: "all",
  cosh: "all",
  tanh: "all",
  asinh: "all",
  acosh: "all",
  atanh: "all",
};

/** The trigonometric builtins, math-library ones for abstract floats too. */
const TRIGONOMETRIC = new Set(["sin", "cos", "tan", "asin", "acos", "atan", "atan2"]);

/** Whether `name` of an abstract float is a math-library value (see {@linkcode LIBM_BUILTINS}). */
export function libmOfAbstract(name: string): boolean {
  return LIBM_BUILTINS[name] === "inexact" || TRIGONOMETRIC.has(name);
}

/**
 * The value of a math-library builtin where it is exact (an integer power of two, a power with a
 * small integer exponent that f64 holds exactly, the zeros and ones of the trigonometric
 * functions): a correctly rounded result, which glibc and V8 both return. `undefined` elsewhere.
 */
export function exactLibm(name: string, x: readonly number[]): number | undefined {
  const [a, b] = x;
  switch (name) {
    case "exp2":
      return Number.isInteger(a) && a >= -1074 && a <= 1023 ? 2 ** a : undefined;
    case "pow":
      return exactPower(a, b);
    case "log2": {
      const e = Math.round(Math.log2(a));
      return a > 0 && 2 ** e === a ? e : undefined;
    }
    case "exp":
      return a === 0 ? 1 : undefined;
    case "log":
      return a === 1 ? 0 : undefined;
    case "cos":
      return a === 0 ? 1 : undefined;
    case "acos":
      return a === 1 ? 0 : undefined;
    case "atan2":
      return a === 0 && b > 0 ? a : undefined;
    case "sin":
    case "tan":
    case "asin":
    case "atan":
      return a === 0 ? a : undefined;
  }
  return undefined;
}

/** `x ** y` for an integer `y` (|y| <= 64) where f64 holds it exactly, else `undefined`. */
function exactPower(x: number, y: number): number | undefined {
  if (!Number.isInteger(y) || Math.abs(y) > 64 || !Number.isFinite(x)) return undefined;
  if (y === 0) return 1;
  if (x === 0) return y > 0 ? 0 : undefined;
  let [m, e] = exact(x);
  while (m % 2n === 0n) (m /= 2n, e++);
  if (y < 0) return m === 1n || m === -1n ? exactOrUndefined(m ** BigInt(-y), -e * -y) : undefined;
  return exactOrUndefined(m ** BigInt(y), e * y);
}

/** `m * 2^e` when f64 holds it exactly (at most 53 significant bits, in range), else undefined. */
function exactOrUndefined(m: bigint, e: number): number | undefined {
  const bits = (m < 0n ? -m : m).toString(2).replace(/0+$/, "").length;
  const value = Number(m) * 2 ** e;
  return bits <= 53 && Number.isFinite(value) && value !== 0 ? value : undefined;
}

/** `x` as `m * 2^e`, `m` an integer. */
function exact(x: number): [bigint, number] {
  let e = 0;
  while (!Number.isInteger(x)) (x *= 2, e--);
  return [BigInt(x), e];
}

/** `a * b + c` rounded once to `bits` significant bits (to even), as Rust's `mul_add`. */
function fusedMultiplyAdd(a: number, b: number, c: number, bits: number): number {
  if (![a, b, c].every(Number.isFinite)) return a * b + c;
  const [ma, ea] = exact(a), [mb, eb] = exact(b), [mc, ec] = exact(c);
  let e = Math.min(ea + eb, ec);
  let m = ((ma * mb) << BigInt(ea + eb - e)) + (mc << BigInt(ec - e));
  const negative = m < 0n;
  if (negative) m = -m;
  const shift = m.toString(2).length - bits;
  if (shift > 0) {
    const rest = m & ((1n << BigInt(shift)) - 1n), half = 1n << BigInt(shift - 1);
    m >>= BigInt(shift);
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
    e += shift;
  }
  const value = Number(m) * 2 ** Math.ceil(e / 2) * 2 ** Math.floor(e / 2);
  return negative ? -value : value;
}

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
