/**
 * A small evaluator of WGSL const expressions (and override expressions once every override has
 * a value): what `@workgroup_size(W / 4u)`, `array<f32, N * 2>` and override defaults need.
 * Literals of every suffix (hex floats too), names of module-scope `const`/`override` declarations
 * (through `scope`), unary `- ! ~`, the binary operators on scalars, vectors and matrices
 * (`_const_ops.ts`), parentheses, the constructors and zero values of scalars, vectors, matrices
 * and arrays (`mat2x2f(1, 2, 3, 4)`, `vec3f()`, `array<u32, 4>()`: `_const_types.ts`), the
 * builtins of `_const_calls.ts` (`min`, `sqrt`, `dot`, `all`...), `.x` / `.xy`, `[i]` (a matrix's
 * column), and the module's structs and aliases through the scope (`Foo(2u)`, `Foo()`, `.n`:
 * `_const_structs.ts`). Anything else throws `ConstEvalError` naming it, so a caller never goes on
 * with a value it guessed.
 *
 * @module
 */

import { callBuiltin } from "./_const_calls.ts";
import { binaryOp, unaryOp, wrap } from "./_const_ops.ts";
import { construct, isTypeName, readType, vector } from "./_const_types.ts";

/** The type of a value. */
export type ConstType = "abstract-int" | "abstract-float" | "i32" | "u32" | "f32" | "f16" | "bool";

/** A typed value. */
export interface ConstValue {
  /** A scalar's value (`NaN` for a vector, matrix, array or struct). */
  readonly value: number;
  /** A scalar's type; a vector's, matrix's or array's element type. */
  readonly type: ConstType;
  /**
   * A vector's, matrix's (its columns) or array's elements (`vec3u(4, 8, 2)`, `array(2u, 4u)`),
   * read by `.x` / `[i]`; a struct's members.
   */
  readonly parts?: readonly ConstValue[];
  /** What `parts` are (a struct has `fields` instead). */
  readonly kind?: "vector" | "matrix" | "array";
  /** A struct's member names, one per part (`Foo(2u)`), read by `.name`. */
  readonly fields?: readonly string[];
}

/**
 * What names mean to {@linkcode evaluateConst}: a declaration's value (`undefined`: an unknown
 * name) and, if the module has any, `struct(name, args)`: the value of the struct constructor
 * `name(args...)` (`undefined`: `name` is no struct), and `alias(name)`: the type an alias
 * names, as written (`undefined`: no alias).
 */
export type ConstScope = ((name: string) => ConstValue | undefined) & {
  readonly struct?: (name: string, args: readonly ConstValue[]) => ConstValue | undefined;
  readonly alias?: (name: string) => string | undefined;
};

/** Why an expression has no value here (what it could not read). */
export class ConstEvalError extends Error {
  override name = "ConstEvalError";
}

const TOKEN = new RegExp(
  [
    "\\s+",
    // hex floats (WGSL: a suffix only after an exponent), then hex integers
    "0[xX](?:[0-9a-fA-F]*\\.[0-9a-fA-F]+|[0-9a-fA-F]+\\.[0-9a-fA-F]*)(?:[pP][+-]?\\d+[fh]?)?",
    "0[xX][0-9a-fA-F]+[pP][+-]?\\d+[fh]?",
    "0[xX][0-9a-fA-F]+[iu]?",
    "(?:\\d+\\.\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?[fh]?", // decimal floats
    "\\d+[eE][+-]?\\d+[fh]?",
    "\\d+[iufh]?",
    "[\\p{XID_Start}_]\\p{XID_Continue}*", // identifiers (WGSL's are Unicode)
    "<<|>>|<=|>=|==|!=|&&|\\|\\|",
    "[-+*/%&|^~!<>(),.\\[\\]]",
  ].map((p) => `(${p})`).join("|"),
  "yu",
);

/** Tokens of an expression; throws on a character that cannot start one. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (match === null) throw new ConstEvalError(`cannot read '${text.slice(at)}'`);
    if (match[1] === undefined) tokens.push(match[0]);
  }
  return tokens;
}

/**
 * Evaluates `text`; `scope(name)` gives a declaration's value (or `undefined`: unknown name).
 * The value is a scalar unless `composite` (a declaration's value may be a vector or an array,
 * whose elements `.x` and `[i]` read).
 */
