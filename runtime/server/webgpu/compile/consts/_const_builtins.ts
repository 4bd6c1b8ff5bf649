/**
 * The scalar builtins the const-expression evaluator (`_const_eval.ts`) computes besides the
 * constructors and `min max abs clamp select`: the float builtins of one to three scalars
 * (trigonometry and `saturate` too, as naga evaluates them in const expressions) and the
 * bit builtins of one integer, each with WGSL's results (`round` to even, `firstLeadingBit` of a
 * negative i32 the highest 0 bit), the packed dot products; {@linkcode callBuiltin} computes
 * any of them of scalars; and what a typed declaration holds ({@linkcode heldAs}).
 *
 * @module
 */

import {
  ConstEvalError,
  type ConstType,
  type ConstValue,
  converted,
  integer,
  unify,
  wrap,
} from "./_const_values.ts";

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

/** The element type a declared type names when it is a scalar, vector or array of scalars. */
const ELEMENT =
  /^(?:(f32|f16|i32|u32|bool)|vec[234]\s*<\s*(f32|f16|i32|u32|bool)\s*>|vec[234]([fhiu])|array\s*<\s*(f32|f16|i32|u32|bool)\s*(?:,[^<>]*)?>)$/;
const SUFFIX: Readonly<Record<string, ConstType>> = { f: "f32", h: "f16", i: "i32", u: "u32" };

/**
 * `value` as a declaration of `type` holds it (`const W: f32 = 2.9999999;` is 3.0, so `u32(W)` is
 * 3; `const V: vec2<f32> = vec2(...)` likewise per element): floats rounded to f32 or f16, the
 * type recorded. A type it does not read leaves `value` as evaluated.
 */
export function heldAs(value: ConstValue, type: string | undefined): ConstValue {
  const m = ELEMENT.exec(type?.trim() ?? "");
  if (m === null) return value;
  const element = (m[1] ?? m[2] ?? SUFFIX[m[3] ?? ""] ?? m[4]) as ConstType;
  const scalar = (v: ConstValue): ConstValue => ({
    value: element === "f32"
      ? Math.fround(v.value)
      : element === "f16"
      ? Math.f16round(v.value)
      : v.value,
    type: element,
  });
  if ((m[1] !== undefined) !== (value.parts === undefined)) return value; // not its shape
  if (value.parts === undefined) return scalar(value);
  if (value.parts.some((p) => p.parts !== undefined)) return value;
  return { value: NaN, type: element, parts: value.parts.map(scalar) };
}

const CONVERSIONS = new Set(["i32", "u32", "f32", "f16", "bool"]);

/**
 * A builtin of scalars: the conversions (`u32()` is 0), `abs min max clamp select`, the float and
 * bit builtins above and the packed dot products; another name throws.
 */
export function callBuiltin(name: string, args: ConstValue[]): ConstValue {
  const one = () => {
    if (args.length !== 1) throw new ConstEvalError(`${name}() takes one argument`);
    return args[0];
  };
  if (args.length === 0 && CONVERSIONS.has(name)) return { value: 0, type: name as ConstType };
  switch (name) {
    case "i32":
    case "u32":
      return wrap(Math.trunc(one().value), name);
    case "f32":
    case "f16":
      return wrap(one().value, name);
    case "bool":
      return { value: one().value ? 1 : 0, type: "bool" };
    case "abs":
      return wrap(Math.abs(one().value), one().type);
    case "min":
    case "max": {
      if (args.length !== 2) throw new ConstEvalError(`${name}() takes two arguments`);
      const type = unify(args[0].type, args[1].type);
      return wrap(Math[name](args[0].value, args[1].value), type);
    }
    case "clamp": {
      if (args.length !== 3) throw new ConstEvalError(`clamp() takes three arguments`);
      const type = unify(unify(args[0].type, args[1].type), args[2].type);
      return wrap(Math.min(Math.max(args[0].value, args[1].value), args[2].value), type);
    }
    case "select": {
      if (args.length !== 3) throw new ConstEvalError(`select() takes three arguments`);
      return args[2].value ? args[1] : args[0];
    }
    case "dot4U8Packed":
    case "dot4I8Packed": {
      if (args.length !== 2) throw new ConstEvalError(`${name}() takes two arguments`);
      const signed = name === "dot4I8Packed";
      const byte = (x: number, k: number) =>
        signed ? (x << (24 - 8 * k)) >> 24 : (x >>> (8 * k)) & 0xff;
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += byte(args[0].value, k) * byte(args[1].value, k);
      return wrap(sum, signed ? "i32" : "u32");
    }
  }
  if (name in FLOAT_BUILTINS) {
    const [arity, f] = FLOAT_BUILTINS[name];
    if (args.length !== arity) throw new ConstEvalError(`${name}() takes ${arity} argument(s)`);
    const type = args.map((a) => a.type).reduce(unify);
    if (type !== "f32" && type !== "f16" && !type.startsWith("abstract")) {
      throw new ConstEvalError(`${name}() needs a float argument`);
    }
    const value = f(...args.map((a) => converted(a, type).value));
    if (!Number.isFinite(value)) throw new ConstEvalError(`${name}() has no finite value here`);
    return wrap(value, type === "abstract-int" ? "abstract-float" : type);
  }
  if (name in BIT_BUILTINS) {
    const [arity, f] = BIT_BUILTINS[name];
    if (args.length !== arity) throw new ConstEvalError(`${name}() takes ${arity} argument(s)`);
    const type = integer(args[0], name) === "u32" ? "u32" : "i32";
    return wrap(f(type === "u32", args[0].value >>> 0, ...args.slice(1).map((a) => a.value)), type);
  }
  throw new ConstEvalError(`${name}() is not evaluated by the runtime`);
}
