/**
 * Matrices in const expressions (`mat2x2f(1, 2, 3, 4)`, `mat3x3<f32>(c0, c1, c2)`): their
 * constructors and WGSL's arithmetic of matrices (`m * v`, `v * m`, `m * m`, `m * s`, `m + m`,
 * `m - m`), as naga evaluates them in const expressions. A matrix is its columns (`m[1]` is the
 * second); each step is the evaluator's scalar operator, rounded as the type does.
 *
 * @module
 */

import { ConstEvalError, type ConstType, type ConstValue } from "./_const_values.ts";

/** A scalar binary operator of the evaluator. */
type Operator = (op: string, a: ConstValue, b: ConstValue) => ConstValue;

/**
 * `matCxR(...)`: C columns of R rows from C * R scalars or C column vectors (converted to
 * `element` when given); a single matrix argument is converted likewise.
 */
export function constructMatrix(
  columns: number,
  rows: number,
  element: ConstType | undefined,
  given: readonly ConstValue[],
  convert: (type: ConstType, v: ConstValue) => ConstValue,
): ConstValue {
  let args = given;
  if (args.length === 0 && element !== undefined) {
    args = Array(columns * rows).fill({ value: 0, type: element }); // `mat2x2f()`: zeros
  }
  const scalars = args.flatMap((a) =>
    a.matrix ? a.parts!.flatMap((c) => c.parts!) : a.parts ?? [a]
  );
  if (scalars.length !== columns * rows || scalars.some((s) => s.parts !== undefined)) {
    throw new ConstEvalError(`a mat${columns}x${rows} of ${scalars.length} values`);
  }
  const type = element ?? scalars.map((s) => s.type).reduce((a, b) => a === b ? a : "f32");
  const cells = scalars.map((s) => convert(type === "abstract-int" ? "abstract-float" : type, s));
  return matrix(Array.from({ length: columns }, (_, c) => cells.slice(c * rows, (c + 1) * rows)));
}

function matrix(columns: readonly (readonly ConstValue[])[]): ConstValue {
  const parts = columns.map((cells) => ({ value: NaN, type: cells[0].type, parts: cells }));
  return { value: NaN, type: parts[0].type, parts, matrix: true };
}

const columnsOf = (m: ConstValue) => m.parts!.map((c) => c.parts!);

/** `a op b` where `a` or `b` is a matrix; `undefined` where neither is. */
export function matrixApply(
  op: string,
  a: ConstValue,
  b: ConstValue,
  apply: Operator,
): ConstValue | undefined {
  if (!a.matrix && !b.matrix) return undefined;
  const dot = (x: readonly ConstValue[], y: readonly ConstValue[]) => {
    if (x.length !== y.length) throw new ConstEvalError(`'${op}' of mismatched sizes`);
    return x.map((v, k) => apply("*", v, y[k])).reduce((s, p) => apply("+", s, p));
  };
  const times = (m: readonly (readonly ConstValue[])[], v: readonly ConstValue[]) =>
    m[0].map((_, r) => dot(m.map((column) => column[r]), v));
  if (a.matrix && b.matrix && (op === "+" || op === "-")) {
    const [x, y] = [columnsOf(a), columnsOf(b)];
    if (x.length !== y.length || x[0].length !== y[0].length) {
      throw new ConstEvalError(`'${op}' of matrices of different shapes`);
    }
    return matrix(x.map((column, c) => column.map((v, r) => apply(op, v, y[c][r]))));
  }
  if (op !== "*") throw new ConstEvalError(`'${op}' of a matrix`);
  if (a.matrix && b.matrix) {
    return matrix(columnsOf(b).map((column) => times(columnsOf(a), column)));
  }
  const [m, other] = a.matrix ? [a, b] : [b, a];
  if (other.parts === undefined) {
    return matrix(columnsOf(m).map((column) => column.map((v) => apply("*", v, other))));
  }
  const parts = a.matrix
    ? times(columnsOf(a), other.parts)
    : columnsOf(b).map((column) => dot(other.parts!, column));
  return { value: NaN, type: parts[0].type, parts };
}
