/**
 * WGSL types in const expressions (`_const_eval.ts`): a type read from tokens (`vec3<u32>`,
 * `mat2x3f`, `array<vec2u, N * 2>`, a struct or alias of the module), its zero value
 * (`vec3f()`, `mat2x2f()`, `array<u32, 4>()`, `u32()`), its constructor (`mat2x2f(1, 2, 3, 4)`
 * from scalars or columns, `vec2u(vec2f(...))` converting) and what a declaration of it holds
 * (`const m: mat2x2f = mat2x2(...)`: abstract values made concrete). What it cannot build is a
 * `ConstEvalError`: no value is guessed.
 *
 * @module
 */

import {
  arrayCount,
  ConstEvalError,
  type ConstScope,
  type ConstType,
  type ConstValue,
  tokenize,
} from "./_const_eval.ts";
import { convertScalar, unify } from "./_const_ops.ts";

/** A type as const expressions use it; an `element` left `undefined` is inferred. */
export type ConstTypeDesc =
  | { readonly t: "scalar"; readonly type: ConstType }
  | { readonly t: "vector"; readonly size: number; readonly element: ConstType | undefined }
  | {
    readonly t: "matrix";
    readonly cols: number;
    readonly rows: number;
    readonly element: ConstType | undefined;
  }
  | { readonly t: "array"; readonly element: ConstTypeDesc | undefined; readonly count?: number }
  | { readonly t: "struct"; readonly name: string };

const SCALARS = new Set(["i32", "u32", "f32", "f16", "bool"]);
const SUFFIX: Readonly<Record<string, ConstType>> = { f: "f32", h: "f16", i: "i32", u: "u32" };
const VECTOR = /^vec([234])([fhiu]?)$/;
const MATRIX = /^mat([234])x([234])([fh]?)$/;

/** Whether `name` starts a predeclared type (a constructor when followed by `(` or `<`). */
export function isTypeName(name: string): boolean {
  return SCALARS.has(name) || VECTOR.test(name) || MATRIX.test(name) || name === "array";
}

/**
 * Reads a type from `tokens` at `at`; returns it and the index after it. `count(tokens)` gives an
 * array count's value; `scope.alias` resolves the module's aliases.
 */
export function readType(
  tokens: readonly string[],
  at: number,
  scope: ConstScope,
  count: (tokens: readonly string[]) => number,
  depth = 0,
): [ConstTypeDesc, number] {
  const name = tokens[at++];
  if (name === undefined) throw new ConstEvalError(`a type ends early`);
  if (depth > 16) throw new ConstEvalError(`'${name}' nests too deep`);
  // The template's arguments, split at its top-level commas.
  const args: string[][] = [];
  if (tokens[at] === "<") {
    at++;
    let level = 1, parens = 0;
    let current: string[] = [];
    for (;;) {
      const t = tokens[at++];
      if (t === undefined) throw new ConstEvalError(`'${name}<' is not closed`);
      if (t === "(" || t === "[") parens++;
      else if (t === ")" || t === "]") parens--;
      else if (parens === 0 && t === "<") level++;
      else if (parens === 0 && (t === ">" || t === ">>")) {
        level -= t.length;
        if (level < 0) throw new ConstEvalError(`'>>' closes '${name}<' and more`);
        if (level === 0) {
          if (t === ">>") current.push(">"); // `array<vec2<u32>>`: the inner list's closer
          break;
        }
      }
      if (parens === 0 && level === 1 && t === ",") {
        args.push(current);
        current = [];
      } else current.push(t);
    }
    if (current.length > 0) args.push(current);
  }
  const element = (): ConstType | undefined => {
    if (args.length === 0) return undefined;
    const [desc] = readType(args[0], 0, scope, count, depth + 1);
    if (desc.t !== "scalar") throw new ConstEvalError(`'${name}' of a non-scalar element`);
    return desc.type;
  };
  if (SCALARS.has(name)) return [{ t: "scalar", type: name as ConstType }, at];
  const vector = VECTOR.exec(name);
  if (vector !== null) {
    return [{ t: "vector", size: Number(vector[1]), element: SUFFIX[vector[2]] ?? element() }, at];
  }
  const matrix = MATRIX.exec(name);
  if (matrix !== null) {
    const [, cols, rows, suffix] = matrix;
    return [
      { t: "matrix", cols: Number(cols), rows: Number(rows), element: SUFFIX[suffix] ?? element() },
      at,
    ];
  }
  if (name === "array") {
    if (args.length === 0) return [{ t: "array", element: undefined }, at];
    const [inner] = readType(args[0], 0, scope, count, depth + 1);
    return [{ t: "array", element: inner, count: args[1] && count(args[1]) }, at];
  }
  const alias = scope.alias?.(name);
  if (alias !== undefined) {
    const [desc] = readType(tokenize(alias), 0, scope, count, depth + 1);
    return [desc, at];
  }
  return [{ t: "struct", name }, at];
}

