/**
 * A small evaluator of WGSL const expressions (and override expressions once every override has
 * a value): what `@workgroup_size(W / 4u)`, `array<f32, N * 2>` and override defaults need.
 * Literals of every suffix (hex floats too), names of module-scope `const`/`override` declarations (through
 * `scope`), unary `- ! ~`, the binary operators, parentheses, the constructors `i32 u32 f32 f16
 * bool`, `min max abs clamp select`, the scalar float builtins (`sqrt pow round floor`...: WGSL's
 * `round` goes to even) and the bit builtins of one integer (`countOneBits extractBits
 * reverseBits`...), vectors and arrays (`.x`, `[i]`; operators and builtins of vectors per
 * component, `dot length distance normalize cross all any`: `_const_values.ts`; matrices:
 * `_const_matrices.ts`), and the
 * module's structs through the scope
 * (`Foo(2u)`, `Foo()`, `.n`: `_const_structs.ts`). Anything else throws `ConstEvalError` naming
 * it, so a caller never goes on with a value it guessed.
 *
 * Integers follow WGSL: `u32` and `i32` wrap... except that a const expression that overflows is
 * an error in WGSL, which the device reports; here the value is wrapped only to stay a number.
 *
 * @module
 */

import { callBuiltin } from "./_const_builtins.ts";
import { constructMatrix, matrixApply } from "./_const_matrices.ts";
import {
  abstractIntOp,
  ConstEvalError,
  type ConstType,
  type ConstValue,
  converted,
  exactInt,
  integer,
  isInteger,
  perComponent,
  scalar,
  unify,
  vectorBuiltin,
  wrap,
} from "./_const_values.ts";

export { ConstEvalError, wrap };
export type { ConstType, ConstValue };

/**
 * What names mean to {@linkcode evaluateConst}: a declaration's value (`undefined`: an unknown
 * name) and, if the module has any, `struct(name, args)`: the value of the struct constructor
 * `name(args...)` (`undefined`: `name` is no struct).
 */