export function evaluateConst(
  text: string,
  scope: ConstScope,
  composite = false,
): ConstValue {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const expect = (t: string) => {
    if (tokens[i] !== t) throw new ConstEvalError(`expected '${t}' in '${text.trim()}'`);
    i++;
  };
  const LEVELS: readonly (readonly string[])[] = [
    ["||"],
    ["&&"],
    ["|"],
    ["^"],
    ["&"],
    ["==", "!="],
    ["<", ">", "<=", ">="],
    ["<<", ">>"],
    ["+", "-"],
    ["*", "/", "%"],
  ];
  const binary = (level: number): ConstValue => {
    if (level === LEVELS.length) return unary();
    let left = binary(level + 1);
    while (peek() !== undefined && LEVELS[level].includes(peek())) {
      const op = tokens[i++];
      left = binaryOp(op, left, binary(level + 1));
    }
    return left;
  };
  const unary = (): ConstValue => {
    const t = peek();
    if (t === "-" || t === "!" || t === "~") {
      i++;
      return unaryOp(t, unary());
    }
    let v = primary();
    for (;;) {
      if (peek() === ".") {
        i++;
        v = member(v, tokens[i++] ?? "");
      } else if (peek() === "[") {
        i++;
        const index = scalar(binary(0), "[]");
        expect("]");
        if (!/int|i32|u32/.test(index.type)) throw new ConstEvalError(`'[]' needs an integer`);
        const element = v.fields === undefined ? v.parts?.[index.value] : undefined;
        if (element === undefined) throw new ConstEvalError(`cannot index '${text.trim()}'`);
        v = element;
      } else return v;
    }
  };
  const args = (): ConstValue[] => {
    expect("(");
    const out: ConstValue[] = [];
    while (peek() !== ")") {
      out.push(binary(0));
      if (peek() === ",") i++;
      else break;
    }
    expect(")");
    return out;
  };
  const primary = (): ConstValue => {
    const t = tokens[i++];
    if (t === undefined) throw new ConstEvalError(`'${text.trim()}' ends early`);
    if (t === "(") {
      const v = binary(0);
      expect(")");
      return v;
    }
    if (/^[\d.]/.test(t)) return literal(t);
    if (!/^[\p{XID_Start}_]/u.test(t)) {
      throw new ConstEvalError(`unexpected '${t}' in '${text.trim()}'`);
    }
    if (t === "true" || t === "false") return { value: t === "true" ? 1 : 0, type: "bool" };
    if ((isTypeName(t) || scope.alias?.(t) !== undefined) && (peek() === "(" || peek() === "<")) {
      const [type, next] = readType(tokens, i - 1, scope, (count) => arrayCount(count, scope));
      i = next;
      return construct(type, args(), scope);
    }
    if (peek() === "(") {
      const given = args();
      return scope.struct?.(t, given) ?? callBuiltin(t, given);
    }
    const v = scope(t);
    if (v === undefined) throw new ConstEvalError(`'${t}' is not a module-scope const or override`);
    return v;
  };
  const result = binary(0);
  if (i !== tokens.length) {
    throw new ConstEvalError(`unexpected '${tokens[i]}' in '${text.trim()}'`);
  }
  return composite ? result : scalar(result, text.trim());
}

/** `v` when it is a scalar; a vector, array or struct throws (`what` uses it as one). */
function scalar(v: ConstValue, what: string): ConstValue {
  if (v.parts !== undefined) throw new ConstEvalError(`'${what}' of a vector, array or struct`);
  return v;
}

/** `v.x`, `v.rg`: a vector's components by letter; `s.n`: a struct's member. */
function member(v: ConstValue, name: string): ConstValue {
  if (v.fields !== undefined) {
    const field = v.parts?.[v.fields.indexOf(name)];
    if (field === undefined) throw new ConstEvalError(`the struct has no member '${name}'`);
    return field;
  }
  if (v.kind !== "vector") throw new ConstEvalError(`cannot read '.${name}' of a non-vector`);
  const set = /^[xyzw]+$/.test(name) ? "xyzw" : /^[rgba]+$/.test(name) ? "rgba" : undefined;
  const picked = [...name].map((c) => v.parts?.[set?.indexOf(c) ?? -1]);
  if (v.parts === undefined || set === undefined || picked.some((p) => p === undefined)) {
    throw new ConstEvalError(`cannot read '.${name}'`);
  }
  return picked.length === 1 ? picked[0]! : vector(picked as ConstValue[]);
}

function literal(t: string): ConstValue {
  const hexFloat = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+)([fh]?))?$/.exec(t);
  if (hexFloat !== null && /[.pP]/.test(t)) {
    const [, whole, fraction = "", exponent = "0", suffix] = hexFloat;
    const mantissa = parseInt(whole + fraction || "0", 16) / 16 ** fraction.length;
    const value = mantissa * 2 ** Number(exponent);
    if (suffix === "f") return wrap(value, "f32");
    if (suffix === "h") return wrap(value, "f16");
    return { value, type: "abstract-float" };
  }
  const hex = /^(0[xX][0-9a-fA-F]+)([iu]?)$/.exec(t);
  const [, body, suffix] = hex ?? /^(.*?)([iufh]?)$/.exec(t)!;
  const float = hex === null && /[.eE]/.test(body);
  const value = Number(body);
  // A literal its type does not hold is an error in WGSL (`3000000000i`, `1e39f`), not wrapped.
  if ((suffix === "i" && value > 2 ** 31 - 1) || (suffix === "u" && value > 2 ** 32 - 1)) {
    throw new ConstEvalError(`${t} is past ${suffix === "i" ? "i32" : "u32"}'s range`);
  }
  if (suffix === "i") return wrap(value, "i32");
  if (suffix === "u") return wrap(value, "u32");
  if (suffix === "f") return wrap(value, "f32");
  if (suffix === "h") return wrap(value, "f16");
  return float ? { value, type: "abstract-float" } : wrap(value, "abstract-int");
}

/** An array count (`array<u32, N * 2>`): a positive integer (`ConstEvalError` otherwise). */
export function arrayCount(tokens: readonly string[], scope: ConstScope): number {
  const { value, type } = evaluateConst(tokens.join(" "), scope);
  if (!/int|i32|u32/.test(type) || !Number.isInteger(value) || value < 1 || value > 1 << 20) {
    throw new ConstEvalError(`an array count of ${value}`);
  }
  return value;
}
