/**
 * The scope const expressions are evaluated in (`_const_eval.ts`): the module's `const` and
 * `override` declarations, override values given for a pipeline, and the module's structs and
 * aliases.
 *
 * @module
 */

import { type ConstScope, type ConstValue, evaluateConst } from "./_const_eval.ts";
import { heldAs } from "./_const_types.ts";
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
    const given = declaration.kind === "override" ? overrides.get(name) : undefined;
    if (given !== undefined) return given;
    if (declaration.init === undefined) return undefined;
    seen.set(name, undefined); // a cycle reads as unknown
    let value = evaluateConst(declaration.init, scope, true);
    value = heldAs(value, declaration.type, scope);
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
