/**
 * The values of the const-expression evaluator (`_const_eval.ts`): their types, the error that
 * says an expression has no value here, WGSL's conversions and wrapping, and vectors: the
 * operators and builtins WGSL applies per component (`vec2u(16, 8) / 2u`, `min(a, b)`, `-v`,
 * `a < b`) and the geometric builtins of vectors (`dot length distance normalize cross all any`).
 *
 * @module
 */

/** The type of a value. */
export type ConstType = "abstract-int" | "abstract-float" | "i32" | "u32" | "f32" | "f16" | "bool";

/** A typed value. */
export interface ConstValue {
  /** A scalar's value (`NaN` for a vector or array). */
  readonly value: number;
  /** A scalar's type; a vector's or array's element type. */
  readonly type: ConstType;
  /** A vector's or array's elements (`vec3u(4, 8, 2)`, `array(2u, 4u)`), read by `.x` / `[i]`. */
  readonly parts?: readonly ConstValue[];
  /** A struct's member names, one per part (`Foo(2u)`), read by `.name`. */
  readonly fields?: readonly string[];
  /** A matrix: its parts are its columns (`_const_matrices.ts`). */
  readonly matrix?: true;
}

/** Why an expression has no value here (what it could not read). */
export class ConstEvalError extends Error {
  override name = "ConstEvalError";
}

/** `v` when it is a scalar; a vector, array or struct throws (`what` uses it as one). */
export function scalar(v: ConstValue, what: string): ConstValue {
  if (v.parts !== undefined) throw new ConstEvalError(`'${what}' of a vector, array or struct`);
  return v;
}

const CONCRETE_INT = new Set<ConstType>(["i32", "u32", "abstract-int"]);

/** Whether `type` is an integer type (concrete or abstract). */
export function isInteger(type: ConstType): boolean {
  return CONCRETE_INT.has(type);
}

/** `v`'s type when it is an integer; otherwise `op` (which needs one) throws. */
export function integer(v: ConstValue, op: string): ConstType {
  if (!CONCRETE_INT.has(v.type)) throw new ConstEvalError(`'${op}' needs an integer`);
  return v.type;
}

/** The type two operands convert to (an abstract type takes the concrete one). */
export function unify(a: ConstType, b: ConstType): ConstType {
  if (a === b) return a;
  if (a.startsWith("abstract") && b.startsWith("abstract")) return "abstract-float";
  if (a.startsWith("abstract")) return b;
  if (b.startsWith("abstract")) return a;
  throw new ConstEvalError(`cannot mix ${a} and ${b}`);
}

const I64 = 2n ** 63n, SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An abstract integer (WGSL computes them as i64, and an overflow is an error); one beyond 2^53,
 * which a number does not hold exactly, throws rather than go on inexact.
 */
export function exactInt(value: bigint): ConstValue {
  if (value < -I64 || value >= I64) throw new ConstEvalError(`an abstract integer overflows i64`);
  if (value > SAFE || value < -SAFE) {
    throw new ConstEvalError(`an abstract integer beyond 2^53, which the runtime does not hold`);
  }
  return { value: Number(value), type: "abstract-int" };
}

/** `x op y` of two abstract integers, exactly; `undefined` for an operator of no integer. */
export function abstractIntOp(op: string, x: number, y: number): ConstValue | undefined {
  const a = BigInt(x), b = BigInt(y);
  if ((op === "/" || op === "%") && b === 0n) throw new ConstEvalError(`division by zero`);
  if ((op === "<<" || op === ">>") && (b < 0n || b >= 64n)) {
    throw new ConstEvalError(`a shift of an abstract integer by ${y}`);
  }
  const result: Readonly<Record<string, () => bigint>> = {
    "+": () => a + b,
    "-": () => a - b,
    "*": () => a * b,
    "/": () => a / b,
    "%": () => a % b,
    "&": () => a & b,
    "|": () => a | b,
    "^": () => a ^ b,
    "<<": () => a << b,
    ">>": () => a >> b,
  };
  return result[op] === undefined ? undefined : exactInt(result[op]());
}

/**
 * A value kept in its type's range, as the device computes it: integers wrapped, floats rounded
 * to f32 or f16 (a finite value past their range throws: an error in WGSL).
 */
export function wrap(value: number, type: ConstType): ConstValue {
  if (type === "u32") return { value: value >>> 0, type };
  if (type === "i32") return { value: value | 0, type };
  if (type !== "f32" && type !== "f16") return { value, type };
  const rounded = type === "f32" ? Math.fround(value) : Math.f16round(value);
  if (Number.isFinite(value) && !Number.isFinite(rounded)) {
    throw new ConstEvalError(`${value} is past ${type}'s range`);
  }
  return { value: rounded, type };
}