/** The zero value of `desc`. */
export function zeroOf(desc: ConstTypeDesc, scope: ConstScope): ConstValue {
  switch (desc.t) {
    case "scalar":
      return { value: 0, type: desc.type };
    case "vector":
      return vector(Array(desc.size).fill({ value: 0, type: desc.element ?? "abstract-int" }));
    case "matrix": {
      const column = zeroOf(
        { t: "vector", size: desc.rows, element: floatOf(desc.element) },
        scope,
      );
      return matrix(Array(desc.cols).fill(column));
    }
    case "array": {
      if (desc.element === undefined || desc.count === undefined) {
        throw new ConstEvalError(`the zero value of an array needs its element type and count`);
      }
      return array(Array(desc.count).fill(zeroOf(desc.element, scope)));
    }
    case "struct": {
      const value = scope.struct?.(desc.name, []);
      if (value === undefined) throw new ConstEvalError(`${desc.name}() is not evaluated`);
      return value;
    }
  }
}

/** `desc(args...)`: a constructor call (no arguments: the zero value). */
export function construct(
  desc: ConstTypeDesc,
  args: readonly ConstValue[],
  scope: ConstScope,
): ConstValue {
  if (args.length === 0) return zeroOf(desc, scope);
  switch (desc.t) {
    case "scalar": {
      if (args.length !== 1 || args[0].parts !== undefined) {
        throw new ConstEvalError(`${desc.type}() takes one scalar`);
      }
      return convertScalar(args[0], desc.type);
    }
    case "vector": {
      let parts = args.flatMap((a) => a.kind === "vector" ? a.parts! : [a]);
      if (parts.some((p) => p.parts !== undefined)) {
        throw new ConstEvalError(`vec${desc.size}() of a matrix, array or struct`);
      }
      if (parts.length === 1) parts = Array(desc.size).fill(parts[0]);
      if (parts.length !== desc.size) {
        throw new ConstEvalError(`a vec${desc.size} of ${parts.length} elements`);
      }
      const element = desc.element ?? parts.map((p) => p.type).reduce(unify);
      return vector(parts.map((p) => convertScalar(p, element)));
    }
    case "matrix": {
      const { cols, rows } = desc;
      if (args.length === 1 && args[0].kind === "matrix") {
        const m = args[0];
        if (m.parts!.length !== cols || m.parts![0].parts!.length !== rows) {
          throw new ConstEvalError(`mat${cols}x${rows}() of another matrix shape`);
        }
        return convert(m, { ...desc, element: desc.element ?? m.type }, scope);
      }
      const scalars = args.flatMap((a) => a.kind === "vector" ? a.parts! : [a]);
      if (scalars.some((p) => p.parts !== undefined) || scalars.length !== cols * rows) {
        throw new ConstEvalError(
          `mat${cols}x${rows}() takes ${cols * rows} scalars or ${cols} columns`,
        );
      }
      const element = floatOf(desc.element ?? scalars.map((p) => p.type).reduce(unify));
      const converted = scalars.map((p) => convertScalar(p, element));
      return matrix(
        Array.from({ length: cols }, (_, c) => vector(converted.slice(c * rows, c * rows + rows))),
      );
    }
    case "array": {
      if (desc.count !== undefined && args.length !== desc.count) {
        throw new ConstEvalError(`an array of ${desc.count} given ${args.length} elements`);
      }
      if (desc.element !== undefined) {
        return array(args.map((a) => convert(a, desc.element!, scope)));
      }
      if (args.every((a) => a.parts === undefined)) {
        const element = args.map((a) => a.type).reduce(unify);
        return array(args.map((a) => convertScalar(a, element)));
      }
      return array(args);
    }
    case "struct": {
      const value = scope.struct?.(desc.name, args);
      if (value === undefined) throw new ConstEvalError(`${desc.name}() is not evaluated`);
      return value;
    }
  }
}

