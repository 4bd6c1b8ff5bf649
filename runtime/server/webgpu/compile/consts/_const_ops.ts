/**
 * The operators of const expressions (`_const_eval.ts`) on scalars, vectors and matrices, as
 * WGSL defines them: component-wise on vectors (a scalar operand splatted), `+ -` on matrices
 * of one shape, `*` of a matrix with a scalar, a vector (`m * v`, `v * m`) or a matrix; each
 * scalar step rounded to its type (f32 sums of products rounded after every operation, in the
 * order of the index). Anything else (`&&` on vectors, arrays and structs as operands) throws.
 *
 * Integers follow WGSL: `u32` and `i32` wrap... except that a const expression that overflows is
 * an error in WGSL, which the device reports; here the value is wrapped only to stay a number.
 *
 * @module
 */

import { ConstEvalError, type ConstType, type ConstValue } from "./_const_eval.ts";
import { matrix, vector } from "./_const_types.ts";

const CONCRETE_INT = new Set<ConstType>(["i32", "u32", "abstract-int"]);

/** The type of `v`, checked to be an integer (`op` needs one). */
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

/**
 * A value kept in its type's range, as the device computes it. An abstract integer (an i64 in
 * WGSL) beyond 2^53 throws: a double does not hold it exactly.
 */
export function wrap(value: number, type: ConstType): ConstValue {
  if (type === "abstract-int" && !Number.isSafeInteger(value)) {
    throw new ConstEvalError(`an abstract integer beyond 2^53 (${value}) is not exact here`);
  }
  if (type === "u32") return { value: value >>> 0, type };
  if (type === "i32") return { value: value | 0, type };
  if (type !== "f32" && type !== "f16") return { value, type };
  const rounded = type === "f32" ? Math.fround(value) : Math.f16round(value);
  // A finite value past the type's range is an error in WGSL (`1e39f`, `f16(70000.0)`).
  if (Number.isFinite(value) && !Number.isFinite(rounded)) {
    throw new ConstEvalError(`${value} is past ${type}'s range`);
  }
  return { value: rounded, type };
}

/**
 * The integers nearest the ends of i32 and u32 that a float type holds: WGSL converts a float
 * outside an integer type's range to these (`i32(3e9f)` is 2147483520, `u32(-1.5)` 0).
 */
const FLOAT_TO_INT: Readonly<Record<string, readonly [number, number]>> = {
  "f32:i32": [-2147483648, 2147483520],
  "f32:u32": [0, 4294967040],
  "i32": [-2147483648, 2147483647],
  "u32": [0, 4294967295],
};

/**
 * A scalar converted to `type` (`u32(2.7)` is 2, `bool(3)` true, `f32(x)` rounded); a float
 * outside the integer type's range saturates (see {@linkcode FLOAT_TO_INT}), an integer wraps.
 */
export function convertScalar(v: ConstValue, type: ConstType): ConstValue {
  if (v.parts !== undefined) throw new ConstEvalError(`${type}() of a vector, array or struct`);
  if (type === "bool") return { value: v.value ? 1 : 0, type };
  if (type === "i32" || type === "u32" || type === "abstract-int") {
    const float = v.type === "f32" || v.type === "f16" || v.type === "abstract-float";
    if (float && type !== "abstract-int") {
      const [low, high] = FLOAT_TO_INT[`${v.type}:${type}`] ?? FLOAT_TO_INT[type];
      const value = Number.isNaN(v.value) ? 0 : Math.min(Math.max(Math.trunc(v.value), low), high);
      return { value, type };
    }
    return wrap(Math.trunc(v.value), type);
  }
  return wrap(v.value, type);
}

/**
 * An abstract scalar converted to the concrete `type` it meets (`0.7` meeting an f32 is
 * `f32(0.7)`); others as they are. An abstract float meeting an integer type stays (WGSL refuses
 * the mix: the device says so).
 */
export function concretize(v: ConstValue, type: ConstType): ConstValue {
  if (v.type === type || !v.type.startsWith("abstract") || type.startsWith("abstract")) return v;
  if (v.type === "abstract-float" && (type === "i32" || type === "u32")) return v;
  return convertScalar(v, type);
}

