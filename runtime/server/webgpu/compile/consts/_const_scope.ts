/**
 * The scope const expressions are evaluated in (`_const_eval.ts`): the module's `const` and
 * `override` declarations, override values given for a pipeline, and the module's structs.
 *
 * @module
 */

import { type ConstScope, type ConstValue, evaluateConst } from "./_const_eval.ts";
import { heldAs } from "./_const_builtins.ts";
import { scalar, wrap } from "./_const_values.ts";
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
 * (the module's) are what `Foo(...)` constructs.
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
    value = heldAs(value, declaration.type);
    // An override is concrete: `override K = 0.29;` holds the f32 0.29 (an abstract int: i32).
    if (declaration.kind === "override" && value.type.startsWith("abstract")) {
      value = wrap(scalar(value, "override").value, value.type === "abstract-int" ? "i32" : "f32");
    }
    seen.set(name, value);
    return value;
  };
  const scope: ConstScope = Object.assign(lookup, {
    struct: (name: string, args: readonly ConstValue[]) =>
      constructStruct(structs, scope, name, args),
  });
  return scope;
}