/**
 * `value` converted to `desc` (element by element: abstract values made concrete, f32 rounded,
 * `vec2u(vec2f(...))` truncated). A shape that does not match throws.
 */
export function convert(value: ConstValue, desc: ConstTypeDesc, scope: ConstScope): ConstValue {
  const shape = (ok: boolean) => {
    if (!ok) throw new ConstEvalError(`a value that is not of the shape of its type`);
  };
  switch (desc.t) {
    case "scalar":
      shape(value.parts === undefined);
      return convertScalar(value, desc.type);
    case "vector":
      shape(value.kind === "vector" && value.parts!.length === desc.size);
      return desc.element === undefined
        ? value
        : vector(value.parts!.map((p) => convertScalar(p, desc.element!)));
    case "matrix": {
      shape(value.kind === "matrix" && value.parts!.length === desc.cols);
      const column: ConstTypeDesc = { t: "vector", size: desc.rows, element: desc.element };
      return matrix(value.parts!.map((c) => convert(c, column, scope)));
    }
    case "array":
      shape(value.kind === "array");
      shape(desc.count === undefined || value.parts!.length === desc.count);
      return desc.element === undefined
        ? value
        : array(value.parts!.map((p) => convert(p, desc.element!, scope)));
    case "struct":
      shape(value.fields !== undefined);
      return value;
  }
}

/** A matrix's element type: an abstract integer is an abstract float there. */
function floatOf(element: ConstType | undefined): ConstType {
  return element === undefined || element === "abstract-int" ? "abstract-float" : element;
}

/** A vector of scalars. */
export function vector(parts: readonly ConstValue[]): ConstValue {
  return { value: NaN, type: parts[0].type, parts, kind: "vector" };
}

/** A matrix of columns. */
export function matrix(columns: readonly ConstValue[]): ConstValue {
  return { value: NaN, type: columns[0].type, parts: columns, kind: "matrix" };
}

/** An array of values. */
export function array(parts: readonly ConstValue[]): ConstValue {
  if (parts.length === 0) throw new ConstEvalError(`an array of 0 elements`);
  return { value: NaN, type: parts[0].type, parts, kind: "array" };
}

/**
 * `value` as a declaration of `type` (as written) holds it: `const W: f32 = 2.9999999;` is 3.0,
 * so `u32(W)` is 3; `const m: mat2x2f = mat2x2(...)` likewise per element. A type it does not
 * read (or a struct) leaves `value` as evaluated.
 */
export function heldAs(value: ConstValue, type: string | undefined, scope: ConstScope): ConstValue {
  if (type === undefined) return value;
  let desc: ConstTypeDesc;
  try {
    [desc] = readType(tokenize(type), 0, scope, (count) => arrayCount(count, scope));
  } catch {
    return value;
  }
  return desc.t === "struct" ? value : convert(value, desc, scope);
}