/** A vector's components, or `n` copies of a scalar. */
function components(v: ConstValue, n: number): readonly ConstValue[] {
  return v.kind === "vector" ? v.parts! : Array(n).fill(v);
}

/** `-v`, `!v`, `~v`: on a scalar, or component-wise on a vector or matrix. */
export function unaryOp(op: string, v: ConstValue): ConstValue {
  if (v.kind === "vector") return vector(v.parts!.map((p) => unaryOp(op, p)));
  if (v.kind === "matrix" && op === "-") return matrix(v.parts!.map((c) => unaryOp(op, c)));
  if (v.parts !== undefined) throw new ConstEvalError(`'${op}' of an array, struct or matrix`);
  if (op === "!") return { value: v.value ? 0 : 1, type: "bool" };
  if (op === "~") {
    return v.type === "abstract-int" ? wrap(-v.value - 1, v.type) : wrap(~v.value, integer(v, "~"));
  }
  return wrap(-v.value, v.type);
}

/** `a op b` (see the module doc). */
export function binaryOp(op: string, a: ConstValue, b: ConstValue): ConstValue {
  if (a.kind === "matrix" || b.kind === "matrix") return matrixOp(op, a, b);
  if (a.kind === "vector" || b.kind === "vector") {
    if (
      (a.parts !== undefined && a.kind !== "vector") ||
      (b.parts !== undefined && b.kind !== "vector")
    ) {
      throw new ConstEvalError(`'${op}' of a vector and an array or struct`);
    }
    if (op === "&&" || op === "||") throw new ConstEvalError(`'${op}' of a vector`);
    const n = (a.kind === "vector" ? a : b).parts!.length;
    const x = components(a, n), y = components(b, n);
    if (x.length !== y.length) throw new ConstEvalError(`'${op}' of vectors of two sizes`);
    return vector(x.map((p, i) => scalarOp(op, p, y[i])));
  }
  return scalarOp(op, a, b);
}

function matrixOp(op: string, a: ConstValue, b: ConstValue): ConstValue {
  const cols = (m: ConstValue) => m.parts!;
  if ((op === "+" || op === "-") && a.kind === "matrix" && b.kind === "matrix") {
    if (cols(a).length !== cols(b).length) throw new ConstEvalError(`'${op}' of two matrix shapes`);
    return matrix(cols(a).map((c, i) => binaryOp(op, c, cols(b)[i])));
  }
  if (op !== "*") throw new ConstEvalError(`'${op}' of a matrix`);
  if (a.parts === undefined || b.parts === undefined) { // with a scalar
    const m = a.kind === "matrix" ? a : b, s = a.kind === "matrix" ? b : a;
    return matrix(cols(m).map((c) => vector(c.parts!.map((x) => scalarOp("*", x, s)))));
  }
  if (a.kind === "matrix" && b.kind === "vector") return matrixTimesVector(a, b);
  if (a.kind === "vector" && b.kind === "matrix") {
    // v * m: the dot product of v with each column.
    return vector(cols(b).map((c) => dotProduct(a, c)));
  }
  if (a.kind === "matrix" && b.kind === "matrix") {
    return matrix(cols(b).map((c) => matrixTimesVector(a, c)));
  }
  throw new ConstEvalError(`'*' of a matrix and an array or struct`);
}

/** `m * v`: the columns of `m` weighted by `v`'s components, summed in order. */
function matrixTimesVector(m: ConstValue, v: ConstValue): ConstValue {
  const columns = m.parts!;
  if (columns.length !== v.parts!.length) throw new ConstEvalError(`'*' of mismatched shapes`);
  const rows = columns[0].parts!.length;
  return vector(
    Array.from({ length: rows }, (_, r) => {
      let sum = scalarOp("*", columns[0].parts![r], v.parts![0]);
      for (let k = 1; k < columns.length; k++) {
        sum = scalarOp("+", sum, scalarOp("*", columns[k].parts![r], v.parts![k]));
      }
      return sum;
    }),
  );
}

/** `dot(a, b)`: products summed in order, each step rounded to the type. */
export function dotProduct(a: ConstValue, b: ConstValue): ConstValue {
  if (a.kind !== "vector" || b.kind !== "vector" || a.parts!.length !== b.parts!.length) {
    throw new ConstEvalError(`dot() takes two vectors of one size`);
  }
  let sum = scalarOp("*", a.parts![0], b.parts![0]);
  for (let k = 1; k < a.parts!.length; k++) {
    sum = scalarOp("+", sum, scalarOp("*", a.parts![k], b.parts![k]));
  }
  return sum;
}