/**
 * A scalar operand converted to `type`, the type it unifies to with the other operands, before
 * the operation (WGSL converts an abstract operand first: `T == 0.7` of an f32 `T` compares with
 * the f32 0.7, and `S * 0.1` multiplies by the f32 0.1).
 */
export function converted(v: ConstValue, type: ConstType): ConstValue {
  return v.type === type || type.startsWith("abstract") || type === "bool"
    ? v
    : wrap(v.value, type);
}

/**
 * Whether `v` is a vector: 2 to 4 scalars that are no struct's members (an array of as many
 * scalars reads the same; WGSL has no arithmetic on arrays, so the device refuses such a use).
 */
function isVector(v: ConstValue): boolean {
  const parts = v.parts;
  return parts !== undefined && v.fields === undefined && !v.matrix && parts.length >= 2 &&
    parts.length <= 4 && parts.every((p) => p.parts === undefined);
}

/**
 * `f` of each component where any of `args` is a vector (a scalar argument goes to every
 * component, as in `v / 2u`, `extractBits(v, 4u, 4u)`); `undefined` when none is a vector.
 */
export function perComponent(
  args: readonly ConstValue[],
  f: (args: ConstValue[]) => ConstValue,
): ConstValue | undefined {
  const size = args.find(isVector)?.parts?.length;
  if (size === undefined) return undefined;
  if (args.some((a) => a.parts !== undefined && (!isVector(a) || a.parts.length !== size))) {
    throw new ConstEvalError(`vectors of different sizes, or an array or struct, per component`);
  }
  const parts = Array.from({ length: size }, (_, k) => f(args.map((a) => a.parts?.[k] ?? a)));
  return { value: NaN, type: parts[0].type, parts };
}

/**
 * The geometric and boolean builtins of vectors (`dot length distance normalize cross all any`),
 * computed with the evaluator's scalar operators (`op`, rounding as the type does after every
 * step) and builtins (`fn`); `undefined` for another name.
 */
export function vectorBuiltin(
  name: string,
  args: readonly ConstValue[],
  op: (operator: string, a: ConstValue, b: ConstValue) => ConstValue,
  fn: (name: string, args: ConstValue[]) => ConstValue,
): ConstValue | undefined {
  const arity = ARITY[name];
  if (arity === undefined) return undefined;
  if (args.length !== arity) throw new ConstEvalError(`${name}() takes ${arity} argument(s)`);
  const dot = (a: ConstValue, b: ConstValue) => {
    const products = perComponent([a, b], ([x, y]) => op("*", x, y));
    if (products === undefined) throw new ConstEvalError(`${name}() needs vectors`);
    return products.parts!.reduce((sum, p) => op("+", sum, p));
  };
  const length = (v: ConstValue) =>
    v.parts === undefined ? fn("abs", [v]) : fn("sqrt", [dot(v, v)]);
  switch (name) {
    case "dot":
      return dot(args[0], args[1]);
    case "length":
      return length(args[0]);
    case "distance":
      return length(perComponent(args, ([a, b]) => op("-", a, b)) ?? op("-", args[0], args[1]));
    case "normalize": {
      const n = length(args[0]);
      return perComponent([args[0]], ([x]) => op("/", x, n)) ?? op("/", args[0], n);
    }
    case "cross": {
      const [a, b] = args.map((v) => v.parts);
      if (a?.length !== 3 || b?.length !== 3) throw new ConstEvalError(`cross() needs vec3s`);
      const c = (i: number, j: number) => op("-", op("*", a[i], b[j]), op("*", a[j], b[i]));
      const parts = [c(1, 2), c(2, 0), c(0, 1)];
      return { value: NaN, type: parts[0].type, parts };
    }
    default: { // all, any: of a bool vector, or a bool itself
      const parts = args[0].parts ?? [args[0]];
      if (parts.some((p) => p.type !== "bool")) throw new ConstEvalError(`${name}() needs bools`);
      const value = name === "all" ? parts.every((p) => p.value) : parts.some((p) => p.value);
      return { value: value ? 1 : 0, type: "bool" };
    }
  }
}

const ARITY: Readonly<Record<string, number>> = {
  dot: 2,
  length: 1,
  distance: 2,
  normalize: 1,
  cross: 2,
  all: 1,
  any: 1,
};
