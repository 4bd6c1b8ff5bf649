/**
 * The module's struct types and aliases as const expressions use them: `struct Foo { n: u32,
 * w: u32 }` read from the text, `Foo(2u, 64u)` (each argument held as its member's type), the
 * zero value `Foo()`, nested structs, matrices and arrays of them; `_const_eval.ts` reads a member
 * by name (`c.n`). `alias V = vec2u;` makes `V(1u, 2u)` and `V()` vectors. What it cannot build
 * (a runtime-sized array, an argument count that does not match) is a `ConstEvalError`: no value
 * is guessed.
 *
 * @module
 */

import { splitTopLevel } from "../_wgsl_templates.ts";
import {
  arrayCount,
  ConstEvalError,
  type ConstScope,
  type ConstValue,
  tokenize,
} from "./_const_eval.ts";
import { type ConstTypeDesc, convert, readType, zeroOf } from "./_const_types.ts";

/**
 * A struct type of the module: its members' names and types (as written); or, with `alias`, an
 * alias of the module (no members) and the type it names.
 */
export interface ConstStruct {
  readonly fields: readonly { readonly name: string; readonly type: string }[];
  readonly alias?: string;
}

/** The struct and alias declarations of `text` (comments masked), by name. */
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
  const alias =
    /(?<![\p{XID_Continue}])alias\s+([\p{XID_Start}_]\p{XID_Continue}*)\s*=\s*([^;]+?)\s*;/gu;
  for (const m of text.matchAll(alias)) {
    if (!structs.has(m[1])) structs.set(m[1], { fields: [], alias: m[2] });
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
  if (struct === undefined || struct.alias !== undefined) return undefined;
  const types = struct.fields.map((f) => memberType(f.type, scope));
  if (args.length === 0) {
    return structValue(struct, types.map((t) => zeroOf(t, scope)));
  }
  if (args.length !== struct.fields.length) {
    throw new ConstEvalError(
      `${name}() takes ${struct.fields.length} argument(s) (one per member), got ${args.length}`,
    );
  }
  const parts = args.map((a, i) => {
    try {
      return convert(a, types[i], scope);
    } catch (cause) {
      const { name: field, type } = struct.fields[i];
      throw new ConstEvalError(`member '${field}: ${type}' of ${name}() cannot hold the argument`, {
        cause,
      });
    }
  });
  return structValue(struct, parts);
}

/** A member's type, read (a runtime-sized array has no value). */
function memberType(type: string, scope: ConstScope): ConstTypeDesc {
  const [desc] = readType(tokenize(type), 0, scope, (count) => arrayCount(count, scope));
  if (desc.t === "array" && desc.count === undefined) {
    throw new ConstEvalError(`no value of the runtime-sized '${type}'`);
  }
  return desc;
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