const COMPARE: Readonly<Record<string, (x: number, y: number) => boolean>> = {
  "==": (x, y) => x === y,
  "!=": (x, y) => x !== y,
  "<": (x, y) => x < y,
  ">": (x, y) => x > y,
  "<=": (x, y) => x <= y,
  ">=": (x, y) => x >= y,
};

/** The bit operators on abstract integers (i64), exact. */
const BIG_INT: Readonly<Record<string, (x: bigint, y: bigint) => bigint>> = {
  "&": (x, y) => x & y,
  "|": (x, y) => x | y,
  "^": (x, y) => x ^ y,
  "<<": (x, y) => x << y,
  ">>": (x, y) => x >> y,
};

/** `a op b` on two scalars. */
export function scalarOp(op: string, a: ConstValue, b: ConstValue): ConstValue {
  if (a.parts !== undefined || b.parts !== undefined) {
    throw new ConstEvalError(`'${op}' of a vector, array or struct`);
  }
  if (op === "&&" || op === "||") {
    const value = op === "&&" ? a.value && b.value : a.value || b.value;
    return { value: value ? 1 : 0, type: "bool" };
  }
  const shift = op === "<<" || op === ">>";
  if (!shift && a.type !== b.type) {
    // An abstract operand converts to the concrete type it meets before the operator runs:
    // `T == 0.7` of an f32 `T` compares f32 values (true), as naga computes it.
    const type = unify(a.type, b.type);
    a = concretize(a, type);
    b = concretize(b, type);
  }
  const compare = COMPARE[op];
  if (compare !== undefined) return { value: compare(a.value, b.value) ? 1 : 0, type: "bool" };
  if (a.type === "abstract-int" && (b.type === "abstract-int" || shift) && op in BIG_INT) {
    // An abstract integer is an i64: its bits past 32 count (`(0x100000000 | 3) >> 32` is 1);
    // a shift past 63 and a result past i64 are errors in WGSL, as naga says.
    if (shift && (b.value < 0 || b.value >= 64)) {
      throw new ConstEvalError(`a shift of an abstract integer by ${b.value}`);
    }
    const exact = BIG_INT[op](BigInt(a.value), BigInt(b.value));
    if (exact !== BigInt.asIntN(64, exact)) {
      throw new ConstEvalError(`an abstract integer overflows i64`);
    }
    return wrap(Number(exact), a.type);
  }
  if (op === "<<" || op === ">>") {
    const type = integer(a, op);
    // A const shift by the width or more is an error in WGSL (naga refuses `1u << 32u`).
    if (b.value < 0 || b.value >= 32) {
      throw new ConstEvalError(`a shift by ${b.value} of a ${type}`);
    }
    const by = b.value;
    if (op === "<<") return wrap(a.value * 2 ** by, type);
    return wrap(type === "u32" ? a.value >>> by : Math.floor(a.value / 2 ** by), type);
  }
  const type = unify(a.type, b.type);
  const isInt = CONCRETE_INT.has(type);
  switch (op) {
    case "+":
      return wrap(a.value + b.value, type);
    case "-":
      return wrap(a.value - b.value, type);
    case "*":
      return wrap(
        isInt && type !== "abstract-int" ? Math.imul(a.value, b.value) : a.value * b.value,
        type,
      );
    case "/":
    case "%": {
      if (isInt && b.value === 0) throw new ConstEvalError(`division by zero`);
      if (op === "/") return wrap(isInt ? Math.trunc(a.value / b.value) : a.value / b.value, type);
      return wrap(a.value % b.value, type);
    }
    case "&":
    case "|":
    case "^": {
      if (type !== "bool") integer({ value: 0, type }, op);
      const r = op === "&" ? a.value & b.value : op === "|" ? a.value | b.value : a.value ^ b.value;
      return type === "bool" ? { value: r ? 1 : 0, type } : wrap(r, type);
    }
  }
  throw new ConstEvalError(`operator '${op}' is not supported`);
}