export type ConstScope = ((name: string) => ConstValue | undefined) & {
  readonly struct?: (name: string, args: readonly ConstValue[]) => ConstValue | undefined;
};

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
function tokenize(text: string): string[] {
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
      left = apply(op, left, binary(level + 1));
    }
    return left;
  };
  const unary = (): ConstValue => {
    const t = peek();
    if (t === "-" || t === "!" || t === "~") {
      i++;
      const v = unary();
      return perComponent([v], ([x]) => prefix(t, x)) ?? prefix(t, scalar(v, t));
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
        integer(index, "[]");
        const element = v.parts?.[index.value];
        if (element === undefined) throw new ConstEvalError(`cannot index '${text.trim()}'`);
        v = element;
      } else return v;
    }
  };
  /** `vec3<u32>` / `array<f32, 4>`: the element type when it is a scalar (tokens consumed). */
  let count: string[] = []; // the last template's tokens after its first comma (an array's count)
  const template = (): ConstType | undefined => {
    let depth = 0;
    let element: string | undefined;
    let comma = false;
    count = [];
    do {
      const t = tokens[i++];
      if (t === undefined) throw new ConstEvalError(`'${text.trim()}' ends early`);
      const outer = depth === 1;
      if (t === "<") depth++;
      else if (t === ">") depth--;
      else if (t === ">>") depth -= 2;
      if (outer && t === "," && !comma) comma = true;
      else if (outer && element === undefined) element = t;
      else if (comma && depth > 0) count.push(t);
    } while (depth > 0);
    return SCALARS.has(element ?? "") ? element as ConstType : undefined;
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
    const mat = /^mat([234])x([234])([fh]?)$/.exec(t);
    if (mat !== null) {
      const element = peek() === "<" ? template() : SUFFIX_TYPES[mat[3]];
      return constructMatrix(Number(mat[1]), Number(mat[2]), element, args(), convert);
    }
    const vector = /^vec([234])([fiuh]?)$/.exec(t);
    if (vector !== null || t === "array") {
      count = [];
      const element = peek() === "<" ? template() : SUFFIX_TYPES[vector?.[2] ?? ""];
      const given = args();
      if (given.length > 0 || element === undefined) {
        return construct(vector === null ? 0 : Number(vector[1]), element, given);
      }
      // A zero value: `vec3u()`, `array<u32, N>()`.
      const size = vector !== null
        ? Number(vector[1])
        : scalar(evaluateConst(count.join(" ") || "0", scope), "an array's count").value;
      return construct(
        vector === null ? 0 : size,
        element,
        Array(size).fill({ value: 0, type: element }),
      );
    }
    if (peek() === "(") {
      const given = args();
      return scope.struct?.(t, given) ?? callAny(t, given);
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

const SCALARS = new Set(["i32", "u32", "f32", "f16", "bool"]);
const SUFFIX_TYPES: Readonly<Record<string, ConstType | undefined>> = {
  f: "f32",
  i: "i32",
  u: "u32",
  h: "f16",
};

/**
 * A vector of `size` (`vec3u(...)`, `vec2<f32>(...)`, splat and vector arguments flattened) or,
 * `size` 0, an array (`array(...)`, `array<u32, 3>(...)`), elements converted to `element`.
 */
function construct(
  size: number,
  element: ConstType | undefined,
  args: readonly ConstValue[],
): ConstValue {
  let parts = size === 0 ? args : args.flatMap((a) => a.parts ?? [a]);
  if (size > 0 && parts.length === 1) parts = Array(size).fill(parts[0]);
  if ((size > 0 && parts.length !== size) || parts.length === 0) {
    throw new ConstEvalError(`a ${size ? `vec${size}` : "array"} of ${parts.length} elements`);
  }
  const scalars = parts.every((p) => p.parts === undefined);
  const type = element ?? (scalars ? parts.map((p) => p.type).reduce(unify) : parts[0].type);
  if (scalars && SCALARS.has(type)) parts = parts.map((p) => callBuiltin(type, [p]));
  return { value: NaN, type, parts };
}

/** `v.x`, `v.rg`: a vector's components by letter; `s.n`: a struct's member. */
function member(v: ConstValue, name: string): ConstValue {
  if (v.fields !== undefined) {
    const field = v.parts?.[v.fields.indexOf(name)];
    if (field === undefined) throw new ConstEvalError(`the struct has no member '${name}'`);
    return field;
  }
  const set = /^[xyzw]+$/.test(name) ? "xyzw" : /^[rgba]+$/.test(name) ? "rgba" : undefined;
  const picked = [...name].map((c) => v.parts?.[set?.indexOf(c) ?? -1]);
  if (v.parts === undefined || set === undefined || picked.some((p) => p === undefined)) {
    throw new ConstEvalError(`cannot read '.${name}'`);
  }
  return picked.length === 1
    ? picked[0]!
    : { value: NaN, type: v.type, parts: picked as ConstValue[] };
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
  if (suffix === "i") return wrap(value, "i32");
  if (suffix === "u") return wrap(value, "u32");
  if (suffix === "f") return wrap(value, "f32");
  if (suffix === "h") return wrap(value, "f16");
  return float ? { value, type: "abstract-float" } : exactInt(BigInt(body));
}

const COMPARE: Readonly<Record<string, (x: number, y: number) => boolean>> = {
  "==": (x, y) => x === y,
  "!=": (x, y) => x !== y,
  "<": (x, y) => x < y,
  ">": (x, y) => x > y,
  "<=": (x, y) => x <= y,
  ">=": (x, y) => x >= y,
};

/** A prefix operator (`- ! ~`) of a scalar. */
function prefix(op: string, v: ConstValue): ConstValue {
  if (op === "!") return { value: v.value ? 0 : 1, type: "bool" };
  if (op === "~") {
    const type = integer(v, "~"); // an abstract integer's complement is exact (i64)
    return type === "abstract-int" ? exactInt(~BigInt(v.value)) : wrap(~v.value, type);
  }
  return wrap(-v.value, v.type);
}

/** A binary operator; of vectors (or a vector and a scalar), per component. */
function apply(op: string, left: ConstValue, right: ConstValue): ConstValue {
  const lifted = matrixApply(op, left, right, apply) ??
    perComponent([left, right], ([x, y]) => apply(op, x, y));
  if (lifted !== undefined) return lifted;
  scalar(left, op), scalar(right, op);
  if (op === "&&" || op === "||") {
    const value = op === "&&" ? left.value && right.value : left.value || right.value;
    return { value: value ? 1 : 0, type: "bool" };
  }
  const a = op === "<<" || op === ">>" ? left : converted(left, unify(left.type, right.type));
  const b = op === "<<" || op === ">>" ? right : converted(right, unify(left.type, right.type));
  const compare = COMPARE[op];
  if (compare !== undefined) return { value: compare(a.value, b.value) ? 1 : 0, type: "bool" };
  if (op === "<<" || op === ">>") {
    const type = integer(a, op);
    if (type === "abstract-int") return abstractIntOp(op, a.value, b.value)!;
    const shift = b.value & 31;
    if (op === "<<") return wrap(a.value * 2 ** shift, type);
    return wrap(type === "u32" ? a.value >>> shift : Math.floor(a.value / 2 ** shift), type);
  }
  const type = unify(a.type, b.type);
  const exact = type === "abstract-int" ? abstractIntOp(op, a.value, b.value) : undefined;
  if (exact !== undefined) return exact;
  const isInt = isInteger(type);
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
      integer({ value: 0, type }, op);
      const r = op === "&" ? a.value & b.value : op === "|" ? a.value | b.value : a.value ^ b.value;
      return wrap(r, type);
    }
  }
  throw new ConstEvalError(`operator '${op}' is not supported`);
}

/**
 * A call: `select` of a scalar condition picks an argument whole; the geometric builtins of
 * vectors; another builtin of a vector per component; else a builtin of scalars.
 */
function callAny(name: string, args: ConstValue[]): ConstValue {
  if (name === "select" && args.length === 3 && args[2].parts === undefined) {
    return args[2].value ? args[1] : args[0];
  }
  if (CONVERSIONS.has(name)) return callBuiltin(name, args.map((a) => scalar(a, name)));
  return vectorBuiltin(name, args, apply, callBuiltin) ??
    perComponent(args, (parts) => callBuiltin(name, parts)) ??
    callBuiltin(name, args.map((a) => scalar(a, name)));
}

const CONVERSIONS = new Set(["i32", "u32", "f32", "f16", "bool"]);

/** `v` converted to `type` (an abstract type keeps the value). */
const convert = (type: ConstType, v: ConstValue) => SCALARS.has(type) ? callBuiltin(type, [v]) : v;
