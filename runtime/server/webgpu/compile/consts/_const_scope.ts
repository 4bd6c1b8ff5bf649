/**
 * The scope const expressions are evaluated in (`_const_eval.ts`): the module's `const` and
 * `override` declarations, override values given for a pipeline, and the module's structs and
 * aliases.
 *
 * @module
 */

import { type ConstScope, type ConstValue, evaluateConst } from "./_const_eval.ts";
import { heldAs } from "./_const_types.ts";
import { concretize } from "./_const_ops.ts";
import { constructStruct, type ConstStruct } from "./_const_structs.ts";

/** A module-scope `const` or `override` as the scope reads it. */
export interface ScopeDeclaration {
  readonly kind: "const" | "override";
  /** The declared type, if written. */
  readonly type: string | undefined;
  /** The initializer's text, if any. */
  readonly init: string | undefined;
}

/**
 * A scope for {@linkcode evaluateConst} over the module's declarations: an override takes its
 * value from `overrides`, else its default. Cycles and undeclared names are unknown. `structs`
 * (the module's, with its aliases) are what `Foo(...)` constructs.
 */
export function constScope(
  declarations: ReadonlyMap<string, ScopeDeclaration>,
  overrides: ReadonlyMap<string, ConstValue>,
  structs: ReadonlyMap<string, ConstStruct> = new Map(),
): ConstScope {
  const seen = new Map<string, ConstValue | undefined>();
  const lookup = (name: string): ConstValue | undefined => {
    if (seen.has(name)) return seen.get(name);
    const declaration = declarations.get(name);
    if (declaration === undefined) return undefined;
    const override = declaration.kind === "override";
    // An override declared without a type has its initializer's concrete type (`override K =
    // 0.29;` is an f32: `u32(K * 100.0)` is 29, where an abstract K would make it 28).
    const typed = (v: ConstValue) =>
      override && declaration.type === undefined && v.parts === undefined
        ? concretize(v, v.type === "abstract-int" ? "i32" : "f32")
        : v;
    const given = override ? overrides.get(name) : undefined;
    if (given !== undefined) return typed(given);
    if (declaration.init === undefined) return undefined;
    seen.set(name, undefined); // a cycle reads as unknown
    let value = evaluateConst(declaration.init, scope, true);
    value = typed(heldAs(value, declaration.type, scope));
    seen.set(name, value);
    return value;
  };
  const scope: ConstScope = Object.assign(lookup, {
    struct: (name: string, args: readonly ConstValue[]) =>
      constructStruct(structs, scope, name, args),
    alias: (name: string) => structs.get(name)?.alias,
  });
  return scope;
}
