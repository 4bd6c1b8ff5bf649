/**
 * The module's struct types as const expressions use them: `struct Foo { n: u32, w: u32 }`
 * read from the text, `Foo(2u, 64u)` (each argument held as its member's type), the zero value
 * `Foo()`, nested structs and arrays of them; `_const_eval.ts` reads a member by name (`c.n`).
 * What it cannot build (a matrix member, a runtime-sized array, an argument count that does not
 * match) is a `ConstEvalError`: no value is guessed.
 *
 * @module
 */

import { splitTopLevel } from "../_wgsl_templates.ts";
import {
  ConstEvalError,
  type ConstScope,
  type ConstType,
  type ConstValue,
  evaluateConst,
} from "./_const_eval.ts";
import { heldAs } from "./_const_builtins.ts";

/** A struct type of the module: its members' names and types (as written). */
export interface ConstStruct {
  readonly fields: readonly { readonly name: string; readonly type: string }[];
}

/** The struct declarations of `text` (comments masked), by name. */
export function moduleStructs(text: string): ReadonlyMap<string, ConstStruct> {
  const structs = new Map<string, ConstStruct>();
  const declaration = /(?<![\p{XID_Continue}])struct\s+([\p{XID_Start}_]\p{XID_Continue}*)\s*\{/gu;
  for (const m of text.matchAll(declaration)) {
    const body = text.slice(m.index! + m[0].length, text.indexOf("}", m.index!));
    const fields = splitTopLevel(body).map((member) => {
      // Attributes (`@align(16)`, `@size(8)`, `@location(0)`) come before the name.
      const bare = member.replace(/@\s*[\p{XID_Start}_]\p{XID_Continue}*\s*(\([^)]*\))?/gu, "");
      const colon = bare.indexOf(":");
      return { name: bare.slice(0, colon).trim(), type: bare.slice(colon + 1).trim() };
    }).filter((f) => f.name !== "");
    structs.set(m[1], { fields });
  }
  return structs;
}

/**
 * The value of `name(args...)` when `name` is one of `structs` (`undefined` otherwise): no
 * arguments, the zero value; else one per member, each held as the member's type.
 */
export function constructStruct(
  structs: ReadonlyMap<string, ConstStruct>,
  scope: ConstScope,
  name: string,
  args: readonly ConstValue[],
): ConstValue | undefined {
  const struct = structs.get(name);
  if (struct === undefined) return undefined;
  if (args.length === 0) return zeroValue(structs, scope, name, 0);
  if (args.length !== struct.fields.length) {
    throw new ConstEvalError(
      `${name}() takes ${struct.fields.length} argument(s) (one per member), got ${args.length}`,
    );
  }
  const parts = args.map((a, i) => {
    const { name: field, type } = struct.fields[i];
    const nested = structs.has(type);
    if (nested !== (a.fields !== undefined)) {
      throw new ConstEvalError(`member '${field}: ${type}' of ${name}() cannot hold the argument`);
    }
    return nested ? a : heldAs(a, type);
  });
  return structValue(struct, parts);
}

/** The zero value of `type` (a scalar, vector, fixed-size array or struct of the module). */
function zeroValue(
  structs: ReadonlyMap<string, ConstStruct>,
  scope: ConstScope,
  type: string,
  depth: number,
): ConstValue {
  if (depth > 16) throw new ConstEvalError(`'${type}' nests too deep`);
  const struct = structs.get(type);
  if (struct !== undefined) {
    return structValue(
      struct,
      struct.fields.map((f) => zeroValue(structs, scope, f.type, depth + 1)),
    );
  }
  if (SCALARS.has(type)) return { value: 0, type: type as ConstType };
  const vector = /^vec([234])(?:([fiuh])|\s*<\s*(\w+)\s*>)$/.exec(type);
  if (vector !== null) {
    const element = vector[3] ?? SUFFIX[vector[2]];
    if (!SCALARS.has(element)) throw new ConstEvalError(`no zero value of '${type}' here`);
    const zero: ConstValue = { value: 0, type: element as ConstType };
    return { value: NaN, type: zero.type, parts: Array(Number(vector[1])).fill(zero) };
  }
  const array = /^array\s*<(.*)>$/s.exec(type);
  const parts = array === null ? [] : splitTopLevel(array[1]).map((p) => p.trim());
  if (parts.length === 2) {
    const count = evaluateCount(parts[1], scope);
    const element = zeroValue(structs, scope, parts[0], depth + 1);
    return { value: NaN, type: element.type, parts: Array(count).fill(element) };
  }
  throw new ConstEvalError(`no zero value of '${type}' here`);
}

/** A struct's value from its members' values. */
function structValue(struct: ConstStruct, parts: readonly ConstValue[]): ConstValue {
  return {
    value: NaN,
    type: parts[0]?.type ?? "abstract-int",
    parts,
    fields: struct.fields.map((f) => f.name),
  };
}

/** An array member's count: a positive integer (`ConstEvalError` otherwise). */
function evaluateCount(text: string, scope: ConstScope): number {
  const { value } = evaluateConst(text, scope);
  if (!Number.isInteger(value) || value < 1 || value > 65536) {
    throw new ConstEvalError(`an array count of ${value}`);
  }
  return value;
}

const SCALARS = new Set(["i32", "u32", "f32", "f16", "bool"]);
const SUFFIX: Readonly<Record<string, string>> = { f: "f32", i: "i32", u: "u32", h: "f16" };
