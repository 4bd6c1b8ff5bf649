/**
 * The builtin functions of const expressions (`_const_eval.ts`): `min max abs clamp sign
 * select`, the float builtins (`sqrt pow round fma`...: WGSL's `round` goes to even; `sin atan2`...
 * of abstract floats only), the bit builtins of one integer (`countOneBits reverseBits`...), each
 * component-wise on vectors; the vector builtins `dot cross length distance normalize all any`,
 * and `dot4U8Packed dot4I8Packed`. Others throw `ConstEvalError` naming them, and so do those
 * whose value naga takes from the platform's math library (`_const_builtins.ts`).
 *
 * @module
 */

import { ConstEvalError, type ConstValue } from "./_const_eval.ts";
import {
  BIT_BUILTINS,
  exactLibm,
  FLOAT_BUILTINS,
  LIBM_BUILTINS,
  libmOfAbstract,
} from "./_const_builtins.ts";
import {
  binaryOp,
  convertScalar,
  dotProduct,
  integer,
  scalarOp,
  unify,
  wrap,
} from "./_const_ops.ts";
import { vector } from "./_const_types.ts";

/** `name(args...)` for a builtin function. */
export function callBuiltin(name: string, args: readonly ConstValue[]): ConstValue {
  const arity = (n: number) => {
    if (args.length !== n) throw new ConstEvalError(`${name}() takes ${n} argument(s)`);
  };
  switch (name) {
    case "select": {
      arity(3);
      const [f, t, c] = args;
      if (c.kind !== "vector") return c.value ? t : f;
      const pick = (v: ConstValue, i: number) => v.kind === "vector" ? v.parts![i] : v;
      return vector(c.parts!.map((ci, i) => ci.value ? pick(t, i) : pick(f, i)));
    }
    case "dot":
      arity(2);
      return dotProduct(args[0], args[1]);
    case "cross": {
      arity(2);
      const [a, b] = args.map((v) => v.kind === "vector" && v.parts!.length === 3 ? v.parts! : []);
      if (a.length !== 3 || b.length !== 3) throw new ConstEvalError(`cross() takes two vec3`);
      const term = (i: number, j: number) =>
        scalarOp("-", scalarOp("*", a[i], b[j]), scalarOp("*", a[j], b[i]));
      return vector([term(1, 2), term(2, 0), term(0, 1)]);
    }
    case "length":
      arity(1);
      return length(concrete(args[0]));
    case "distance":
      arity(2);
      return length(binaryOp("-", concrete(args[0]), concrete(args[1])));
    case "normalize": {
      arity(1);
      const v = concrete(args[0]);
      if (v.kind !== "vector") throw new ConstEvalError(`normalize() takes a vector`);
      return binaryOp("/", v, length(v));
    }
    case "dot4U8Packed":
    case "dot4I8Packed": {
      arity(2);
      const signed = name === "dot4I8Packed";
      const byte = (v: ConstValue, k: number) => {
        const b = (v.value >>> (8 * k)) & 0xff;
        return signed && b >= 0x80 ? b - 0x100 : b;
      };
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += byte(args[0], k) * byte(args[1], k);
      return wrap(sum, signed ? "i32" : "u32");
    }
    case "all":
    case "any": {
      arity(1);
      const parts = args[0].kind === "vector" ? args[0].parts! : [args[0]];
      if (parts.some((p) => p.type !== "bool" || p.parts !== undefined)) {
        throw new ConstEvalError(`${name}() takes a bool or vector of bool`);
      }
      const value = name === "all" ? parts.every((p) => p.value) : parts.some((p) => p.value);
      return { value: value ? 1 : 0, type: "bool" };
    }
  }
  if (args.some((a) => a.parts !== undefined && a.kind !== "vector")) {
    throw new ConstEvalError(`${name}() of a matrix, array or struct`);
  }
  const size = args.find((a) => a.kind === "vector")?.parts?.length;
  if (size === undefined) return scalarCall(name, args);
  if (args.some((a) => a.kind === "vector" && a.parts!.length !== size)) {
    throw new ConstEvalError(`${name}() of vectors of two sizes`);
  }
  return vector(
    Array.from(
      { length: size },
      (_, i) => scalarCall(name, args.map((a) => a.kind === "vector" ? a.parts![i] : a)),
    ),
  );
}

/**
 * `v` with abstract floats made f32: naga evaluates `length`, `distance` and `normalize` of
 * abstract vectors in f32 (measured: `length(vec3(11.4, 4.8, 0.7))` is the f32 computation's).
 */
function concrete(v: ConstValue): ConstValue {
  if (v.kind === "vector") return vector(v.parts!.map(concrete));
  return v.type === "abstract-float" || v.type === "abstract-int" ? convertScalar(v, "f32") : v;
}

/** `length(v)`: the square root of `dot(v, v)` (of a scalar, its magnitude). */
function length(v: ConstValue): ConstValue {
  if (v.kind !== "vector") return scalarCall("abs", [v]);
  return scalarCall("sqrt", [dotProduct(v, v)]);
}

function scalarCall(name: string, args: readonly ConstValue[]): ConstValue {
  const one = () => {
    if (args.length !== 1) throw new ConstEvalError(`${name}() takes one argument`);
    return args[0];
  };
  switch (name) {
    case "abs":
      return wrap(Math.abs(one().value), one().type);
    case "sign":
      if (one().type !== "i32" && one().type !== "abstract-int") break;
      return wrap(Math.sign(one().value), one().type);
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
  }
  const libm = LIBM_BUILTINS[name];
  const type = args.length > 0 ? args.map((a) => a.type).reduce(unify) : "abstract-int";
  const single = type === "f32" || type === "f16";
  if (libm === "all" || (libm === "single" && single)) {
    throw new ConstEvalError(
      `${name}()${libm === "single" ? ` of an ${type}` : ""} is not evaluated by the runtime: ` +
        `naga takes it from the platform's math library, which the runtime cannot match bit ` +
        `for bit`,
    );
  }
  if (name in FLOAT_BUILTINS) {
    const [arity, f] = FLOAT_BUILTINS[name];
    if (args.length !== arity) throw new ConstEvalError(`${name}() takes ${arity} argument(s)`);
    if (!single && !type.startsWith("abstract")) {
      throw new ConstEvalError(`${name}() needs a float argument`);
    }
    const x = args.map((a) => a.value);
    const inexact = libm === "inexact" || (!single && libmOfAbstract(name));
    // An exact value the argument's type holds (an f32 or f16 one: rounding it changes nothing).
    const exact = inexact ? exactLibm(name, x) : undefined;
    if (inexact && (exact === undefined || (single && wrap(exact, type).value !== exact))) {
      throw new ConstEvalError(
        `${name}() of ${single ? `an ${type}` : "an abstract float"} is not evaluated by the ` +
          `runtime here (only where its value is exact): naga takes it from the platform's math ` +
          `library, which the runtime cannot match bit for bit`,
      );
    }
    const value = exact ?? f(single, ...x);
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
