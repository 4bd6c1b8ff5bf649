/**
 * Module-scope `const` declarations that an earlier `const` names (`const A: i32 = B;` above
 * `const B: i32 = 4;`), which WGSL allows in any order and `wgsl_reflect` 1.6 reads in order
 * only (a typed one fails: "Invalid cast from f32 to i32"): the text the parser is given
 * (`_wgsl_source.ts`) declares them, with what they name in turn, first, in dependency order,
 * on the line of the module's first `const` (each one's own lines are blanked, so every line
 * keeps its number). The device compiles the user's text.
 *
 * @module
 */

interface ConstDeclaration {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly names: readonly string[];
}

const IDENTIFIER = /[\p{XID_Start}_]\p{XID_Continue}*/gu;
const CONST =
  /(?<![\p{XID_Continue}])const\s+([\p{XID_Start}_]\p{XID_Continue}*)\s*(?::[^=;]*)?=([^;]*);/gu;

/**
 * `text` (comments blanked) with the module-scope consts that earlier consts name moved up; the
 * text itself when none is, or when they name each other in a cycle (the device reports that).
 *
 * @example
 * ```ts ignore
 * import { orderConsts } from "./_const_order.ts";
 * console.log(orderConsts("const A: i32 = B;\nconst B: i32 = 4;"));
 * // "const B: i32 = 4; const A: i32 = B;\n                 " (B first, on line 1)
 * ```
 */
export function orderConsts(text: string): string {
  const declarations = constDeclarations(text);
  const byName = new Map(declarations.map((d) => [d.name, d]));
  const moved = new Set<ConstDeclaration>();
  const take = (d: ConstDeclaration): void => {
    if (moved.has(d)) return;
    moved.add(d);
    for (const name of d.names) take(byName.get(name)!);
  };
  for (const d of declarations) {
    for (const name of d.names) {
      if (byName.get(name)!.start > d.start) take(byName.get(name)!);
    }
  }
  if (moved.size === 0) return text;
  const ordered: ConstDeclaration[] = [];
  const placing = new Set<ConstDeclaration>();
  const place = (d: ConstDeclaration): boolean => {
    if (ordered.includes(d)) return true;
    if (placing.has(d)) return false; // a cycle
    placing.add(d);
    if (!d.names.every((name) => place(byName.get(name)!))) return false;
    ordered.push(d);
    return true;
  };
  if (![...moved].every(place)) return text;
  let out = text;
  for (const d of moved) {
    out = out.slice(0, d.start) + out.slice(d.start, d.end).replace(/[^\n]/g, " ") +
      out.slice(d.end);
  }
  const first = declarations[0].start;
  const lines = ordered.map((d) => text.slice(d.start, d.end).replace(/\s+/g, " "));
  return `${out.slice(0, first)}${lines.join(" ")} ${out.slice(first)}`;
}

/** The module-scope consts of `text`, in order, with the other consts each one's value names. */
function constDeclarations(text: string): ConstDeclaration[] {
  // what lies inside braces (function bodies, structs) is blanked: module scope only
  let top = "", depth = 0;
  for (let i = 0; i < text.length; i++) { // by UTF-16 unit: indices are `text`'s
    const c = text[i];
    if (c === "}") depth--;
    top += depth > 0 && c !== "\n" ? " " : c;
    if (c === "{") depth++;
  }
  const found = [...top.matchAll(CONST)];
  const names = new Set(found.map((m) => m[1]));
  return found.map((m) => ({
    name: m[1],
    start: m.index!,
    end: m.index! + m[0].length,
    names: [...new Set(m[2].match(IDENTIFIER) ?? [])].filter((n) => n !== m[1] && names.has(n)),
  }));
}
